/**
 * Bench child: the poll schedule over a production-like population, on a simulated clock. The
 * whole bot (startApp, SQLite file, synchronous=FULL) runs with its clock (`now`) under this
 * child's control and its cron task idle; the child runs the poller as the cron task would: a
 * scheduled cycle opened every `cycleMs` of simulated time, polled at `rate` requests/s in real
 * time. Between cycles the clock jumps to the next tick (the poller does nothing there), so twelve
 * simulated minutes take as long as their polls. The marketplace is the sandbox child, reached
 * over HTTP; notifications for the latency samples are raised through its control routes.
 *
 * Commands: seed (users, keys, poll states), everyone (one cycle over every user, as the poller
 * did before schedules), simulate (scheduled cycles with notifications raised along the way).
 */
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { randomBytes } from "node:crypto";
import { sql } from "kysely";
import pino from "pino";
import { startApp, type App } from "../../src/app";
import { openPollCycle } from "../../src/db/repos/poll-cycles";
import { pollCycle } from "../../src/push/poll-cycle";
import type { PollerDeps } from "../../src/push/poller-deps";
import { pollConcurrency } from "../../src/push/index";
import { startFakeTelegram } from "../../test/kit/telegram-driver";
import { seedCredentials, seedPollStates, seedUsers } from "../seed";
import { percentile, serveCommands } from "../lib";
import { benchAppEnv, BENCH_TOKEN } from "./bot-env";

const DAY = 86_400_000;

/** Who is in motion: 5% with an active rule, 1% with an order settling or a deposit expected (disjoint). */
function motionOf(index: number): "rule" | "order" | "deposit" | null {
  if (index % 20 === 0) return "rule";
  if (index % 200 === 1) return "order";
  if (index % 200 === 101) return "deposit";
  return null;
}

/** The look ahead's share of those calls (poll_look_ahead_requests_total): the low-balance check and delivery alerts. */
function lookAheadCalls(app: App): number {
  return (["rules", "fires", "preview", "balance"] as const).reduce(
    (sum, read) => sum + app.deps.metrics.pollLookAhead.get({ read }),
    0,
  );
}

/** Marketplace calls the app counted (its own metric), every route and outcome. */
async function marketplaceCalls(app: App): Promise<number> {
  let total = 0;
  for (const line of (await app.deps.metrics.render()).split("\n")) {
    if (line.startsWith("marketplace_api_calls_total{")) total += Number(line.slice(line.lastIndexOf(" ") + 1));
  }
  return total;
}

async function main() {
  const marketplaceUrl = process.env.BENCH_MARKETPLACE_URL!;
  const idleMs = Number(process.env.BENCH_IDLE_MS ?? 600_000);
  const telegram = await startFakeTelegram({ token: BENCH_TOKEN, longPollMaxMs: 5_000 });
  const dir = mkdtempSync(join(tmpdir(), "bench-schedule-"));
  /** The simulated clock: real time plus the jumps between cycles. */
  let offset = 0;
  const now = () => Date.now() + offset;
  const app = await startApp({
    env: benchAppEnv(telegram.apiRoot, {
      MARKETPLACE_URL: marketplaceUrl,
      DATABASE_URL: `file:${join(dir, "bot.db")}`,
      SECRET_KEY: randomBytes(32).toString("base64"),
      POLL_IDLE_INTERVAL: `${idleMs / 1000}s`,
    }),
    now,
    logDestination: pino.destination({ dest: join(dir, "app.log"), sync: false }),
  });
  // The child drives the poller itself; alerts stay queued (their delivery is measured elsewhere).
  await app.push.stop();
  let firstId = 0;
  let users = 0;
  let accountIds: string[] = [];
  const deps = (rate: number): PollerDeps => ({
    db: app.db,
    logger: app.logger,
    box: app.deps.box,
    translations: app.deps.i18n,
    now,
    marketplace: app.deps.marketplace,
    onQueued: () => undefined,
    ratePerSecond: rate,
    concurrency: pollConcurrency(rate),
    idleIntervalMs: idleMs,
    metrics: app.deps.metrics,
  });

  serveCommands({
    seed: async (args) => {
      firstId = Number(args.firstId);
      const keys = args.keys as string[];
      accountIds = args.accountIds as string[];
      users = keys.length;
      const at = now();
      await seedUsers(app.db, firstId, users, at);
      await seedCredentials(app.db, app.deps.box, firstId, keys, at);
      // Linked a while ago: the notifications already there are seen (the marketplace's clock),
      // motion as motionOf says.
      const seenUntil = Date.now();
      await seedPollStates(app.db, firstId, users, at, (i) => {
        const motion = motionOf(i);
        return {
          primed: 1,
          seen_until: seenUntil,
          // The sandbox holds no rules: a rule user's list read during the run would find none
          // and send them idle, so theirs were read just now; everyone else's over the last day.
          rules_checked_at: motion === "rule" ? at : at - ((i * 2_654_435_761) % DAY),
          rule_active: motion === "rule" ? 1 : 0,
          order_until: motion === "order" ? at + DAY : null,
          deposit_until: motion === "deposit" ? at + DAY : null,
        };
      });
      return { users };
    },
    /** One cycle over every user (the poller before schedules: every user every cycle). */
    everyone: async ({ rate }) => {
      const requestsBefore = await marketplaceCalls(app);
      const cpu = process.cpuUsage();
      const started = performance.now();
      const id = await openPollCycle(app.db, "bench", now(), now(), { everyone: true });
      const result = await pollCycle(deps(Number(rate)), "bench", id);
      const used = process.cpuUsage(cpu);
      return {
        users: result.users,
        ms: performance.now() - started,
        cpuMs: (used.user + used.system) / 1000,
        requests: (await marketplaceCalls(app)) - requestsBefore,
      };
    },
    /**
     * `cycles` scheduled cycles, one every `cycleMs` of simulated time. Idle users' next polls are
     * first spread evenly over one idle interval (the steady state). Notifications are raised for
     * `samples` users in motion at random times over the run, and for as many idle users over the
     * first `idleRaiseMs`; each one's time to its alert being queued is measured on the clock.
     */
    simulate: async ({ cycles, cycleMs, rate, samples, idleRaiseMs }) => {
      const period = Number(cycleMs);
      const count = Number(cycles);
      const start = now();
      await app.db
        .updateTable("poll_state")
        .set({
          next_poll_at: sql<number>`case when motion is null then cast(${start} as bigint) + (telegram_id * 7919) % ${idleMs} else 0 end`,
        })
        .execute();
      // Latency samples: users in motion over the whole run but its last two cycles; idle users early on.
      const random = mulberry32(42);
      const pick = (wanted: (index: number) => boolean) => {
        for (;;) {
          const index = Math.floor(random() * users);
          if (wanted(index)) return index;
        }
      };
      type Sample = { index: number; at: number; kind: "active" | "idle"; id?: string; raised?: Promise<void> };
      const list: Sample[] = [];
      for (let i = 0; i < Number(samples); i++)
        list.push({
          index: pick((index) => motionOf(index) !== null),
          at: start + random() * (count - 2) * period,
          kind: "active",
        });
      for (let i = 0; i < Number(samples); i++)
        list.push({
          index: pick((index) => motionOf(index) === null),
          at: start + random() * Number(idleRaiseMs),
          kind: "idle",
        });
      list.sort((a, b) => a.at - b.at);
      const raise = (sample: Sample) => {
        sample.raised ??= fetch(`${marketplaceUrl}/_sandbox/add-notification`, {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify({
            accountId: accountIds[sample.index],
            title: "Maintenance",
            body: `window ${sample.at}`,
          }),
        })
          .then((response) => response.json() as Promise<{ id: string }>)
          .then((view) => {
            sample.id = view.id;
          });
        return sample.raised;
      };

      const requestsBefore = await marketplaceCalls(app);
      const lookAheadBefore = lookAheadCalls(app);
      const cpu = process.cpuUsage();
      let overruns = 0;
      let polls = 0;
      for (let k = 0; k < count; k++) {
        const tick = start + k * period;
        if (now() < tick) offset += tick - now();
        else if (k > 0) overruns += 1;
        // Raised while the poller slept: the marketplace holds them from their time on.
        await Promise.all(list.filter((sample) => sample.at <= now()).map(raise));
        const during = list.filter((sample) => sample.at > now() && sample.at < tick + period);
        const timers = during.map((sample) => setTimeout(() => void raise(sample), sample.at - now()));
        const id = await openPollCycle(app.db, "bench", tick, now());
        polls += (await pollCycle(deps(Number(rate)), "bench", id)).users;
        for (const timer of timers) clearTimeout(timer);
      }
      const used = process.cpuUsage(cpu);
      const requests = (await marketplaceCalls(app)) - requestsBefore;
      const lookAhead = lookAheadCalls(app) - lookAheadBefore;
      const simulatedMs = count * period;
      await Promise.all(list.flatMap((sample) => (sample.raised ? [sample.raised] : [])));

      const latency = async (kind: Sample["kind"]) => {
        const mine = list.filter((sample) => sample.kind === kind && sample.id);
        const rows = await app.db
          .selectFrom("outbox")
          .select(["dedupe_key", "created_at"])
          .where(
            "dedupe_key",
            "in",
            mine.map((sample) => `notification:${sample.id}`),
          )
          .execute();
        const queuedAt = new Map(rows.map((row) => [row.dedupe_key, Number(row.created_at)]));
        const ms = mine.flatMap((sample) =>
          queuedAt.has(`notification:${sample.id}`) ? [queuedAt.get(`notification:${sample.id}`)! - sample.at] : [],
        );
        return {
          samples: mine.length,
          alerted: ms.length,
          p50Ms: percentile(ms, 50),
          p99Ms: percentile(ms, 99),
          maxMs: Math.max(...ms),
        };
      };
      const schedule = await app.db
        .selectFrom("poll_state")
        .select((eb) => ["motion", eb.fn.countAll<number>().as("n")])
        .groupBy("motion")
        .execute();
      return {
        simulatedMs,
        polls,
        requests,
        lookAhead,
        cycles: count,
        cpuMs: (used.user + used.system) / 1000,
        overruns,
        schedule: Object.fromEntries(schedule.map((row) => [row.motion ?? "idle", Number(row.n)])),
        active: await latency("active"),
        idle: await latency("idle"),
      };
    },
  });
  process.send!({ ready: true });
}

/** A small seeded generator, so every run picks the same samples. */
function mulberry32(seed: number): () => number {
  let state = seed;
  return () => {
    state = (state + 0x6d2b79f5) | 0;
    let t = Math.imul(state ^ (state >>> 15), 1 | state);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

main().catch((error: unknown) => {
  console.error("schedule-child failed", error);
  process.exit(1);
});
