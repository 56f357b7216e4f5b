/**
 * `npm run bench:guard`: the update path's latency and CPU in about a minute, on a SQLite file,
 * for CI. The same child and drivers as the bench's dialects part (compare-child: the mix of
 * /start, /quote energy 65k 1h and the menu's Quote button, against the same-I/O reference), with
 * fewer updates, and bounds loose enough for a CI machine yet tight enough to catch a reply held
 * back by the chat's pace (the 250 ms wait bench/README.md describes gave a p99 of 250 ms) or CPU
 * per update grown by a third (3.3 × the reference, against 1.9 to 2.2 before it).
 *
 * Prints the figures and exits 1 when a bound is missed (2 when the guard itself failed).
 *   GUARD_UPDATES [6000]       updates per pass of the mix (3,000 users, each twice a round: a returning
 *                              user's path, with a question open, is half of it)
 *   GUARD_ROUNDS [2]           rounds of the mix against the reference (the ratio is their median)
 *   GUARD_P99_MS [60]          the bound on the p99 from an update to its reply at 200 updates/s
 *   GUARD_CPU_RATIO [3]        the bound on CPU per update against the same-I/O reference
 */
import { envNumber, forkChild, sameIoSummary } from "./lib";
import type { SameIoRound } from "./children/update-drive";

interface Measured {
  rounds: SameIoRound[];
  paced: {
    app: { p99: number; passes: number[]; noReply: number; errors: number; offeredPerSecond: number };
    reference: { p99: number };
  } | null;
}

const count = envNumber("GUARD_UPDATES", 6_000);
const rounds = envNumber("GUARD_ROUNDS", 2);
const p99Bound = envNumber("GUARD_P99_MS", 60);
const ratioBound = envNumber("GUARD_CPU_RATIO", 3);

/** The guard's verdicts from what the child measured: each line, and whether all held. */
export function guardVerdicts(
  measured: Measured,
  bounds: { p99Ms: number; cpuRatio: number },
): { lines: string[]; ok: boolean } {
  const { app, sameIo, ratio, ratios } = sameIoSummary(measured.rounds);
  const errors = measured.rounds.reduce((sum, r) => sum + r.errors, 0) + (measured.paced?.app.errors ?? 0);
  const paced = measured.paced;
  const checks = [
    {
      ok: paced !== null && paced.app.p99 <= bounds.p99Ms,
      line: `p99 from an update to its reply at 200 updates/s: ${paced ? paced.app.p99.toFixed(1) : "not measured"} ms (bound ${bounds.p99Ms} ms; the reference ${paced ? paced.reference.p99.toFixed(1) : "-"} ms; reached ${paced ? paced.app.offeredPerSecond.toFixed(0) : "-"}/s)`,
    },
    {
      ok: ratio <= bounds.cpuRatio,
      line: `CPU per update against the same-I/O reference: ${ratio.toFixed(2)} (rounds ${ratios.map((r) => r.toFixed(2)).join(", ")}; ${app.toFixed(3)} / ${sameIo.toFixed(3)} ms; bound ${bounds.cpuRatio})`,
    },
    {
      ok: errors === 0 && (paced?.app.noReply ?? 0) === 0,
      line: `updates failed: ${errors}, without a reply: ${paced?.app.noReply ?? "-"} (bound 0)`,
    },
  ];
  return {
    lines: checks.map((check) => `${check.ok ? "ok  " : "MISS"} ${check.line}`),
    ok: checks.every((check) => check.ok),
  };
}

async function main(): Promise<number> {
  const sandbox = forkChild("sandbox-child.ts", {
    BENCH_ACCOUNTS: "10",
    BENCH_NOTIFICATIONS: "1",
    BENCH_DELAY_MS: "0",
  });
  try {
    const market = (await sandbox.ready) as { url: string };
    const child = forkChild("compare-child.ts", { BENCH_MARKETPLACE_URL: market.url, BENCH_APP_DATABASE_URL: "" });
    let measured: Measured;
    try {
      await child.ready;
      measured = await child.call<Measured>(
        "updates",
        { count, concurrency: 16, sameIoRounds: rounds, paced: 1 },
        600_000,
      );
    } finally {
      await child.kill();
    }
    const { lines, ok } = guardVerdicts(measured, { p99Ms: p99Bound, cpuRatio: ratioBound });
    console.log(
      `[bench:guard] the update path on a SQLite file, ${count} updates a pass, ${rounds} rounds against the same-I/O reference:`,
    );
    for (const line of lines) console.log(`[bench:guard] ${line}`);
    console.log(
      `[bench:guard] ${ok ? "every bound held" : "a bound was missed: the update path got slower (bench/trace.ts shows where an update's time goes)"}`,
    );
    return ok ? 0 : 1;
  } finally {
    await sandbox.kill();
  }
}

if (process.argv[1]?.endsWith("guard.ts")) {
  main().then(
    (code) => process.exit(code),
    (error: unknown) => {
      console.error("[bench:guard] the guard itself failed:", error);
      process.exit(2);
    },
  );
}
