import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import SQLite from "better-sqlite3";
import {
  closedLoop,
  createAgent,
  figure,
  forkChild,
  openLoop,
  orderEvent,
  percentile,
  post,
  type Figure,
  type LoadResult,
} from "./lib";

export interface IngestSettings {
  users: number;
  throughputCount: number;
  throughputSeconds: number;
  concurrency: number;
  offeredRate: number;
  offeredSeconds: number;
  killCount: number;
}

interface Run {
  throughput: LoadResult;
  paced: LoadResult | null;
}

async function runMode(
  mode: "real" | "naive" | "bare",
  settings: IngestSettings,
  dir: string,
  paced: boolean,
): Promise<Run> {
  const child = forkChild("ingest-server.ts", {
    BENCH_MODE: mode,
    BENCH_DB: join(dir, `${mode}.db`),
    BENCH_USERS: String(settings.users),
  });
  try {
    const ready = (await child.ready) as { port: number; tokens: string[] };
    const agent = createAgent(settings.concurrency);
    const base = `http://127.0.0.1:${ready.port}/webhooks/marketplace/`;
    const sendFor = (salt: string) => async (index: number) => {
      const event = orderEvent(index, salt);
      const result = await post(agent, new URL(base + ready.tokens[index % ready.tokens.length]), event.body);
      return result.status === 200;
    };
    // warm-up: JIT, prepared paths, first pages of the database
    await closedLoop({ count: 200, concurrency: 16, timeLimitMs: 3_000, send: sendFor("a0a0a0a0") });
    const throughput = await closedLoop({
      count: settings.throughputCount,
      concurrency: settings.concurrency,
      timeLimitMs: settings.throughputSeconds * 1000,
      send: sendFor("b1b1b1b1"),
    });
    const pacedResult = paced
      ? await openLoop({
          ratePerSecond: settings.offeredRate,
          durationMs: settings.offeredSeconds * 1000,
          send: sendFor("c2c2c2c2"),
        })
      : null;
    agent.destroy();
    return { throughput, paced: pacedResult };
  } finally {
    await child.kill();
  }
}

/** Load, then kill -9 the receiver while requests are still in flight; every 200 must be in the outbox. */
async function killNine(
  settings: IngestSettings,
  dir: string,
): Promise<{ acknowledged: number; found: number; lost: number }> {
  const dbPath = join(dir, "kill9.db");
  const child = forkChild("ingest-server.ts", {
    BENCH_MODE: "real",
    BENCH_DB: dbPath,
    BENCH_USERS: String(settings.users),
  });
  const ready = (await child.ready) as { port: number; tokens: string[] };
  const agent = createAgent(settings.concurrency);
  const base = `http://127.0.0.1:${ready.port}/webhooks/marketplace/`;
  const acknowledged: Array<{ telegramId: number; orderId: string }> = [];
  const killAt = Math.floor(settings.killCount * 0.9);
  let killed = false;
  await closedLoop({
    count: settings.killCount,
    concurrency: settings.concurrency,
    timeLimitMs: 60_000,
    send: async (index) => {
      if (killed) return false;
      const event = orderEvent(index, "d3d3d3d3");
      const result = await post(agent, new URL(base + ready.tokens[index % ready.tokens.length]), event.body, 5_000);
      if (result.status !== 200 || killed) return false;
      acknowledged.push({ telegramId: 1_000_000 + (index % ready.tokens.length), orderId: event.orderId });
      if (acknowledged.length >= killAt && !killed) {
        killed = true;
        child.process.kill("SIGKILL");
      }
      return true;
    },
  });
  if (!killed) child.process.kill("SIGKILL");
  await child.kill();
  agent.destroy();
  const db = new SQLite(dbPath);
  const lookup = db.prepare("select count(*) as n from outbox where telegram_id = ? and dedupe_key = ?");
  let found = 0;
  for (const ack of acknowledged)
    found += (lookup.get(ack.telegramId, `order:${ack.orderId.toLowerCase()}:filled`) as { n: number }).n > 0 ? 1 : 0;
  db.close();
  return { acknowledged: acknowledged.length, found, lost: acknowledged.length - found };
}

export async function benchIngest(settings: IngestSettings, log: (line: string) => void): Promise<Figure[]> {
  const dir = mkdtempSync(join(tmpdir(), "bench-ingest-"));
  try {
    log("ingest: bare Hono route");
    const bare = await runMode("bare", settings, dir, true);
    log(`ingest: bare ${bare.throughput.perSecond.toFixed(0)}/s; naive receiver (one transaction per request)`);
    const naive = await runMode("naive", settings, dir, false);
    log(`ingest: naive ${naive.throughput.perSecond.toFixed(0)}/s; real receiver (group commit)`);
    const real = await runMode("real", settings, dir, true);
    log(`ingest: real ${real.throughput.perSecond.toFixed(0)}/s; kill -9 under load`);
    const kill = await killNine(settings, dir);
    log(`ingest: kill -9: ${kill.acknowledged} acknowledged, ${kill.found} in the outbox`);
    const failedReal = real.throughput.failed + (real.paced?.failed ?? 0);
    const p99 = percentile(real.paced!.latenciesMs, 99);
    const bareP99 = percentile(bare.paced!.latenciesMs, 99);
    return [
      figure({
        name: "ingest_events_per_s_vs_naive",
        value: real.throughput.perSecond,
        unit: "events/s",
        reference: "naive receiver (one transaction per request, synchronous=FULL)",
        referenceValue: naive.throughput.perSecond,
        target: { of: "ratio", op: ">=", limit: 2, requires: { "no event refused": failedReal === 0 } },
      }),
      figure({
        name: "ingest_events_per_s_vs_bare",
        value: real.throughput.perSecond,
        unit: "events/s",
        reference: "bare Hono route answering 200",
        referenceValue: bare.throughput.perSecond,
        target: { of: "ratio", op: ">=", limit: 0.25 },
      }),
      figure({
        name: "ingest_p99_ms_at_offered_rate",
        value: p99,
        unit: `ms (p99 to the 200, ${settings.offeredRate} events/s offered)`,
        reference: "bare Hono route, same offered load",
        referenceValue: bareP99,
        target: { of: "value", op: "<=", limit: 25, requires: { "no event refused": real.paced!.failed === 0 } },
      }),
      figure({
        name: "ingest_events_lost_after_kill9",
        value: kill.lost,
        unit: "events",
        reference: "events acknowledged before kill -9",
        referenceValue: kill.acknowledged,
        ratio: kill.acknowledged > 0 ? kill.found / kill.acknowledged : null,
        target: { of: "value", op: "=", limit: 0, requires: { "events acknowledged": kill.acknowledged > 0 } },
      }),
    ];
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
