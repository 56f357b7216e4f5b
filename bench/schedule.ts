/**
 * The poll schedule at scale: N linked users (5% with an active rule, 1% with an order settling or
 * a deposit expected, the rest idle) polled on the schedule, against the same users polled as
 * before schedules (every user every cycle). Both run in one bot process (schedule-child) on a
 * simulated clock against the sandbox marketplace over HTTP, at the same poll rate, so requests
 * and CPU are counted for the same work the real cron cycles do:
 *
 * - marketplace requests per minute (the app's own count: notification pages, rule lists, orders)
 *   and CPU per minute of the bot process, over `cycles` scheduled cycles of 30 s;
 * - notification-to-alert p99 (raised at a random time, to the alert queued in the outbox) for
 *   users in motion and for idle ones, against one cycle + 2 s and POLL_IDLE_INTERVAL + one cycle;
 * - the look ahead's extra requests per cycle (the low-balance check of the users with an active
 *   rule, with the defaults: no delivery alerts asked for), against the rest of the poller's.
 */
import { figure, forkChild, type Figure } from "./lib";

export interface ScheduleSettings {
  users: number;
  /** The poller's rate for both runs, requests/s. */
  rate: number;
  /** Notifications each account already holds (what each poll's newest page carries). */
  notifications: number;
  /** Simulated cycles of 30 s: enough for an idle user's notification raised early to be polled. */
  cycles: number;
  /** Latency samples of each kind. */
  samples: number;
}

const CYCLE_MS = 30_000;
const IDLE_MS = 600_000;
/** The figures are stated for this many linked users (measured on `users`, scaled when fewer). */
const POPULATION = 100_000;
const FIRST_ID = 800_000_000;

export async function benchSchedule(settings: ScheduleSettings, log: (line: string) => void): Promise<Figure[]> {
  const sandbox = forkChild("sandbox-child.ts", {
    BENCH_ACCOUNTS: String(settings.users),
    BENCH_NOTIFICATIONS: String(settings.notifications),
    BENCH_DELAY_MS: "0",
  });
  let child: ReturnType<typeof forkChild> | null = null;
  try {
    const market = (await sandbox.ready) as { url: string; keys: string[]; accountIds: string[] };
    child = forkChild("schedule-child.ts", { BENCH_MARKETPLACE_URL: market.url, BENCH_IDLE_MS: String(IDLE_MS) });
    await child.ready;
    await child.call("seed", { firstId: FIRST_ID, keys: market.keys, accountIds: market.accountIds }, 600_000);
    log(
      `schedule: ${settings.users} linked users (5% active rule, 1% order or deposit), ${settings.notifications} notifications each, poll rate ${settings.rate}/s`,
    );

    type Everyone = { users: number; ms: number; cpuMs: number; requests: number };
    const everyone = await child.call<Everyone>("everyone", { rate: settings.rate }, 1_800_000);
    log(
      `schedule: every user in one cycle (before schedules): ${everyone.users} users, ${everyone.requests} requests, ${(everyone.cpuMs / 1000).toFixed(1)} s CPU in ${(everyone.ms / 1000).toFixed(1)} s`,
    );

    type Latency = { samples: number; alerted: number; p50Ms: number; p99Ms: number; maxMs: number };
    type Simulated = {
      simulatedMs: number;
      polls: number;
      requests: number;
      lookAhead: number;
      cycles: number;
      cpuMs: number;
      overruns: number;
      schedule: Record<string, number>;
      active: Latency;
      idle: Latency;
    };
    const sim = await child.call<Simulated>(
      "simulate",
      {
        cycles: settings.cycles,
        cycleMs: CYCLE_MS,
        rate: settings.rate,
        samples: settings.samples,
        idleRaiseMs: 2 * CYCLE_MS,
      },
      3_600_000,
    );
    const minutes = sim.simulatedMs / 60_000;
    log(
      `schedule: ${settings.cycles} cycles (${minutes.toFixed(1)} simulated minutes): ${sim.polls} polls, ${sim.requests} requests, ${(sim.cpuMs / 1000).toFixed(1)} s CPU, ${sim.overruns} cycle(s) past their tick; ` +
        `users by schedule at the end ${JSON.stringify(sim.schedule)}; alert p99 in motion ${(sim.active.p99Ms / 1000).toFixed(1)} s (${sim.active.alerted}/${sim.active.samples}), idle ${(sim.idle.p99Ms / 1000).toFixed(1)} s (${sim.idle.alerted}/${sim.idle.samples})`,
    );

    const scale = POPULATION / settings.users;
    const perMinuteBefore = 60_000 / CYCLE_MS;
    const requestsBefore = everyone.requests * perMinuteBefore * scale;
    const requestsNow = (sim.requests / minutes) * scale;
    const cpuBefore = (everyone.cpuMs / 1000) * perMinuteBefore * scale;
    const cpuNow = (sim.cpuMs / 1000 / minutes) * scale;
    const measured =
      settings.users === POPULATION
        ? `${POPULATION.toLocaleString("en")} linked users`
        : `${POPULATION.toLocaleString("en")} linked users (measured on ${settings.users.toLocaleString("en")}, ×${scale.toFixed(1)})`;
    const everyAlerted = sim.active.alerted === sim.active.samples && sim.idle.alerted === sim.idle.samples;
    const lookAheadPerTick = (sim.lookAhead / sim.cycles) * scale;
    const othersPerTick = ((sim.requests - sim.lookAhead) / sim.cycles) * scale;
    log(
      `schedule: the look ahead (low-balance checks, defaults) made ${sim.lookAhead} of the ${sim.requests} requests over ${sim.cycles} cycles`,
    );
    return [
      figure({
        name: "poll_schedule_look_ahead_requests_per_tick",
        value: lookAheadPerTick,
        unit: `extra marketplace requests per 30 s cycle, ${measured}, defaults (the low-balance check of the 5% with an active rule, at most every 10 minutes each; no delivery alerts asked for)`,
        reference: "the poller's other requests per cycle in the same run (notification pages, rule lists, orders)",
        referenceValue: othersPerTick,
        target: { of: "ratio", op: "<=", limit: 0.1, source: "issue 56: within 10% of the count without it" },
      }),
      figure({
        name: "poll_schedule_requests_per_min",
        value: requestsNow,
        unit: `marketplace requests/min, ${measured}: 5% active rule, 1% order settling or deposit expected, idle every 10 min`,
        reference: "the same users, every user every 30 s cycle (measured in the same run)",
        referenceValue: requestsBefore,
        target: {
          of: "ratio",
          op: "<=",
          limit: 0.11,
          source: "the floor with these shares and a 10-minute idle interval is about 0.105",
        },
      }),
      figure({
        name: "poll_schedule_cpu_s_per_min",
        value: cpuNow,
        unit: `s CPU/min of the bot process, ${measured}, poll rate ${settings.rate}/s`,
        reference: "the same users, every user every 30 s cycle (measured in the same run)",
        referenceValue: cpuBefore,
        target: { of: "ratio", op: "<=", limit: 0.15 },
      }),
      figure({
        name: "poll_alert_p99_active_s",
        value: sim.active.p99Ms / 1000,
        unit: `s from a notification to its alert queued, users in motion (p50 ${(sim.active.p50Ms / 1000).toFixed(1)} s, ${sim.active.alerted}/${sim.active.samples} alerted, ${sim.overruns} cycle(s) past their tick)`,
        reference: "one cycle + 2 s",
        referenceValue: CYCLE_MS / 1000 + 2,
        ratio: null,
        target: {
          of: "value",
          op: "<=",
          limit: CYCLE_MS / 1000 + 2,
          requires: { "every sample alerted": everyAlerted },
        },
      }),
      figure({
        name: "poll_alert_p99_idle_s",
        value: sim.idle.p99Ms / 1000,
        unit: `s from a notification to its alert queued, idle users (p50 ${(sim.idle.p50Ms / 1000).toFixed(1)} s, ${sim.idle.alerted}/${sim.idle.samples} alerted)`,
        reference: "POLL_IDLE_INTERVAL + one cycle",
        referenceValue: (IDLE_MS + CYCLE_MS) / 1000,
        ratio: null,
        target: {
          of: "value",
          op: "<=",
          limit: (IDLE_MS + CYCLE_MS) / 1000,
          requires: { "every sample alerted": everyAlerted },
        },
      }),
    ];
  } finally {
    await child?.kill();
    await sandbox.kill();
  }
}
