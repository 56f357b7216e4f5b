import { describe } from "vitest";
import { TEST_DATABASE_URL } from "./test-database";

/** Why the PostgreSQL variant of a suite did not run, in the words every skipped test's name carries. */
export const POSTGRES_SKIP_REASON = "skipped: needs PostgreSQL, set TEST_DATABASE_URL";

/** The dialects a suite is written for, whether or not this run can give it each of them. */
export const ALL_TEST_DIALECTS = ["SQLite", "PostgreSQL"] as const;

/** One dialect of ALL_TEST_DIALECTS. */
export type TestDialect = (typeof ALL_TEST_DIALECTS)[number];

/** A suite title for one dialect: `%s` replaced by the dialect, and the skip reason added when it cannot run. */
export function dialectSuiteTitle(title: string, dialect: TestDialect, runs: boolean): string {
  const named = title.replace("%s", dialect);
  return runs ? named : `${named} (${POSTGRES_SKIP_REASON})`;
}

/**
 * `describe.each(dialects)` that does not go quiet: the dialects this run cannot give (PostgreSQL
 * without TEST_DATABASE_URL) are still declared, as skipped suites whose title says why, so each of
 * their tests is listed as skipped instead of vanishing from the count. A skipped suite runs none
 * of its hooks, so nothing opens a database.
 */
export function describeEachDialect(
  title: string,
  body: (dialect: TestDialect) => void,
  dialects: readonly TestDialect[] = ALL_TEST_DIALECTS,
): void {
  for (const dialect of dialects) {
    const runs = dialect === "SQLite" || Boolean(TEST_DATABASE_URL);
    (runs ? describe : describe.skip)(dialectSuiteTitle(title, dialect, runs), () => body(dialect));
  }
}
