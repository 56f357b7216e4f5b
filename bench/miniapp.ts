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
import { launchPath, signInitData } from "../src/miniapp/index";
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
  figures.push(await apiBurst(log));
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

/** The sum of marketplace_api_calls_total in the app's /metrics text (loopback needs no token). */
async function marketplaceCalls(origin: string): Promise<number> {
  const text = await (await fetch(`${origin}/metrics`)).text();
  let sum = 0;
  for (const line of text.split("\n")) {
    const match = /^marketplace_api_calls_total(?:\{[^}]*\})? (\S+)$/.exec(line);
    if (match) sum += Number(match[1]);
  }
  return sum;
}

/**
 * A burst of 100 requests to the dashboard's API from one signer with valid init data, all at once
 * (dashboards, 7- and 30-day spending reads, Pause on a rule id that does not exist): the
 * marketplace calls they cost, per request. Unbounded, each dashboard cost 4 calls and a cold
 * spending read up to 30; the per-signer window, shared reads in flight and the signer's own rule
 * list hold it down.
 */
async function apiBurst(log: (line: string) => void): Promise<Figure> {
  const app = await startApp({
    env: { DATABASE_URL: ":memory:", PORT: "0", SECRET_KEY: randomBytes(32).toString("base64"), LOG_LEVEL: "silent" },
    perChatMinTimeMs: 0,
  });
  try {
    const origin = app.url;
    const config = (await (await fetch(`${origin}/play/api/config`)).json()) as { demo: { apiKey: string } };
    const linked = await fetch(`${origin}/play/api/send`, {
      method: "POST",
      headers: { "content-type": "application/json", origin },
      body: JSON.stringify({ userId: 1002, text: `/connect ${config.demo.apiKey}`, waitMs: 3000 }),
    });
    if (!linked.ok) throw new Error(`linking the demo key failed: HTTP ${linked.status}`);
    const initData = signInitData(
      { id: 1002, firstName: "Bob", languageCode: "en" },
      app.playground!.token,
      new Date(),
    );
    const paths = ["/app/api/dashboard", "/app/api/spending?days=7", "/app/api/spending?days=30"];
    const before = await marketplaceCalls(origin);
    const statuses = new Map<number, number>();
    await Promise.all(
      Array.from({ length: 100 }, async (_, i) => {
        const unknownRule = i % 10 === 9;
        const response = await fetch(
          `${origin}${unknownRule ? `/app/api/rules/no-such-rule-${i}/pause` : paths[i % 3]}`,
          {
            method: unknownRule ? "POST" : "GET",
            headers: { authorization: `tma ${initData}` },
          },
        );
        await response.arrayBuffer();
        statuses.set(response.status, (statuses.get(response.status) ?? 0) + 1);
      }),
    );
    const calls = (await marketplaceCalls(origin)) - before;
    const answered = [...statuses].map(([status, count]) => `${count}× ${status}`).join(", ");
    log(`miniapp: a burst of 100 /app/api requests from one signer: ${calls} marketplace calls (${answered})`);
    return figure({
      name: "miniapp_marketplace_calls_per_api_request",
      value: calls / 100,
      unit: `marketplace calls per /app/api request, 100 at once from one signer (dashboards, 7/30-day spending, Pause on unknown rule ids; answered ${answered})`,
      reference: "calls one dashboard costs unbounded",
      referenceValue: 4,
      ratio: null,
      target: {
        of: "value",
        op: "<=",
        limit: 1.5,
        requires: { "no answer 5xx": [...statuses.keys()].every((status) => status < 500) },
      },
    });
  } finally {
    await app.stop();
  }
}
