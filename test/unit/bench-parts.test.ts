import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { exitCode, figure, summarize } from "../../bench/lib";
import { ALL_PARTS, partNotRun, resultsPath, selectedParts } from "../../bench/parts";
import { summaryLine, table } from "../../bench/report";

/**
 * What the bench reports about itself, without running it: a part that cannot run is a missed
 * target (unless exploring), and a run of some parts never writes over the committed latest.json.
 */
const RESULTS = join("bench", "results");
const met = figure({
  name: "fast_enough",
  value: 1,
  unit: "ms",
  reference: "none",
  referenceValue: null,
  target: { of: "value", op: "<=", limit: 2 },
});

describe("a bench part that cannot run", () => {
  it("is a missed target with no value, named in the summary line, and the run exits 2", () => {
    const missing = partNotRun("replicas_poll_cycle_s", "no PostgreSQL: set BENCH_DATABASE_URL", false);
    expect(missing).toMatchObject({
      value: null,
      met: false,
      unit: "not measured: no PostgreSQL: set BENCH_DATABASE_URL",
    });
    const summary = summarize([met, missing]);
    expect(summary).toEqual({ targets: 2, met: 1, missed: ["replicas_poll_cycle_s"], informational: 0 });
    expect(summaryLine(summary)).toBe(
      "1/2 targets met (0 informational figures, not counted); missed: replicas_poll_cycle_s",
    );
    expect(exitCode([met, missing], false)).toBe(2);
    expect(table([missing])[2]).toContain("| replicas_poll_cycle_s | not run | not measured: no PostgreSQL");
  });

  it("is printed, not counted, when exploring", () => {
    const missing = partNotRun("updates_cpu_ms_vs_before_plugins", "commit 98fcdf0 is not in this clone", true);
    expect(missing.value).toBeNull();
    expect(missing).not.toHaveProperty("met");
    expect(missing.target).toMatch(/^informational/);
    expect(summarize([met, missing])).toEqual({ targets: 1, met: 1, missed: [], informational: 1 });
    expect(exitCode([met, missing], false)).toBe(0);
  });
});

describe("the bench's results file", () => {
  it("is latest.json for a whole run and quick.json for a quick one", () => {
    expect(resultsPath(RESULTS, {})).toBe(join(RESULTS, "latest.json"));
    expect(resultsPath(RESULTS, { BENCH_ONLY: " " })).toBe(join(RESULTS, "latest.json"));
    expect(resultsPath(RESULTS, { BENCH_QUICK: "1" })).toBe(join(RESULTS, "quick.json"));
  });

  it("sits beside latest.json, never over it, for a run of some parts (BENCH_ONLY)", () => {
    expect(resultsPath(RESULTS, { BENCH_ONLY: "flood" })).toBe(join(RESULTS, "only-flood.json"));
    expect(resultsPath(RESULTS, { BENCH_ONLY: "replicas, dialects" })).toBe(
      join(RESULTS, "only-replicas-dialects.json"),
    );
    expect(resultsPath(RESULTS, { BENCH_ONLY: "miniapp", BENCH_QUICK: "1" })).toBe(
      join(RESULTS, "quick-only-miniapp.json"),
    );
    expect(resultsPath(RESULTS, { BENCH_ONLY: "../x" })).toBe(join(RESULTS, "only-___x.json"));
  });

  it("goes where BENCH_OUT says, whatever else is set", () => {
    expect(resultsPath(RESULTS, { BENCH_OUT: "/tmp/run.json", BENCH_ONLY: "flood" })).toBe("/tmp/run.json");
    expect(resultsPath(RESULTS, { BENCH_OUT: "/tmp/run.json", BENCH_QUICK: "1" })).toBe("/tmp/run.json");
  });
});

describe("the parts of a bench run", () => {
  it("are every part by default, or those BENCH_ONLY lists", () => {
    expect(selectedParts({})).toEqual([...ALL_PARTS]);
    expect(selectedParts({ BENCH_ONLY: "flood, app" })).toEqual(["flood", "app"]);
  });
});
