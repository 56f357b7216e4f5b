import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { BEFORE_PLUGINS } from "../bench/before-after";

const ROOT = join(import.meta.dirname, "..");
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
  "updates_per_s_deployed",
  "updates_calls_counted_by_app",
  "updates_cpu_ms",
  "updates_cpu_vs_same_io",
  "updates_sql_statements",
  "updates_p99_ms_at_200_per_s",
  "updates_guided_step_cpu_ms",
  "updates_guided_step_cpu_ms_back_to_back",
  "updates_p99_ms",
  "paths_smallest_update_cpu_us",
  "paths_user_read_cpu_us",
  "paths_bot_api_call_cpu_us",
  "event_loop_delay_p99_ms",
  "memory_rss_idle_mb",
  "memory_rss_growth_mb",
  "poll_schedule_requests_per_min",
  "poll_schedule_cpu_s_per_min",
  "poll_alert_p99_active_s",
  "poll_alert_p99_idle_s",
];
const BEFORE_FIGURES = ["updates_cpu_ms_vs_before_plugins", "updates_guided_step_cpu_ms_vs_before_plugins"];
// The before/after part needs the commit before the plugins from this clone's history.
const HAS_BEFORE = spawnSync("git", ["cat-file", "-e", `${BEFORE_PLUGINS}^{commit}`], { cwd: ROOT }).status === 0;
const REPLICA_FIGURES = ["replicas_poll_cycle_s", "replicas_users_polled_twice", "replicas_poll_cpu_ms_per_user", "replicas_ingest_events_per_s", "replicas_ingest_events_lost"];
const DIALECT_FIGURES = ["updates_cpu_vs_same_io_sqlite", "updates_cpu_vs_same_io_postgres", "updates_p99_ms_at_200_per_s_sqlite", "updates_p99_ms_at_200_per_s_postgres"];
// The three-replica and the dialects parts need PostgreSQL: on the PostgreSQL run they use that
// server, and run alone (the other parts do not touch PostgreSQL and ran on the SQLite run already).
const DATABASE_URL = process.env.TEST_DATABASE_URL && /^postgres(ql)?:\/\//.test(process.env.TEST_DATABASE_URL) ? process.env.TEST_DATABASE_URL : undefined;

describe("npm run bench", () => {
  // Keeps the script runnable (tiny mode); its timings are not asserted.
  it("runs in quick mode, exits 0 and writes a well-formed results JSON", () => {
    const out = join(mkdtempSync(join(tmpdir(), "bench-test-")), "latest.json");
    const run = spawnSync(process.execPath, [join(ROOT, "node_modules", "tsx", "dist", "cli.mjs"), "bench/run.ts"], { cwd: ROOT, env: { ...process.env, BENCH_QUICK: "1", BENCH_OUT: out, ...(DATABASE_URL ? { BENCH_DATABASE_URL: DATABASE_URL, BENCH_ONLY: "replicas,dialects" } : { BENCH_ONLY: "chart,ingest,delivery,flood,app,paths,before,schedule" }) }, encoding: "utf8", timeout: 400_000 });
    expect(run.status, `${run.stdout}\n${run.stderr}`).toBe(0);
    const result = JSON.parse(readFileSync(out, "utf8")) as { machine: { cores: number; node: string }; command: string; figures: Array<Record<string, unknown>> };
    expect(result.machine.cores).toBeGreaterThan(0);
    expect(result.machine.node).toBe(process.version);
    expect(result.command).toContain("npm run bench");
    expect(result.figures.map((f) => f.name)).toEqual(expect.arrayContaining(DATABASE_URL ? [...REPLICA_FIGURES, ...DIALECT_FIGURES] : HAS_BEFORE ? [...FIGURES, ...BEFORE_FIGURES] : FIGURES));
    if (!DATABASE_URL && !HAS_BEFORE) expect(run.stdout).toContain("before/after: skipped");
    for (const f of result.figures) {
      expect(typeof f.name).toBe("string");
      expect(typeof f.value).toBe("number");
      expect(typeof f.unit).toBe("string");
      expect(typeof f.reference).toBe("string");
      expect(f.referenceValue === null || typeof f.referenceValue === "number").toBe(true);
      expect(f.ratio === null || typeof f.ratio === "number").toBe(true);
      expect(typeof f.target).toBe("string");
      expect(typeof f.met).toBe("boolean");
    }
    expect(run.stdout).toContain("| figure | value |");
  }, 420_000);
});
