import { execFileSync } from "node:child_process";
import { TEST_DATABASE_URL } from "./kit/test-database";

/**
 * The line `npm test` opens with when no PostgreSQL is given: the skipped tests otherwise show only
 * as a count at the end, which reads as if every test ran.
 */
export const SKIPPED_DATABASE_TESTS_LINE =
  "Database: SQLite only. Skipped: the PostgreSQL tests (several replicas on one database in test/scale, the bench's three-replica part). " +
  "To run them: TEST_DATABASE_URL=postgres://user:password@host:5432/db npm test, or .ci/run, which starts a throwaway PostgreSQL.";

/** Once per run, though each project of the run (vitest.config.ts) loads and calls its global set-up. */
const ANNOUNCED = Symbol.for("tron-energy-bot.tests.database-announced");

export default function announceDatabaseTests(): void {
  const flags = globalThis as unknown as Record<symbol, boolean>;
  if (flags[ANNOUNCED]) return;
  flags[ANNOUNCED] = true;
  // The playground serves its page's script from the bundle npm run build makes.
  execFileSync("npm", ["run", "build:web", "--silent"], { stdio: "inherit" });
  if (!TEST_DATABASE_URL) console.log(`\n${SKIPPED_DATABASE_TESTS_LINE}\n`);
}
