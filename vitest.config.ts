import { defineConfig } from "vitest/config";
import { DATABASE_FREE } from "./test/database-free";

/**
 * Test files that measure time or rates (Telegram's limits on arrival, several replicas and their
 * leases, processes started and stopped, clocks run up to 25 times fast, "typing…" counted against
 * the time a reply took): they run one at a time after the rest, so that other tests' load cannot
 * bunch their calls. Everything else runs three files at once: most of it waits on timers and I/O,
 * not on the CPU. The rule for a file running with others: it waits for events (a reply, a pass of
 * the outbox sender, a poll), never for a quiet spell; a clock it needs past a limit is moved, not
 * run fast; and an upper bound on elapsed time stands only for a promise of the product, with room
 * for a loaded machine (seconds, not milliseconds). A file that cannot keep to that belongs here.
 */
const ALONE = [
  "test/scale/**/*.test.ts",
  "test/e2e/process.test.ts",
  "test/e2e/pacing-browser.test.ts",
  "test/e2e/push.test.ts",
  "test/e2e/push-delivery.test.ts",
  "test/e2e/notification-pages.test.ts",
  "test/e2e/push-crash.test.ts",
  "test/e2e/limits.test.ts",
  "test/e2e/limits-more.test.ts",
  "test/unit/telegram-pace.test.ts",
  "test/e2e/typing.test.ts",
  "test/e2e/database-outage.test.ts",
  "test/bench.test.ts",
  "test/e2e/real-telegram-walk.test.ts",
];

/** With TEST_DATABASE_URL set, the files that never use it are left out (see test/database-free.ts). */
const onPostgres = /^postgres(ql)?:\/\//.test(process.env.TEST_DATABASE_URL ?? "");
const leftOut = onPostgres ? DATABASE_FREE : [];

export default defineConfig({
  test: {
    testTimeout: 30_000,
    hookTimeout: 30_000,
    pool: "forks",
    setupFiles: ["test/setup.ts"],
    globalSetup: ["test/global-setup.ts"],
    projects: [
      { extends: true, test: { name: "together", include: ["test/**/*.test.ts"], exclude: [...ALONE, ...leftOut], maxWorkers: 3, sequence: { groupOrder: 0 } } },
      { extends: true, test: { name: "alone", include: ALONE, exclude: leftOut, fileParallelism: false, sequence: { groupOrder: 1 } } },
    ],
  },
});
