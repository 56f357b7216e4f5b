/**
 * The /stats chart's rendering cost: CPU time of one report (Vega-Lite → Vega → SVG → resvg PNG)
 * from a month of sandbox history, in every language and both windows. Run alone, it also writes
 * the README's sample image: `npx tsx bench/chart.ts --write docs/stats.png`.
 */
import { writeFileSync } from "node:fs";
import { pathToFileURL } from "node:url";
import { createI18n } from "../src/chat/i18n";
import { collectSpending, type SpendingRecords } from "../src/reports/collect";
import { buildSpendingReport } from "../src/reports/report";
import { chartFonts } from "../src/reports/fonts";
import { lastDays } from "../src/reports/time-zones";
import { createMarketplaceClient } from "../src/marketplace/index";
import { join } from "node:path";
import { projectRoot } from "../src/paths";
import { createSandbox } from "../src/sandbox/index";
import { figure, percentile, type Figure } from "./lib";

const LANGUAGES = ["en", "ru", "zh"] as const;
/** A fixed moment and a seeded generator: the same history, and so the same picture, every run. */
const NOW = Date.parse("2026-11-23T15:00:00Z");

function seeded(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 2 ** 32;
  };
}

async function monthOfHistory(): Promise<SpendingRecords> {
  const sandbox = createSandbox({ now: () => new Date(NOW), random: seeded(7) });
  const { accountId } = sandbox.control.createAccount({ trx: "1000" });
  const { apiKey } = sandbox.control.createKey({ accountId, scope: "read" });
  sandbox.control.fillHistory({ accountId, days: 30 });
  const client = createMarketplaceClient({
    baseUrl: "http://sandbox.local",
    apiKey: () => apiKey,
    fetch: async (input, init) => sandbox.app.fetch(new Request(String(input), init)),
  });
  return collectSpending(client, lastDays("UTC", 30, NOW).from, NOW);
}

const translations = () => createI18n(join(projectRoot(), "locales"));

/**
 * Renders `rounds` reports per language and window. The first round warms the process up (the
 * renderer's modules, their code compiled as it first runs, each font's first subset) and is
 * reported apart: the first chart of all, and the slowest of that round. The target is held by
 * the rounds after it, as a bot that has drawn one chart of each kind draws the next ones.
 */
export async function benchChart(rounds: number, log: (line: string) => void): Promise<Figure[]> {
  const records = await monthOfHistory();
  const i18n = translations();
  const fonts = chartFonts();
  log(`chart: fonts ${fonts.files.join(", ") || "(system fonts: no known font file found)"}`);
  const warmup: number[] = [];
  const times: number[] = [];
  for (let round = 0; round < Math.max(2, rounds); round++) {
    for (const lang of LANGUAGES) {
      for (const days of [7, 30]) {
        const tr = (key: string, vars?: Record<string, string | number>) =>
          i18n.t(lang, key, vars as Record<string, string>);
        const before = process.cpuUsage();
        await buildSpendingReport({
          tr,
          lang,
          records,
          window: lastDays("UTC", days, NOW),
          heading: tr("stats-title", { days }),
          period: tr("stats-period", { days }),
        });
        const used = process.cpuUsage(before);
        (round === 0 ? warmup : times).push((used.user + used.system) / 1000);
      }
    }
  }
  const cold = warmup[0]!;
  const firstRoundMax = Math.max(...warmup.slice(1));
  const median = percentile(times, 50);
  const p95 = percentile(times, 95);
  log(
    `chart: first round (${warmup.length} renders, one per language and window) ${warmup.map((ms) => ms.toFixed(0)).join(", ")} ms CPU; then ${times.length} renders, median ${median.toFixed(1)} ms, p95 ${p95.toFixed(1)} ms, max ${Math.max(...times).toFixed(1)} ms`,
  );
  return [
    figure({
      name: "chart_render_cpu_ms",
      value: median,
      unit: `ms CPU per /stats chart (median of ${times.length} renders over en, ru, zh × 7, 30 days, after one render of each)`,
      reference: "p95 of the same renders",
      referenceValue: p95,
      ratio: null,
      target: { of: "value", op: "<=", limit: 150, requires: { "p95 <= 150": p95 <= 150 } },
    }),
    figure({
      name: "chart_render_cpu_ms_cold",
      value: cold,
      unit: "ms CPU, the process's first chart (the renderer's modules load)",
      reference: "the steady median (chart_render_cpu_ms)",
      referenceValue: median,
      informational: "a bot draws its first chart once",
    }),
    figure({
      name: "chart_render_cpu_ms_first_round_max",
      value: firstRoundMax,
      unit: "ms CPU, the slowest of the first chart of each other language and window (code compiled as it first runs, each font loaded into the subsetter once)",
      reference: "the steady median (chart_render_cpu_ms)",
      referenceValue: median,
      informational: true,
    }),
  ];
}

async function writeSample(path: string): Promise<void> {
  const records = await monthOfHistory();
  const i18n = translations();
  const tr = (key: string, vars?: Record<string, string | number>) => i18n.t("en", key, vars as Record<string, string>);
  const report = await buildSpendingReport({
    tr,
    lang: "en",
    records,
    window: lastDays("UTC", 30, NOW),
    heading: tr("stats-title", { days: 30 }),
    period: tr("stats-period", { days: 30 }),
  });
  if (report.kind !== "chart") throw new Error("the sample history spent nothing");
  writeFileSync(path, report.png);
  console.log(`written: ${path} (${report.png.length} bytes)\n\n${report.caption}`);
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
  const at = process.argv.indexOf("--write");
  const work =
    at > 0
      ? writeSample(process.argv[at + 1] ?? "docs/stats.png")
      : benchChart(10, (line) => console.log(`[bench] ${line}`)).then((figures) => console.log(figures));
  work.catch((error: unknown) => {
    console.error(error);
    process.exit(1);
  });
}
