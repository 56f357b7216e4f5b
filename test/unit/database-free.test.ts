import { readdirSync, readFileSync, statSync } from "node:fs";
import { join, relative, resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { DATABASE_FREE } from "../../vitest.config";

/**
 * The files the PostgreSQL run leaves out must really never use the test database: none of them
 * starts a test world, asks for TEST_DATABASE_URL, or starts the app on a database it does not
 * name itself as SQLite.
 */
const ROOT = resolve(__dirname, "../..");
const USES_TEST_DATABASE =
  /startWorld|manageWorld|TEST_DATABASE_URL|test-database|kit\/world|push-helpers|replica-kit|openDatabase|migrateToLatest/;

/** A glob of the config's kind (`**` any folders, `*` within a name) as a regular expression. */
function globPattern(glob: string): RegExp {
  const body = glob
    .split("**/")
    .map((part) => part.replace(/[.+^${}()|[\]\\]/g, "\\$&").replace(/\*/g, "[^/]*"))
    .join("(?:.*/)?");
  return new RegExp(`^${body}$`);
}

function testFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? testFiles(path) : name.endsWith(".test.ts") ? [relative(ROOT, path)] : [];
  });
}

describe("the files left out of the PostgreSQL run", () => {
  const patterns = DATABASE_FREE.map(globPattern);
  const files = testFiles(resolve(ROOT, "test")).filter((file) => patterns.some((pattern) => pattern.test(file)));

  it("are found", () => {
    expect(files.length).toBeGreaterThan(40);
    expect(files).toContain("test/unit/locales.test.ts");
  });

  it("never reach for the test database", () => {
    const offenders = files.filter((file) => USES_TEST_DATABASE.test(readFileSync(resolve(ROOT, file), "utf8")));
    expect(offenders).toEqual([]);
  });

  it("start the app only on a SQLite database they name", () => {
    for (const file of files) {
      const text = readFileSync(resolve(ROOT, file), "utf8");
      if (!/startApp|usePlaygroundPage/.test(text)) continue;
      expect(text, file).toMatch(/usePlaygroundPage|DATABASE_URL: ":memory:"|DATABASE_URL: `file:/);
    }
  });
});
