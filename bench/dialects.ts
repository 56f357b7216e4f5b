/**
 * The update path on both dialects: the same child (compare-child) runs the app once on a SQLite
 * file and once on PostgreSQL, each in a fresh process beside its own same-I/O reference, which
 * reads the user's row from that same database. On SQLite the Telegram budget, the chats' turns
 * and the update turns live in the process's memory; on PostgreSQL they stay in the database every
 * replica shares (a grant is a short transaction with a row lock), so this part shows what they
 * cost there. Figures: the mix against the reference (the median of the rounds' ratios) and the
 * p99 at 200 updates/s (the median of the passes' p99s, each listed), per dialect. Needs PostgreSQL (a throwaway cluster from Debian's packages
 * or BENCH_DATABASE_URL); skipped with a line saying so without it.
 */
import { benchPostgres, NO_POSTGRES } from "./postgres";
import { partNotRun } from "./parts";
import { exploring } from "./report";
import { figure, forkChild, round, sameIoSummary, type Figure } from "./lib";
import type { Driven, SameIoRound } from "./children/update-drive";

export interface DialectsSettings {
  /** Updates per pass of the mix. */
  count: number;
  /** Rounds of the mix against the reference in each process. */
  rounds: number;
  /** Passes at 200 updates/s of the mix and of the reference in each process (the figure is the median of their p99s). */
  pacedPasses: number;
}

interface PacedPasses {
  p99: number;
  passes: number[];
  p99Done: number;
  passesDone: number[];
  noReply: number;
  errors: number;
  offeredPerSecond: number;
}

interface Measured {
  mix: Driven;
  kinds: Driven[];
  rounds: SameIoRound[];
  paced: { app: PacedPasses; reference: PacedPasses } | null;
}

/** The part's targets, each missed when it cannot run. */
export const DIALECT_TARGETS = ["sqlite", "postgres"].flatMap((dialect) => [
  `updates_cpu_vs_same_io_${dialect}`,
  `updates_p99_ms_at_200_per_s_${dialect}`,
]);

export async function benchDialects(settings: DialectsSettings, log: (line: string) => void): Promise<Figure[]> {
  const database = await benchPostgres(log, "dialects");
  if (!database) return DIALECT_TARGETS.map((name) => partNotRun(name, NO_POSTGRES, exploring()));
  const sandbox = forkChild("sandbox-child.ts", {
    BENCH_ACCOUNTS: "10",
    BENCH_NOTIFICATIONS: "1",
    BENCH_DELAY_MS: "0",
  });
  const figures: Figure[] = [];
  try {
    const market = (await sandbox.ready) as { url: string };
    for (const dialect of ["sqlite", "postgres"] as const) {
      const child = forkChild("compare-child.ts", {
        BENCH_MARKETPLACE_URL: market.url,
        BENCH_APP_DATABASE_URL: dialect === "postgres" ? database.url : "",
      });
      let measured: Measured;
      try {
        await child.ready;
        measured = await child.call<Measured>(
          "updates",
          { count: settings.count, concurrency: 16, sameIoRounds: settings.rounds, paced: settings.pacedPasses },
          900_000,
        );
      } finally {
        await child.kill();
      }
      const { app, sameIo, ratio, ratios } = sameIoSummary(measured.rounds);
      const errors =
        measured.rounds.reduce((sum, r) => sum + r.errors, 0) +
        measured.kinds.reduce((sum, kind) => sum + kind.errors, 0);
      const paced = measured.paced!;
      log(
        `dialects, ${dialect}: the mix against the same-I/O reference ${measured.rounds.map((r) => `${r.app.toFixed(3)} / ${r.sameIo.toFixed(3)} ms (${(r.app / r.sameIo).toFixed(2)})`).join(", ")}, median ratio ${ratio.toFixed(2)}; /start, /quote, button alone ${measured.kinds.map((kind) => kind.cpuMs.toFixed(2)).join(" / ")} ms; p99 at 200 updates/s to the reply ${paced.app.passes.map((p99) => p99.toFixed(1)).join(", ")}, median ${paced.app.p99.toFixed(1)} ms (reference ${paced.reference.passes.map((p99) => p99.toFixed(1)).join(", ")}, median ${paced.reference.p99.toFixed(1)} ms), to the handler's end ${paced.app.passesDone.map((p99) => p99.toFixed(1)).join(", ")} ms (${paced.app.noReply + paced.reference.noReply} without a reply); ${errors + paced.app.errors} errors`,
      );
      figures.push(
        figure({
          name: `updates_cpu_vs_same_io_${dialect}`,
          value: app,
          unit: `ms CPU per update of the mix on ${dialect === "sqlite" ? "a SQLite file" : "PostgreSQL"} (a fresh process; the median of ${measured.rounds.length} rounds, each from 3,000 users met for the first time and alternating with the reference every tenth of the mix; the ratio is the median of the rounds' own: ${ratios.map((value) => round(value, 2)).join(", ")})`,
          reference: "the same-I/O reference on the same database, ms CPU per update (median of the same rounds)",
          referenceValue: sameIo,
          ratio,
          target: { of: "ratio", op: "<=", limit: 2.5, requires: { "no errors": errors === 0 } },
        }),
        figure({
          name: `updates_p99_ms_at_200_per_s_${dialect}`,
          value: paced.app.p99,
          unit: `ms from an update's arrival to its reply sent, the mix offered open-loop at 200 updates/s on ${dialect === "sqlite" ? "a SQLite file" : "PostgreSQL"} (the median of ${paced.app.passes.length} passes' p99s, alternating with the reference's: ${paced.app.passes.map((p99) => round(p99, 1)).join(", ")}; to the handler's end, which for a flow entered also stores its state: ${paced.app.passesDone.map((p99) => round(p99, 1)).join(", ")}; ${paced.app.noReply} updates without a reply; reached ${round(paced.app.offeredPerSecond, 0)}/s, ${paced.app.errors} errors)`,
          reference: `the same-I/O reference at 200 updates/s on the same database, p99 ms (the median of its passes: ${paced.reference.passes.map((p99) => round(p99, 1)).join(", ")})`,
          referenceValue: paced.reference.p99,
          target: {
            of: "value",
            op: "<=",
            limit: 25,
            requires: { "no errors": paced.app.errors === 0, "every update replied to": paced.app.noReply === 0 },
          },
        }),
      );
    }
  } finally {
    await sandbox.kill();
    await database.stop();
  }
  return figures;
}
