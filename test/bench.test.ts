import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { BEFORE_PLUGINS, BEFORE_TARGETS } from "../bench/before-after";
import { DIALECT_TARGETS } from "../bench/dialects";
import { REPLICA_TARGETS as REPLICA_PART_TARGETS } from "../bench/replicas";
import { AUTO_BUY_TARGETS } from "../bench/autobuys";
import { exitCode, figure, summarize, type Figure } from "../bench/lib";
import { exploring, readmeBlock, result, withResults, type BenchResult } from "../bench/report";

const ROOT = join(import.meta.dirname, "..");
const TSX = join(ROOT, "node_modules", "tsx", "dist", "cli.mjs");
const FIGURES = [
  "chart_render_cpu_ms",
  "chart_render_cpu_ms_cold",
  "chart_render_cpu_ms_first_round_max",
  "ingest_events_per_s_vs_naive",
  "ingest_events_per_s_vs_bare",
  "ingest_p99_ms_at_offered_rate",
  "ingest_events_lost_after_kill9",
  "delivery_messages_per_s",
  "delivery_429_responses",
  "delivery_out_of_order",
  "delivery_max_chat_rate",
  "flood_ingest_accepted",
  "flood_429_responses",
  "flood_most_sends_in_any_second",
  "flood_most_sends_to_one_chat_in_any_second",
  "poll_cycle_s",
  "poll_cycles_at_once",
  "poll_cpu_ms_per_user",
  "updates_per_s",
  "updates_quote_request_cpu_ms",
  "updates_per_s_ceiling_fresh_quote",
  "updates_deployed_messages_per_s",
  "updates_errors",
  "updates_calls_counted_by_app",
  "updates_cpu_ms",
  "updates_cpu_vs_same_io",
  "updates_sql_statements",
  "updates_p99_ms_at_200_per_s",
  "updates_guided_step_cpu_ms",
  "updates_guided_step_cpu_ms_back_to_back",
  "updates_p99_ms",
  "paths_smallest_update_cpu_us",
  "paths_smallest_update_unanswered",
  "paths_user_read_cpu_us",
  "paths_bot_api_call_cpu_us",
  "event_loop_delay_p99_ms",
  "memory_rss_idle_mb",
  "memory_rss_growth_mb",
  "poll_schedule_look_ahead_requests_per_tick",
  "poll_schedule_requests_per_min",
  "poll_schedule_cpu_s_per_min",
  "poll_alert_p99_active_s",
  "poll_alert_p99_idle_s",
  "miniapp_bundle_gzip_kb",
  "miniapp_first_render_ms",
  "miniapp_marketplace_calls_per_api_request",
];
/** The figures of the SQLite run that are informational (printed, not counted); every other one is a target. */
const INFORMATIONAL = new Set([
  "chart_render_cpu_ms_cold",
  "chart_render_cpu_ms_first_round_max",
  "delivery_max_chat_rate",
  "poll_cpu_ms_per_user",
  "updates_per_s",
  "updates_quote_request_cpu_ms",
  "updates_per_s_ceiling_fresh_quote",
  "updates_cpu_ms",
  "updates_sql_statements",
  "updates_guided_step_cpu_ms",
  "updates_guided_step_cpu_ms_back_to_back",
  "updates_p99_ms",
  "paths_smallest_update_cpu_us",
  "paths_user_read_cpu_us",
  "paths_bot_api_call_cpu_us",
]);
const TARGETS = FIGURES.filter((name) => !INFORMATIONAL.has(name));
const BEFORE_FIGURES = ["updates_cpu_ms_vs_before_plugins", "updates_guided_step_cpu_ms_vs_before_plugins"];
// The before/after part needs the commit before the plugins from this clone's history.
const HAS_BEFORE = spawnSync("git", ["cat-file", "-e", `${BEFORE_PLUGINS}^{commit}`], { cwd: ROOT }).status === 0;
const REPLICA_FIGURES = [
  "replicas_poll_cycle_s",
  "replicas_users_polled_twice",
  "replicas_poll_cpu_ms_per_user",
  "replicas_ingest_events_per_s",
  "replicas_ingest_events_lost",
];
const REPLICA_TARGETS = ["replicas_poll_cycle_s", "replicas_users_polled_twice", "replicas_ingest_events_lost"];
const DIALECT_FIGURES = [
  "updates_cpu_vs_same_io_sqlite",
  "updates_cpu_vs_same_io_postgres",
  "updates_p99_ms_at_200_per_s_sqlite",
  "updates_p99_ms_at_200_per_s_postgres",
];
// The three-replica, the dialects and the auto-buys parts need PostgreSQL: on the PostgreSQL run they
// use that server, and run alone (the other parts do not touch PostgreSQL and ran on the SQLite run
// already; the auto-buys part measures SQLite beside PostgreSQL itself).
const DATABASE_URL =
  process.env.TEST_DATABASE_URL && /^postgres(ql)?:\/\//.test(process.env.TEST_DATABASE_URL)
    ? process.env.TEST_DATABASE_URL
    : undefined;

/** The test's own reading of a target, independent of the bench's code: the compared number against the limit, and every condition true. */
function holds(f: Figure): boolean {
  const check = f.check!;
  const actual = check.of === "ratio" ? f.ratio : f.value;
  if (actual === null || !Number.isFinite(actual)) return false;
  const compared =
    check.op === "<=" ? actual <= check.limit : check.op === ">=" ? actual >= check.limit : actual === check.limit;
  return compared && Object.values(check.requires).every((condition) => condition === true);
}

/** Every figure is a target whose met is its own numbers' verdict, or informational with no met at all. */
function expectWellFormed(figures: Figure[]): void {
  for (const f of figures) {
    expect(typeof f.name).toBe("string");
    // Null only for a part that could not run, which says why (bench/parts.ts).
    if (f.value === null) expect(f.unit, f.name).toMatch(/^not measured: /);
    else expect(typeof f.value).toBe("number");
    expect(typeof f.unit).toBe("string");
    expect(typeof f.reference).toBe("string");
    expect(f.referenceValue === null || typeof f.referenceValue === "number").toBe(true);
    expect(f.ratio === null || typeof f.ratio === "number").toBe(true);
    expect(typeof f.target).toBe("string");
    if (f.check) {
      expect(f.target, f.name).not.toMatch(/^informational/);
      expect(["value", "ratio"]).toContain(f.check.of);
      expect(["<=", ">=", "="]).toContain(f.check.op);
      expect(typeof f.check.limit).toBe("number");
      expect(f.met, f.name).toBe(holds(f));
    } else {
      expect(f.target, f.name).toMatch(/^informational/);
      expect("met" in f, f.name).toBe(false);
    }
  }
}

const base = { unit: "ms", reference: "r", referenceValue: null };

describe("bench targets", () => {
  it("derive met from the value or the ratio against the limit, and from every condition", () => {
    expect(figure({ ...base, name: "a", value: 20, target: { of: "value", op: "<=", limit: 25 } }).met).toBe(true);
    expect(figure({ ...base, name: "a", value: 30, target: { of: "value", op: "<=", limit: 25 } }).met).toBe(false);
    expect(figure({ ...base, name: "a", value: 0, target: { of: "value", op: "=", limit: 0 } }).met).toBe(true);
    expect(figure({ ...base, name: "a", value: 1, target: { of: "value", op: "=", limit: 0 } }).met).toBe(false);
    expect(figure({ ...base, name: "a", value: Number.NaN, target: { of: "value", op: "<=", limit: 25 } }).met).toBe(
      false,
    );
    // The ratio to a reference measured in the run: the same value meets the target or misses it.
    expect(
      figure({ ...base, name: "a", value: 3, referenceValue: 1, target: { of: "ratio", op: ">=", limit: 2 } }),
    ).toMatchObject({ ratio: 3, met: true });
    expect(
      figure({ ...base, name: "a", value: 3, referenceValue: 2, target: { of: "ratio", op: ">=", limit: 2 } }),
    ).toMatchObject({ ratio: 1.5, met: false });
    expect(
      figure({ ...base, name: "a", value: 3, referenceValue: 0, target: { of: "ratio", op: ">=", limit: 2 } }).met,
    ).toBe(false);
    // A condition of the run that failed misses the target whatever the number says.
    const failed = figure({
      ...base,
      name: "a",
      value: 20,
      target: { of: "value", op: "<=", limit: 25, requires: { "no errors": false, "every update replied to": true } },
    });
    expect(failed.met).toBe(false);
    expect(failed.target).toBe("<= 25; no errors; every update replied to");
  });

  it("print informational figures without a met and count only targets; exit 2 on a miss unless exploring", () => {
    const info = figure({ ...base, name: "i", value: 5, informational: "why" });
    expect(info).not.toHaveProperty("met");
    expect(info.target).toBe("informational: why");
    const met = figure({ ...base, name: "m", value: 1, target: { of: "value", op: "<=", limit: 2 } });
    const missed = figure({ ...base, name: "x", value: 3, target: { of: "value", op: "<=", limit: 2 } });
    expect(summarize([info, met, missed])).toEqual({ targets: 2, met: 1, missed: ["x"], informational: 1 });
    // A met written into a figure is not believed: the summary reads the numbers.
    expect(summarize([{ ...missed, met: true }]).missed).toEqual(["x"]);
    expect(exitCode([info, met, missed], false)).toBe(2);
    expect(exitCode([info, met, missed], true)).toBe(0);
    expect(exitCode([info, met], false)).toBe(0);
    expect(exitCode([info], false)).toBe(0);
    expect(exploring(["node", "run.ts", "--explore"], {})).toBe(true);
    expect(exploring(["node", "run.ts"], { BENCH_EXPLORE: "1" })).toBe(true);
    expect(exploring(["node", "run.ts"], {})).toBe(false);
  });

  it("bench/report.ts exits 2 on a results file with a missed target, 0 when exploring", () => {
    const path = join(mkdtempSync(join(tmpdir(), "bench-report-")), "results.json");
    const figures = [
      figure({ ...base, name: "fast_enough", value: 1, target: { of: "value", op: "<=", limit: 2 } }),
      figure({ ...base, name: "too_slow", value: 3, target: { of: "value", op: "<=", limit: 2 } }),
      figure({ ...base, name: "just_shown", value: 9, informational: true }),
    ];
    writeFileSync(
      path,
      JSON.stringify(
        result({ command: "npm run bench", quick: true, explore: false, seconds: 1, parts: ["chart"], figures }),
      ),
    );
    const strict = spawnSync(process.execPath, [TSX, "bench/report.ts", path], {
      cwd: ROOT,
      env: { ...process.env, BENCH_EXPLORE: "" },
      encoding: "utf8",
      timeout: 60_000,
    });
    expect(strict.status, strict.stderr).toBe(2);
    expect(strict.stdout).toContain("1/2 targets met (1 informational figures, not counted); missed: too_slow");
    expect(strict.stdout).toContain("| too_slow | 3 |");
    const explore = spawnSync(process.execPath, [TSX, "bench/report.ts", path, "--explore"], {
      cwd: ROOT,
      env: { ...process.env, BENCH_EXPLORE: "" },
      encoding: "utf8",
      timeout: 60_000,
    });
    expect(explore.status, explore.stderr).toBe(0);
  }, 120_000);

  it("a part that cannot run misses the same targets it has when it runs", () => {
    expect(BEFORE_TARGETS).toEqual(BEFORE_FIGURES);
    expect([...DIALECT_TARGETS].sort()).toEqual([...DIALECT_FIGURES].sort());
    expect(REPLICA_PART_TARGETS).toEqual(REPLICA_TARGETS);
  });

  it("bench/report.ts --readme replaces only the block between the markers", () => {
    const run = result({
      command: "npm run bench",
      quick: false,
      explore: false,
      seconds: 1,
      parts: ["chart"],
      figures: [figure({ ...base, name: "fast_enough", value: 1, target: { of: "value", op: "<=", limit: 2 } })],
    });
    const readme = `# Bench\n\nabove\n\n${readmeBlock({ ...run, figures: [] })}\n\nbelow\n`;
    const updated = withResults(readme, run);
    expect(updated).toBe(`# Bench\n\nabove\n\n${readmeBlock(run)}\n\nbelow\n`);
    expect(updated).toContain("| fast_enough | 1 |");
    expect(() => withResults("# no markers\n", run)).toThrow(/markers/);
  });

  it("the committed results are well formed and are the ones bench/README.md's table shows", () => {
    const latest = join(ROOT, "bench", "results", "latest.json");
    expect(existsSync(latest), "bench/results/latest.json is committed beside bench/README.md").toBe(true);
    const run = JSON.parse(readFileSync(latest, "utf8")) as BenchResult;
    expect(run.quick).toBe(false);
    expectWellFormed(run.figures);
    expect(run.summary).toEqual(summarize(run.figures));
    const readme = readFileSync(join(ROOT, "bench", "README.md"), "utf8");
    expect(readme).toContain(readmeBlock(run));
  });
});

describe("npm run bench", () => {
  // Keeps the script runnable (tiny mode); its timings are not asserted, but its exit code must
  // follow its own results: 2 when the JSON it wrote has a missed target, 0 otherwise.
  it("runs in quick mode, writes a well-formed results JSON and exits as its targets say", () => {
    const out = join(mkdtempSync(join(tmpdir(), "bench-test-")), "latest.json");
    const run = spawnSync(process.execPath, [TSX, "bench/run.ts"], {
      cwd: ROOT,
      env: {
        ...process.env,
        BENCH_EXPLORE: "",
        BENCH_QUICK: "1",
        BENCH_OUT: out,
        ...(DATABASE_URL
          ? { BENCH_DATABASE_URL: DATABASE_URL, BENCH_ONLY: "replicas,dialects,autobuys" }
          : { BENCH_ONLY: "chart,ingest,delivery,flood,app,paths,before,schedule,miniapp" }),
      },
      encoding: "utf8",
      timeout: 400_000,
    });
    expect(existsSync(out), `${run.stdout}\n${run.stderr}`).toBe(true);
    const written = JSON.parse(readFileSync(out, "utf8")) as BenchResult;
    const missed = written.figures.filter((f) => f.check && !holds(f)).map((f) => f.name);
    expect(run.status, `${run.stdout}\n${run.stderr}`).toBe(missed.length > 0 ? 2 : 0);
    expect(written.machine.cores).toBeGreaterThan(0);
    expect(written.machine.node).toBe(process.version);
    expect(written.command).toContain("npm run bench");
    expect(Number.isNaN(Date.parse(written.date))).toBe(false);
    expect(written.explore).toBe(false);
    // A part that cannot run (no history for "before") leaves its targets, missed.
    expect(written.figures.map((f) => f.name)).toEqual(
      expect.arrayContaining(
        DATABASE_URL ? [...REPLICA_FIGURES, ...DIALECT_FIGURES, ...AUTO_BUY_TARGETS] : [...FIGURES, ...BEFORE_FIGURES],
      ),
    );
    const targets = DATABASE_URL
      ? [...REPLICA_TARGETS, ...DIALECT_FIGURES, ...AUTO_BUY_TARGETS]
      : [...TARGETS, ...BEFORE_FIGURES];
    expect(written.figures.filter((f) => f.check).map((f) => f.name)).toEqual(expect.arrayContaining(targets));
    expect(written.figures.filter((f) => f.check)).toHaveLength(targets.length);
    if (!DATABASE_URL && !HAS_BEFORE) {
      expect(run.stdout).toContain("before/after: skipped");
      expect(missed).toEqual(expect.arrayContaining(BEFORE_FIGURES));
    }
    expectWellFormed(written.figures);
    expect(written.summary).toEqual({
      targets: targets.length,
      met: targets.length - missed.length,
      missed,
      informational: written.figures.length - targets.length,
    });
    expect(run.stdout).toContain("| figure | value |");
    expect(run.stdout).toContain(`${targets.length - missed.length}/${targets.length} targets met`);
  }, 420_000);
});
