import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterAll, describe, expect, it } from "vitest";

/**
 * .ci/run's last line ("N passed, M failed") as CI prints it, for throwaway test files that pass,
 * fail, crash their worker, cannot be imported, leave an unhandled rejection, fail in beforeAll or
 * skip without a reason (test/fixtures/ci-summary, never part of the real suite). Each is run by a
 * real vitest with the counting reporter .ci/run uses, then read by .ci/summary.mjs.
 */
const ROOT = resolve(__dirname, "../..");
const FIXTURES = join(ROOT, "test/fixtures/ci-summary");
const dir = mkdtempSync(join(tmpdir(), "ci-summary-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function runFixture(name: string): { file: string; exitCode: number } {
  const file = join(dir, `${name}.json`);
  const vitest = join(ROOT, "node_modules/vitest/vitest.mjs");
  const result = spawnSync(
    process.execPath,
    [
      vitest,
      "run",
      "--config",
      "vitest.config.mjs",
      "--root",
      FIXTURES,
      "--reporter=dot",
      `--reporter=${join(ROOT, ".ci/count-reporter.mjs")}`,
      name,
    ],
    {
      cwd: ROOT,
      env: { ...process.env, CI_COUNT_FILE: file },
      encoding: "utf8",
    },
  );
  return { file, exitCode: result.status ?? 1 };
}

function summaryOf(args: string[]): { lines: string[]; exitCode: number } {
  const result = spawnSync(process.execPath, [join(ROOT, ".ci/summary.mjs"), ...args], { encoding: "utf8" });
  return { lines: result.stdout.trim().split("\n"), exitCode: result.status ?? 1 };
}

function summaryOfFixture(name: string) {
  const run = runFixture(name);
  return { ...summaryOf([`${name}=${run.file}:${run.exitCode}`]), vitestExit: run.exitCode };
}

describe("the CI summary line", () => {
  it("reads green only when every test passed", () => {
    const { lines, exitCode, vitestExit } = summaryOfFixture("passing");
    expect(vitestExit).toBe(0);
    expect(lines.at(-1)).toBe("1 passed, 0 failed");
    expect(exitCode).toBe(0);
  });

  it.each([
    ["failing", "1 passed, 1 failed", /1 failed test\(s\): failing\.fixture\.ts > .+: expected/],
    ["crashing", "0 passed, 2 failed", /unhandled error.*never finished: crashing\.fixture\.ts/],
    ["non-importing", "0 passed, 1 failed", /non-importing\.fixture\.ts: its own code failed/],
    ["unhandled", "1 passed, 1 failed", /1 unhandled error/],
    ["before-all", "0 passed, 1 failed", /before-all\.fixture\.ts: its own code failed/],
    [
      "silent-skip",
      "1 passed, 1 failed",
      /skipped without a reason in the name: silent-skip\.fixture\.ts > is left out without saying why\)$/,
    ],
  ])("turns red for a %s test file", (name, last, why) => {
    const { lines, exitCode } = summaryOfFixture(name);
    expect(lines.at(-1)).toBe(last);
    expect(lines[0]).toMatch(why);
    expect(exitCode).toBe(1);
  });

  it("counts a run that wrote no report, a non-zero exit nothing explains, and failed steps; per database and in total", () => {
    const passing = runFixture("passing");
    const { lines, exitCode } = summaryOf([
      `sqlite=${passing.file}:0`,
      `postgres=${join(dir, "never-written.json")}:1`,
      `again=${passing.file}:137`,
      "--steps-failed",
      "2",
    ]);
    expect(lines).toEqual([
      "sqlite: 1 passed, 0 failed",
      "postgres: 0 passed, 1 failed (no test report was written (vitest crashed, was killed, or its set-up failed))",
      "again: 1 passed, 1 failed (vitest exited 137 with no failure it reported)",
      "steps before or between the test runs: 2 failed",
      "2 passed, 4 failed",
    ]);
    expect(exitCode).toBe(1);
  });
});
