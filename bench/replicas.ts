/**
 * Scale-out on PostgreSQL: three bot replicas (bench/children/replica-child.ts) on one database,
 * the sandbox marketplace with latency added to every notifications call. Measures
 *
 * - one notification poll cycle over N users shared by the three (each at POLL_RATE R): cycle time
 *   against N / (3 R), and from the sandbox's own count of calls per key, that every user was
 *   polled exactly once;
 * - webhook ingest spread round-robin over the three, against the same load on one replica, and
 *   that every acknowledged event is in the outbox exactly once.
 */
import { randomBytes } from "node:crypto";
import { openDatabase } from "../src/db/connection";
import { nextPollCycleId, openPollCycle } from "../src/db/repos/poll-cycles";
import { benchPostgres, NO_POSTGRES } from "./postgres";
import { partNotRun } from "./parts";
import { exploring } from "./report";
import { closedLoop, createAgent, figure, forkChild, orderEvent, post, sleep, type Child, type Figure } from "./lib";

export interface ReplicaSettings {
  users: number;
  /** POLL_RATE of each replica. */
  rate: number;
  delayMs: number;
  ingestCount: number;
  ingestSeconds: number;
  concurrency: number;
}

const REPLICAS = 3;
const FIRST_ID = 700_000_000;

/** The part's targets, each missed when it cannot run. */
export const REPLICA_TARGETS = ["replicas_poll_cycle_s", "replicas_users_polled_twice", "replicas_ingest_events_lost"];

export async function benchReplicas(settings: ReplicaSettings, log: (line: string) => void): Promise<Figure[]> {
  const database = await benchPostgres(log);
  if (!database) return REPLICA_TARGETS.map((name) => partNotRun(name, NO_POSTGRES, exploring()));
  const children: Child[] = [];
  const { db } = await openDatabase(database.url, { poolMax: 2 });
  try {
    const sandbox = forkChild("sandbox-child.ts", {
      BENCH_ACCOUNTS: String(settings.users),
      BENCH_NOTIFICATIONS: "1",
      BENCH_DELAY_MS: String(settings.delayMs),
    });
    children.push(sandbox);
    const market = (await sandbox.ready) as { url: string; keys: string[] };
    const secretKey = randomBytes(32).toString("base64");
    const replicas: Array<{ child: Child; url: string }> = [];
    for (let i = 0; i < REPLICAS; i++) {
      // One at a time: the first applies the migrations.
      const child = forkChild("replica-child.ts", {
        BENCH_MARKETPLACE_URL: market.url,
        BENCH_REPLICA_DATABASE_URL: database.url,
        BENCH_SECRET_KEY: secretKey,
        BENCH_REPLICA_ID: `replica-${i + 1}`,
        BENCH_POLL_RATE: String(settings.rate),
      });
      children.push(child);
      const ready = (await child.ready) as { url: string };
      replicas.push({ child, url: ready.url });
    }
    const seeded = await replicas[0]!.child.call<{ tokens: string[] }>(
      "seed",
      { firstId: FIRST_ID, keys: market.keys, tokens: Math.min(1000, settings.users) },
      600_000,
    );
    log(
      `replicas: ${REPLICAS} replicas on PostgreSQL, ${settings.users} linked users, POLL_RATE ${settings.rate}/s each, +${settings.delayMs} ms per notifications call`,
    );

    // Webhook ingest: the same closed-loop load on one replica, then spread over all three.
    const agent = createAgent(settings.concurrency);
    const ingest = async (targets: string[], salt: string) => {
      const acknowledged: Array<{ telegramId: number; orderId: string }> = [];
      const result = await closedLoop({
        count: settings.ingestCount,
        concurrency: settings.concurrency,
        timeLimitMs: settings.ingestSeconds * 1000,
        send: async (index) => {
          const event = orderEvent(index, salt);
          const user = index % seeded.tokens.length;
          const response = await post(
            agent,
            new URL(`${targets[index % targets.length]}/webhooks/marketplace/${seeded.tokens[user]}`),
            event.body,
          );
          if (response.status !== 200) return false;
          acknowledged.push({ telegramId: FIRST_ID + user, orderId: event.orderId });
          return true;
        },
      });
      return { result, acknowledged };
    };
    await ingest([replicas[0]!.url], "e0e0e0e0"); // warm-up
    const single = await ingest([replicas[0]!.url], "e1e1e1e1");
    const spread = await ingest(
      replicas.map((replica) => replica.url),
      "e2e2e2e2",
    );
    agent.destroy();
    const stored = await db
      .selectFrom("outbox")
      .select((eb) => [eb.fn.countAll<number>().as("rows"), eb.fn.count<number>("dedupe_key").distinct().as("keys")])
      .where("dedupe_key", "like", "order:e2e2e2e2-%")
      .executeTakeFirstOrThrow();
    const lost = spread.acknowledged.length - Number(stored.keys);
    log(
      `replicas: ingest ${single.result.perSecond.toFixed(0)}/s on one replica, ${spread.result.perSecond.toFixed(0)}/s over ${REPLICAS}; ${spread.acknowledged.length} acknowledged, ${stored.rows} outbox rows`,
    );

    // One poll cycle shared by the three replicas, started as a cron tick starts it: opened once, joined by each.
    await sandbox.call("calls", { reset: true });
    const cpuBefore = await Promise.all(replicas.map((replica) => replica.child.call<{ cpuMs: number }>("cpu")));
    const cycle = await openPollCycle(db, "bench", await nextPollCycleId(db, Date.now()), Date.now());
    const started = Date.now();
    await Promise.all(replicas.map((replica) => replica.child.call("join")));
    const nOverR = settings.users / (REPLICAS * settings.rate);
    const deadline = started + Math.max(120_000, nOverR * 4_000);
    let covered = 0;
    while (Date.now() < deadline) {
      const row = await db
        .selectFrom("poll_state")
        .select((eb) => eb.fn.countAll<number>().as("n"))
        .where("last_cycle", ">=", cycle)
        .executeTakeFirstOrThrow();
      covered = Number(row.n);
      if (covered >= settings.users) break;
      await sleep(250);
    }
    const seconds = (Date.now() - started) / 1000;
    const cpuAfter = await Promise.all(replicas.map((replica) => replica.child.call<{ cpuMs: number }>("cpu")));
    const calls = await sandbox.call<{ none: number; once: number; more: number }>("calls", { reset: false });
    const cpuMs = cpuAfter.reduce((sum, after, i) => sum + after.cpuMs - cpuBefore[i]!.cpuMs, 0);
    log(
      `replicas: poll cycle ${covered}/${settings.users} users in ${seconds.toFixed(1)} s (N/(3R) = ${nOverR.toFixed(1)} s); sandbox saw ${calls.once} users listed once, ${calls.more} more than once, ${calls.none} never`,
    );

    return [
      figure({
        name: "replicas_poll_cycle_s",
        value: seconds,
        unit: `s (N=${settings.users} over ${REPLICAS} replicas, R=${settings.rate}/s each, +${settings.delayMs} ms per call)`,
        reference: "N/(3R)",
        referenceValue: nOverR,
        target: { of: "ratio", op: "<=", limit: 1.1, requires: { "every user covered": covered === settings.users } },
      }),
      figure({
        name: "replicas_users_polled_twice",
        value: calls.more,
        unit: "users listed more than once in the cycle (sandbox's count)",
        reference: "users never listed",
        referenceValue: calls.none,
        ratio: null,
        target: { of: "value", op: "=", limit: 0, requires: { "no user never listed": calls.none === 0 } },
      }),
      figure({
        name: "replicas_poll_cpu_ms_per_user",
        value: cpuMs / Math.max(1, covered),
        unit: "ms CPU per user (three replicas together)",
        reference: "none",
        referenceValue: null,
        informational: true,
      }),
      figure({
        name: "replicas_ingest_events_per_s",
        value: spread.result.perSecond,
        unit: `events/s (webhooks round-robin over ${REPLICAS} replicas, ${settings.concurrency} in flight)`,
        reference: "the same load on one replica",
        referenceValue: single.result.perSecond,
        informational: "one machine: the replicas share its cores and one PostgreSQL",
      }),
      figure({
        name: "replicas_ingest_events_lost",
        value: lost,
        unit: "events",
        reference: "events acknowledged",
        referenceValue: spread.acknowledged.length,
        ratio: null,
        target: {
          of: "value",
          op: "=",
          limit: 0,
          requires: {
            "none stored twice": Number(stored.rows) === Number(stored.keys),
            "events acknowledged": spread.acknowledged.length > 0,
          },
        },
      }),
    ];
  } finally {
    for (const child of children.reverse()) await child.kill().catch(() => undefined);
    await db.destroy().catch(() => undefined);
    await database.stop();
  }
}
