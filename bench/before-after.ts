/**
 * The bot's updates before and after the guided flows moved onto @grammyjs/conversations and the
 * menus onto @grammyjs/menu, measured on this machine in one run: the mix and a guided step cost
 * must each stay within 1.25× of what the code cost before the move.
 *
 * The earlier code is the commit `rev` (default: the last one before the move and the changes made with it), taken
 * from this clone's history with `git archive` into a temporary folder that shares this checkout's
 * node_modules. The same child (compare-child.ts, with the driver and the in-process Bot API of
 * the app part) is bundled against each tree, and the two are measured alternately, a fresh
 * process each time, `rounds` rounds with the order swapped every round, against one sandbox
 * marketplace. Every process measures the same passes the app part does (the same warm-ups, mix,
 * kinds, guided steps answered 1 s after each question), beside its own bare bot and same-I/O
 * reference, so a machine that runs slower for a while shows in both sides of a round.
 *
 * The code before the move has no figure of its own for a guided step; this measures one.
 */
import { execFileSync } from "node:child_process";
import { copyFileSync, mkdtempSync, rmSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { BENCH_DIR, figure, forkChild, median, ROOT_DIR, round, type Figure } from "./lib";
import { partNotRun } from "./parts";
import { exploring } from "./report";

/** The part's targets, each missed when it cannot run. */
export const BEFORE_TARGETS = ["updates_cpu_ms_vs_before_plugins", "updates_guided_step_cpu_ms_vs_before_plugins"];

/** The last commit before the guided flows and menus moved onto the plugins (and before the changes made with it). */
export const BEFORE_PLUGINS = "98fcdf0";

export interface BeforeAfterSettings {
  /** The commit whose code is "before". */
  rev: string;
  /** Updates of the mix per process (each kind alone: a third; guided steps: a third). */
  count: number;
  /** Rounds, each measuring both trees once. */
  rounds: number;
}

interface Measured {
  mix: { cpuMs: number; errors: number; handled: number };
  bare: { cpuMs: number };
  sameIo: { cpuMs: number };
  kinds: Array<{ cpuMs: number; errors: number }>;
  guided: { steps: number; cpuMs: number; questions: number };
}

/** Files of this checkout's bench laid over the earlier tree, so both run the same measurement. */
const SHARED = [
  "lib.ts",
  "children/compare-child.ts",
  "children/update-drive.ts",
  "children/instant-telegram.ts",
  "children/bot-env.ts",
];

/** The earlier tree, extracted from git; null (and why) when this clone does not hold `rev`. */
function extract(rev: string): { root: string } | { missing: string } {
  try {
    execFileSync("git", ["cat-file", "-e", `${rev}^{commit}`], { cwd: ROOT_DIR, stdio: "ignore" });
  } catch {
    return {
      missing: `commit ${rev} is not in this clone (a shallow clone has no history; fetch it, or set BENCH_BEFORE_REV)`,
    };
  }
  const root = mkdtempSync(join(tmpdir(), "bench-before-"));
  const archive = join(root, "tree.tar");
  execFileSync("git", ["archive", "--format=tar", `--output=${archive}`, rev], { cwd: ROOT_DIR });
  execFileSync("tar", ["-xf", archive, "-C", root]);
  rmSync(archive);
  symlinkSync(join(ROOT_DIR, "node_modules"), join(root, "node_modules"), "dir");
  for (const file of SHARED) copyFileSync(join(BENCH_DIR, file), join(root, "bench", file));
  return { root };
}

export async function benchBeforeAfter(settings: BeforeAfterSettings, log: (line: string) => void): Promise<Figure[]> {
  const before = extract(settings.rev);
  if ("missing" in before) {
    log(`before/after: skipped, ${before.missing}`);
    return BEFORE_TARGETS.map((name) => partNotRun(name, before.missing, exploring()));
  }
  const sandbox = forkChild("sandbox-child.ts", {
    BENCH_ACCOUNTS: "10",
    BENCH_NOTIFICATIONS: "1",
    BENCH_DELAY_MS: "0",
  });
  const runs: Record<"before" | "now", Measured[]> = { before: [], now: [] };
  try {
    const market = (await sandbox.ready) as { url: string };
    for (let index = 0; index < settings.rounds; index++) {
      const order: Array<"before" | "now"> = index % 2 === 0 ? ["before", "now"] : ["now", "before"];
      for (const side of order) {
        const child = forkChild(
          "compare-child.ts",
          { BENCH_MARKETPLACE_URL: market.url },
          side === "before" ? { root: before.root } : {},
        );
        try {
          await child.ready;
          const measured = await child.call<Measured>("updates", { count: settings.count, concurrency: 16 }, 600_000);
          runs[side].push(measured);
          log(
            `before/after, round ${index + 1}, ${side === "before" ? `before (${settings.rev})` : "now"}: mix ${measured.mix.cpuMs.toFixed(3)} ms CPU an update (bare ${measured.bare.cpuMs.toFixed(3)}, same-I/O reference ${measured.sameIo.cpuMs.toFixed(3)}; /start, /quote, button ${measured.kinds.map((kind) => kind.cpuMs.toFixed(2)).join(" / ")}), guided step ${measured.guided.cpuMs.toFixed(3)} ms (${measured.guided.steps} steps, ${measured.guided.questions} messages)`,
          );
        } finally {
          await child.kill();
        }
      }
    }
  } finally {
    await sandbox.kill();
    rmSync(before.root, { recursive: true, force: true });
  }
  const side = (name: "before" | "now", pick: (run: Measured) => number) => median(runs[name].map(pick));
  const ratios = (pick: (run: Measured) => number) =>
    runs.now.map((run, index) => pick(run) / pick(runs.before[index]!));
  const clean = (run: Measured) =>
    run.mix.errors === 0 && run.kinds.every((kind) => kind.errors === 0) && run.guided.questions === run.guided.steps;
  const allClean = [...runs.before, ...runs.now].every(clean);
  const mixRatio = median(ratios((run) => run.mix.cpuMs));
  const guidedRatio = median(ratios((run) => run.guided.cpuMs));
  const listed = (pick: (run: Measured) => number) =>
    ratios(pick)
      .map((ratio) => ratio.toFixed(2))
      .join(", ");
  return [
    figure({
      name: "updates_cpu_ms_vs_before_plugins",
      value: side("now", (run) => run.mix.cpuMs),
      unit: `ms CPU per update of the mix now (median of ${settings.rounds} rounds alternating, a fresh process each; the bare bot ${round(
        side("now", (run) => run.bare.cpuMs),
        3,
      )} ms in the same processes; the ratio is the median of the rounds' own: ${listed((run) => run.mix.cpuMs)})`,
      reference: `the same passes on the code before the plugins (${settings.rev}), ms CPU per update (the bare bot ${round(
        side("before", (run) => run.bare.cpuMs),
        3,
      )} ms in those processes)`,
      referenceValue: side("before", (run) => run.mix.cpuMs),
      ratio: mixRatio,
      target: { of: "ratio", op: "<=", limit: 1.25, requires: { "no errors": allClean } },
    }),
    figure({
      name: "updates_guided_step_cpu_ms_vs_before_plugins",
      value: side("now", (run) => run.guided.cpuMs),
      unit: `ms CPU per guided step now (a /quote entered, then two answers each 1 s after its question; median of the rounds; the ratio is the median of the rounds' own: ${listed((run) => run.guided.cpuMs)})`,
      reference: `the same steps on the code before the plugins (${settings.rev}: hand-written step machines), ms CPU per step`,
      referenceValue: side("before", (run) => run.guided.cpuMs),
      ratio: guidedRatio,
      target: { of: "ratio", op: "<=", limit: 1.25, requires: { "no errors": allClean } },
    }),
  ];
}
