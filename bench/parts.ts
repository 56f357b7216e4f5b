/**
 * Which parts of the bench run, where their results go, and what a part that cannot run leaves in
 * them. Pure functions of the environment, so the reporting rules are tested without running the
 * bench (test/unit/bench-parts.test.ts).
 */
import { join } from "node:path";
import type { Figure } from "./lib";

/** Every part, in the order `npm run bench` runs them. */
export const ALL_PARTS = [
  "chart",
  "ingest",
  "delivery",
  "flood",
  "app",
  "paths",
  "before",
  "schedule",
  "miniapp",
  "autobuys",
  "dialects",
  "replicas",
] as const;

/** The parts BENCH_ONLY names (a comma list), or every part when it is unset or empty. */
export function selectedParts(env: NodeJS.ProcessEnv = process.env): string[] {
  const named = (env.BENCH_ONLY ?? "")
    .split(",")
    .map((part) => part.trim())
    .filter(Boolean);
  return named.length > 0 ? named : [...ALL_PARTS];
}

/**
 * Where the results JSON goes: BENCH_OUT when given; else, for a run of some parts only
 * (BENCH_ONLY), `only-<parts>.json` beside latest.json, so the committed latest.json always holds
 * a whole run; else quick.json for BENCH_QUICK=1 and latest.json for a full run.
 */
export function resultsPath(resultsDir: string, env: NodeJS.ProcessEnv = process.env): string {
  if (env.BENCH_OUT) return env.BENCH_OUT;
  const quick = env.BENCH_QUICK === "1" ? "quick-" : "";
  if ((env.BENCH_ONLY ?? "").trim())
    return join(
      resultsDir,
      `${quick}only-${selectedParts(env)
        .join("-")
        .replace(/[^a-z0-9-]/gi, "_")}.json`,
    );
  return join(resultsDir, quick ? "quick.json" : "latest.json");
}

/**
 * The figure a part leaves when it cannot run (no git history for `before`, no PostgreSQL for
 * `dialects` and `replicas`, no Chromium for the Mini App's first render): its value null, so its
 * target is missed and named in the summary line, and the run exits 2. Exploring (--explore,
 * BENCH_EXPLORE=1), it is informational instead: printed with the reason, not counted.
 */
export function partNotRun(name: string, why: string, explore: boolean): Figure {
  const base = {
    name,
    value: null,
    unit: `not measured: ${why}`,
    reference: "none",
    referenceValue: null,
    ratio: null,
  };
  if (explore) return { ...base, target: "informational: exploring, a part that cannot run is not counted" };
  return {
    ...base,
    target: "the part runs",
    check: { of: "value", op: ">=", limit: 0, requires: { "the part ran": false } },
    met: false,
  };
}
