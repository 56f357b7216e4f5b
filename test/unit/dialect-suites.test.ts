import { spawnSync } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, relative, resolve } from "node:path";
import { afterAll, describe, expect, it } from "vitest";

/**
 * A suite written for SQLite and PostgreSQL says so when this run has no PostgreSQL: its
 * PostgreSQL variant is listed as skipped, with the reason in its name, instead of vanishing from
 * the count (test/kit/test-database-dialects.ts). Checked on a throwaway test file run by a real
 * vitest with the counting reporter .ci/run uses, then read by .ci/summary.mjs.
 */
const ROOT = resolve(__dirname, "../..");
const dir = mkdtempSync(join(tmpdir(), "dialect-suites-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function runWithoutPostgres(fixture: string): { file: string; exitCode: number } {
  const file = join(dir, `${fixture}.json`);
  const { TEST_DATABASE_URL: _given, ...env } = process.env;
  const vitest = join(ROOT, "node_modules/vitest/vitest.mjs");
  const args = [
    vitest,
    "run",
    "--config",
    "vitest.config.mjs",
    "--root",
    join(ROOT, "test/fixtures/ci-summary"),
    "--reporter=dot",
    `--reporter=${join(ROOT, ".ci/count-reporter.mjs")}`,
    fixture,
  ];
  const result = spawnSync(process.execPath, args, {
    cwd: ROOT,
    env: { ...env, CI_COUNT_FILE: file },
    encoding: "utf8",
  });
  return { file, exitCode: result.status ?? 1 };
}

function testFiles(folder: string): string[] {
  return readdirSync(folder).flatMap((name) => {
    const path = join(folder, name);
    return statSync(path).isDirectory() ? testFiles(path) : name.endsWith(".test.ts") ? [relative(ROOT, path)] : [];
  });
}

describe("suites written for each database", () => {
  it("list their PostgreSQL variant as skipped, saying why, when no PostgreSQL is given", () => {
    const run = runWithoutPostgres("dialects");
    const counts = JSON.parse(readFileSync(run.file, "utf8")) as { skipped: { name: string }[] };
    expect(counts.skipped.map((test) => test.name)).toEqual([
      "a suite written for each database (PostgreSQL) (skipped: needs PostgreSQL, set TEST_DATABASE_URL) > runs",
    ]);
    const summary = spawnSync(
      process.execPath,
      [join(ROOT, ".ci/summary.mjs"), `dialects=${run.file}:${run.exitCode}`],
      { encoding: "utf8" },
    );
    expect(summary.stdout.trim().split("\n").at(-1)).toBe("1 passed, 0 failed");
  });

  it("are all declared through describeEachDialect, never through a list that drops PostgreSQL", () => {
    const quiet = /describe\.each\(\s*(TEST_DIALECTS|dialects)\b|TEST_DATABASE_URL\s*\?\s*\[/;
    const offenders = testFiles(resolve(ROOT, "test")).filter((file) =>
      quiet.test(readFileSync(resolve(ROOT, file), "utf8")),
    );
    expect(offenders).toEqual([]);
  });
});
