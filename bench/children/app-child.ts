/**
 * Bench child: the whole bot (startApp, SQLite file, synchronous=FULL) with a fake Bot API in this
 * process and the marketplace at BENCH_MARKETPLACE_URL (the sandbox child). Commands: rss, seed,
 * ticks (poll cycles started by the app's own cron task, ticked faster than a cycle takes), poll
 * (one cycle at a given rate while event-loop delay is measured), updates (the full middleware
 * stack vs a bare grammY bot, the Bot API answered in-process beneath the app's transformers).
 */
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { randomBytes } from "node:crypto";
import { monitorEventLoopDelay } from "node:perf_hooks";
import { Session } from "node:inspector/promises";
import pino from "pino";
import cron from "node-cron";
import { startApp, type App } from "../../src/app";
import { sqliteHandle } from "../../src/db/connection";
import { MAIN_MENU } from "../../src/chat/callback-data";
import { createMarketplaceClient } from "../../src/marketplace/index";
import { currentPollCycle, cycleHasUsersLeft, nextPollCycleId, openPollCycle } from "../../src/db/repos/poll-cycles";
import { pollCycle } from "../../src/push/poll-cycle";
import type { PollerDeps } from "../../src/push/poller-deps";
import { startFakeTelegram } from "../../test/kit/telegram-driver";
import { pollConcurrency } from "../../src/push/index";
import { seedCredentials, seedPollStates, seedUsers, seedWebhookTokens } from "../seed";
import { serveCommands, sleep } from "../lib";
import { benchAppEnv, BENCH_TOKEN } from "./bot-env";
import { installInstantTelegram } from "./instant-telegram";
import {
  comparisonBots,
  driveGuided,
  GUIDED_THINK_MS,
  GUIDED_USERS_AT_ONCE,
  guidedUsersFor,
  LIFTED,
  metric,
  MIX_QUOTE,
  UpdateMix,
} from "./update-drive";

function gcNow(): void {
  const gc = (globalThis as { gc?: () => void }).gc;
  if (gc) {
    gc();
    gc();
  }
}

/**
 * With BENCH_PROFILE set to a directory, `work` runs under the V8 profiler and its profile is
 * written there as `<name>.cpuprofile` (open it in Chrome's DevTools); with BENCH_HEAP_PROFILE, its
 * allocations are sampled (every 4 KB, the collected ones too) into `<name>.heapprofile`; with
 * neither it just runs.
 */
async function profiled<T>(name: string, work: () => Promise<T>): Promise<T> {
  const heapDir = process.env.BENCH_HEAP_PROFILE;
  if (heapDir) {
    return recorded(join(heapDir, `${name}.heapprofile`), work, async (session) => {
      await session.post("HeapProfiler.enable");
      await session.post("HeapProfiler.startSampling", {
        samplingInterval: 4096,
        includeObjectsCollectedByMajorGC: true,
        includeObjectsCollectedByMinorGC: true,
      });
      return async () => (await session.post("HeapProfiler.stopSampling")).profile;
    });
  }
  const dir = process.env.BENCH_PROFILE;
  if (!dir) return work();
  return recorded(join(dir, `${name}.cpuprofile`), work, async (session) => {
    await session.post("Profiler.enable");
    await session.post("Profiler.start");
    return async () => (await session.post("Profiler.stop")).profile;
  });
}

/** Runs `work` with an inspector session recording (`start` begins it and returns its stop), then writes the record to `file`. */
async function recorded<T>(
  file: string,
  work: () => Promise<T>,
  start: (session: Session) => Promise<() => Promise<unknown>>,
): Promise<T> {
  const session = new Session();
  session.connect();
  const stop = await start(session);
  try {
    return await work();
  } finally {
    writeFileSync(file, JSON.stringify(await stop()));
    session.disconnect();
  }
}

/**
 * Counts the SQL statements the app's SQLite connection executes while `work` runs (better-sqlite3's
 * run, get, all and iterate, which Kysely's driver calls once per query; BEGIN and COMMIT included).
 */
async function countingStatements<T>(app: App, work: () => Promise<T>): Promise<{ result: T; statements: number }> {
  const sqlite = sqliteHandle(app.db);
  if (!sqlite) throw new Error("the bench's app runs on a SQLite file");
  const prototype = Object.getPrototypeOf(sqlite.prepare("select 1")) as Record<
    string,
    (...args: unknown[]) => unknown
  >;
  const originals = new Map((["run", "get", "all", "iterate"] as const).map((name) => [name, prototype[name]!]));
  let statements = 0;
  for (const [name, original] of originals) {
    prototype[name] = function (this: unknown, ...args: unknown[]) {
      statements += 1;
      return original.apply(this, args);
    };
  }
  try {
    return { result: await work(), statements };
  } finally {
    for (const [name, original] of originals) prototype[name] = original;
  }
}

/** `count` public price quotes (the one /quote energy 65k 1h asks for) through the marketplace client, `concurrency` in flight. */
async function quoteCallsAlone(count: number, concurrency: number) {
  const client = createMarketplaceClient({ baseUrl: process.env.BENCH_MARKETPLACE_URL! });
  for (let i = 0; i < 100; i++) await client.quote(MIX_QUOTE);
  let next = 0;
  const started = performance.now();
  const cpu = process.cpuUsage();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < count) {
        next += 1;
        await client.quote(MIX_QUOTE);
      }
    }),
  );
  const used = process.cpuUsage(cpu);
  return { perSecond: count / ((performance.now() - started) / 1000), cpuMs: (used.user + used.system) / 1000 / count };
}

async function main() {
  // Before any Bot is built: grammY's clients take their fetch when they are built.
  const instant = installInstantTelegram();
  const telegram = await startFakeTelegram({ token: BENCH_TOKEN, longPollMaxMs: 5_000 });
  const dir = mkdtempSync(join(tmpdir(), "bench-app-"));
  // The poll never fires by itself: the ticks command drives the app's own cron task.
  const env = (name: string) =>
    benchAppEnv(telegram.apiRoot, {
      MARKETPLACE_URL: process.env.BENCH_MARKETPLACE_URL,
      DATABASE_URL: `file:${join(dir, `${name}.db`)}`,
      SECRET_KEY: randomBytes(32).toString("base64"),
      LOG_LEVEL: process.env.BENCH_LOG_LEVEL ?? "info",
      POLL_RATE: process.env.BENCH_POLL_RATE ?? "50",
    });
  const app = await startApp({
    env: env("bot"),
    logDestination: pino.destination({ dest: join(dir, "app.log"), sync: false }),
  });
  // Alerts stay queued here: delivery is measured on its own against a rate-limited fake. The
  // scheduler keeps running: the ticks command goes through it.
  await app.push.sender.stop(0);
  const pollTask = [...cron.getTasks().values()][0];
  if (!pollTask) throw new Error("the app scheduled no cron task");
  let pushStopped = false;
  const botId = app.bot.botInfo.id;

  serveCommands({
    rss: () => {
      gcNow();
      const memory = process.memoryUsage();
      return { rss: memory.rss, heapUsed: memory.heapUsed, heapTotal: memory.heapTotal, external: memory.external };
    },
    seed: async ({ firstId, keys, tokens }) => {
      const apiKeys = keys as string[];
      const now = Date.now();
      await seedUsers(app.db, Number(firstId), apiKeys.length, now);
      await seedCredentials(app.db, app.deps.box, Number(firstId), apiKeys, now);
      // Every user in motion: each cron-started cycle polls all of them, as before schedules.
      await seedPollStates(app.db, Number(firstId), apiKeys.length, now);
      const raw = await seedWebhookTokens(app.db, Number(firstId), Number(tokens), now);
      return { tokens: raw, url: app.url, log: join(dir, "app.log") };
    },
    /**
     * Poll cycles through the app's real tick path: the app's own cron task is executed every
     * `tickMs` (faster than a cycle takes) until the first cycle opened by a tick has no user
     * left; the app's scheduler decides what each tick does (skip, open, join). Returns that
     * cycle's time and CPU, the ticks driven and the app's count of skipped ticks.
     */
    ticks: async ({ tickMs }) => {
      // A tick names its cycle by its wall-clock second: start in a fresh second, so the first
      // tick cannot name the cycle that just ended (it would open nothing until the next second).
      await sleep(1_005 - (Date.now() % 1_000));
      const before = (await currentPollCycle(app.db)) ?? 0;
      const skippedBefore = await metric(app, "poll_ticks_skipped_total");
      const start = performance.now();
      const cpu = process.cpuUsage();
      let ticks = 0;
      const tick = () => {
        ticks += 1;
        void pollTask.execute().catch(() => undefined);
      };
      tick();
      const timer = setInterval(tick, Number(tickMs));
      let cycle = before;
      let ms = 0;
      let cpuUs = 0;
      try {
        for (;;) {
          await sleep(10);
          cycle = (await currentPollCycle(app.db)) ?? before;
          if (cycle > before && !(await cycleHasUsersLeft(app.db, cycle, Date.now()))) break;
          if (performance.now() - start > 600_000) throw new Error("poll cycle did not finish in 10 minutes");
        }
        ms = performance.now() - start;
        const used = process.cpuUsage(cpu);
        cpuUs = used.user + used.system;
      } finally {
        clearInterval(timer);
      }
      // A tick that fired as the cycle ended may have opened the next one: let it finish.
      await sleep(200);
      for (
        let last = (await currentPollCycle(app.db)) ?? cycle;
        await cycleHasUsersLeft(app.db, last, Date.now());
        last = (await currentPollCycle(app.db)) ?? last
      )
        await sleep(25);
      await sleep(100);
      const opened = await app.db
        .selectFrom("poll_cycles")
        .select((eb) => eb.fn.countAll<number>().as("n"))
        .where("id", ">", before)
        .executeTakeFirstOrThrow();
      // Every user the cycle covered, counted in the database (not by the poller that covered them).
      const covered = await app.db
        .selectFrom("poll_state")
        .select((eb) => eb.fn.countAll<number>().as("n"))
        .where("last_cycle", ">=", cycle)
        .executeTakeFirstOrThrow();
      return {
        ms,
        users: Number(covered.n),
        cpuUs,
        ticks,
        skipped: (await metric(app, "poll_ticks_skipped_total")) - skippedBefore,
        opened: Number(opened.n),
        concurrency: pollConcurrency(app.config.POLL_RATE),
      };
    },
    /** One poll cycle at `rate` (not the app's POLL_RATE) while event-loop delay is measured. */
    poll: async ({ rate, concurrency }) => {
      if (!pushStopped) {
        // The scheduler's background join would take part in this cycle as a second poller.
        pushStopped = true;
        await app.push.stop();
      }
      const deps: PollerDeps = {
        db: app.db,
        logger: app.logger,
        box: app.deps.box,
        translations: app.deps.i18n,
        now: Date.now,
        marketplace: app.deps.marketplace,
        onQueued: () => undefined,
        ratePerSecond: Number(rate),
        concurrency: Number(concurrency),
      };
      const monitor = monitorEventLoopDelay({ resolution: 5 });
      monitor.enable();
      const start = performance.now();
      const id = await openPollCycle(app.db, "bench", await nextPollCycleId(app.db, Date.now()), Date.now(), {
        everyone: true,
      });
      const result = await pollCycle(deps, "bench", id);
      const ms = performance.now() - start;
      monitor.disable();
      return { ms, users: result.users, eldP99Ms: monitor.percentile(99) / 1e6, eldMaxMs: monitor.max / 1e6 };
    },
    updates: async ({ count, concurrency, deployedCount, sameIoRoundCount = 1 }) => {
      instant.setInstant(true);
      const n = Number(count);
      const c = Number(concurrency);

      const updates = new UpdateMix(botId, MAIN_MENU.data("quote"));
      // As deployed: Telegram's limits hold the replies to the shared budget's rate.
      instant.answered(true);
      const deployed = await updates.driveApp(app, Number(deployedCount), c, 0);
      const deployedCalls = instant.answered(true);
      const deployedMessages = (deployedCalls.sendMessage ?? 0) / deployed.seconds;

      // Limits lifted (a second app: the throttler's limits are set when a bot is built); every
      // transformer still runs and every reply still takes its grant from the database.
      const lifted = await startApp({
        env: env("lifted"),
        logDestination: pino.destination({ dest: join(dir, "lifted.log"), sync: false }),
        telegramBudget: LIFTED,
      });
      await lifted.push.stop();
      const bots = comparisonBots(
        BENCH_TOKEN,
        lifted.bot.botInfo,
        (userId) => lifted.db.selectFrom("users").selectAll().where("telegram_id", "=", userId).executeTakeFirst(),
        createMarketplaceClient({ baseUrl: process.env.BENCH_MARKETPLACE_URL! }),
      );
      const { bare, reference: referenceBot } = bots;
      await updates.warmUp(lifted, bots, n, c);
      // Long polls are left out: both apps' runners make them (answered in-process, idle).
      const notPolls = (labels: string) => !labels.includes('method="getUpdates"');
      const countedBefore = await metric(lifted, "telegram_api_calls_total", notPolls);
      instant.answered(true);
      const mix = await profiled("mix", () => updates.driveApp(lifted, n, c, 10_000));
      const answered = Object.entries(instant.answered(true)).reduce(
        (sum, [method, calls]) => sum + (method === "getUpdates" ? 0 : calls),
        0,
      );
      const counted = (await metric(lifted, "telegram_api_calls_total", notPolls)) - countedBefore;
      const reference = await updates.drive((update) => bare.handleUpdate(update), n, c, 10_000);
      const sameIo = await updates.drive((update) => referenceBot.handleUpdate(update), n, c, 10_000);
      const sameIoRounds = await updates.sameIoRounds(lifted, referenceBot, Number(sameIoRoundCount), n, c);
      // Statements are counted on a second pass of the same mix (the same kinds and users in the same
      // order, new update ids), from users met for the first time as in the measured one: the counter
      // wraps every statement call, so it stays out of the CPU figure.
      const countingOffset = 10_000 + 3_000 * Math.ceil(n / 3_000);
      const counting = await countingStatements(lifted, () =>
        updates.driveApp(lifted, n, c, countingOffset, undefined, 800_000_000),
      );
      const full = { ...mix, statementsPerUpdate: counting.statements / Math.max(1, counting.result.handled) };
      // 200 updates a second of the mix, offered open-loop, from users the bot knows.
      const paced = await updates.drivePaced(
        (update) => lifted.bot.handleUpdate(update),
        Math.max(200, Math.min(2_000, n)),
        200,
        10_000,
        instant,
      );
      const pacedReference = await updates.drivePaced(
        (update) => referenceBot.handleUpdate(update),
        Math.max(200, Math.min(2_000, n)),
        200,
        10_000,
        instant,
      );
      // Each kind on its own, from users the bot already knows (the mix above met most of them first).
      const kinds = [];
      for (const kind of [0, 1, 2])
        kinds.push(
          await profiled(`kind-${["start", "quote", "button"][kind]}`, () =>
            updates.driveApp(lifted, Math.ceil(n / 3), c, 20_000, kind),
          ),
        );
      // The same-I/O reference on the same updates of each kind, so each kind's share of the ratio shows.
      const kindsReference = [];
      for (const kind of [0, 1, 2])
        kindsReference.push(
          await updates.drive((update) => referenceBot.handleUpdate(update), Math.ceil(n / 3), c, 20_000, kind),
        );
      // The price request a /quote makes, alone: what the fresh quote costs this process however
      // little the rest of the app did.
      const quoteCall = await quoteCallsAlone(Math.ceil(n / 3), c);
      // Guided steps (a /quote asked step by step), after a warm-up of their own as long: answered
      // as a person answers, then (informational) back to back, as this figure was measured before.
      const guidedUsers = guidedUsersFor(n);
      await driveGuided(lifted, guidedUsers, GUIDED_USERS_AT_ONCE, 0, GUIDED_THINK_MS);
      const guided = await profiled("guided", () =>
        driveGuided(lifted, guidedUsers, GUIDED_USERS_AT_ONCE, guidedUsers, GUIDED_THINK_MS),
      );
      await driveGuided(lifted, guidedUsers, c, 2 * guidedUsers, 0);
      const guidedBackToBack = await profiled("guided-back-to-back", () =>
        driveGuided(lifted, guidedUsers, c, 3 * guidedUsers, 0),
      );
      await lifted.stop();
      instant.setInstant(false);
      return {
        deployed: { ...deployed, messagesPerSecond: deployedMessages },
        full,
        bare: reference,
        sameIo,
        sameIoRounds,
        paced,
        pacedReference,
        kinds,
        kindsReference,
        calls: { answered, counted },
        quoteCall,
        guided: { ...guided, thinkMs: GUIDED_THINK_MS, usersAtOnce: GUIDED_USERS_AT_ONCE },
        guidedBackToBack: { ...guidedBackToBack, usersAtOnce: c },
      };
    },
  });
  process.send!({ ready: true });
}

main().catch((error: unknown) => {
  console.error("app-child failed", error);
  process.exit(1);
});
