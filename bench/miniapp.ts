/**
 * The dashboard Mini App: its script's size as a phone downloads it (gzipped) and the time to its
 * first render on loopback, in Debian's Chromium (headless), against the app as `npm start` runs
 * it with no BOT_TOKEN (the playground's fake Telegram, the embedded sandbox, an in-memory
 * database), for a simulated user with the demo key linked.
 */
import { randomBytes } from "node:crypto";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { gzipSync } from "node:zlib";
import { startApp } from "../src/app";
import { launchPath } from "../src/miniapp/index";
import { projectRoot } from "../src/paths";
import { figure, percentile, type Figure } from "./lib";
import { partNotRun } from "./parts";
import { exploring } from "./report";

const CHROMIUM = "/usr/bin/chromium";
const SCRIPT = join(projectRoot(), "dist", "miniapp", "app.js");

export async function benchMiniApp(loads: number, log: (line: string) => void): Promise<Figure[]> {
  if (!existsSync(SCRIPT)) throw new Error(`${SCRIPT} is missing: npm run bench builds it (npm run build:web)`);
  const script = readFileSync(SCRIPT);
  const gzipKb = gzipSync(script, { level: 9 }).length / 1024;
  log(`miniapp: script ${(script.length / 1024).toFixed(1)} KB, ${gzipKb.toFixed(1)} KB gzipped`);
  const figures = [
    figure({
      name: "miniapp_bundle_gzip_kb",
      value: gzipKb,
      unit: `KB gzipped (dist/miniapp/app.js, ${(script.length / 1024).toFixed(1)} KB as served)`,
      reference: "none",
      referenceValue: null,
      target: { of: "value", op: "<=", limit: 60 },
    }),
  ];
  if (!existsSync(CHROMIUM)) {
    const why = `${CHROMIUM} is missing (apt-get install -y chromium)`;
    log(`miniapp: ${why}: the first render is not measured`);
    return [...figures, partNotRun("miniapp_first_render_ms", why, exploring())];
  }
  const renders = await firstRenders(loads, log);
  const median = percentile(renders.data, 50);
  figures.push(
    figure({
      name: "miniapp_first_render_ms",
      value: median,
      unit: `ms from navigation to the balances and rules drawn (median of ${renders.data.length} loads on loopback, after one warm-up; signed init data checked, 4 marketplace reads)`,
      reference: "first contentful paint (the page's shell)",
      referenceValue: percentile(renders.paint, 50),
      ratio: null,
      target: { of: "value", op: "<=", limit: 1000 },
    }),
  );
  return figures;
}

async function firstRenders(loads: number, log: (line: string) => void): Promise<{ data: number[]; paint: number[] }> {
  const { chromium } = await import("playwright-core");
  const app = await startApp({
    env: { DATABASE_URL: ":memory:", PORT: "0", SECRET_KEY: randomBytes(32).toString("base64"), LOG_LEVEL: "silent" },
    perChatMinTimeMs: 0,
  });
  const browser = await chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: ["--no-sandbox", "--disable-gpu", "--no-first-run"],
  });
  try {
    const origin = app.url;
    const config = (await (await fetch(`${origin}/play/api/config`)).json()) as { demo: { apiKey: string } };
    const linked = await fetch(`${origin}/play/api/send`, {
      method: "POST",
      headers: { "content-type": "application/json", origin },
      body: JSON.stringify({ userId: 1001, text: `/connect ${config.demo.apiKey}`, waitMs: 3000 }),
    });
    if (!linked.ok) throw new Error(`linking the demo key failed: HTTP ${linked.status}`);
    const context = await browser.newContext({ viewport: { width: 390, height: 780 } });
    await context.route(/^(?!http:\/\/127\.0\.0\.1)/, (route) => route.abort());
    const page = await context.newPage();
    const data: number[] = [];
    const paint: number[] = [];
    for (let load = 0; load <= loads; load++) {
      await page.goto("about:blank");
      await page.goto(
        `${origin}${launchPath({ id: 1001, firstName: "Alice", languageCode: "en" }, app.playground!.token, new Date(), "light")}`,
      );
      // Read in the page at the first animation frame that has the balances: no polling delay of the driver in it.
      const drawn = await page.waitForFunction(
        () => (document.getElementById("balance-trx") ? performance.now() : false),
        undefined,
        { polling: "raf" },
      );
      const timing = {
        now: (await drawn.jsonValue()) as number,
        paint: await page.evaluate(
          () => performance.getEntriesByName("first-contentful-paint")[0]?.startTime ?? Number.NaN,
        ),
      };
      if (load === 0) continue;
      data.push(timing.now);
      paint.push(timing.paint);
    }
    log(
      `miniapp: first render with data ${data.map((ms) => ms.toFixed(0)).join(", ")} ms; first contentful paint ${paint.map((ms) => ms.toFixed(0)).join(", ")} ms`,
    );
    return { data, paint };
  } finally {
    await browser.close();
    await app.stop();
  }
}
