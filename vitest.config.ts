import { defineConfig } from "vitest/config";

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
  "test/e2e/pacing-browser.test.ts",
  "test/e2e/push.test.ts",
  "test/e2e/push-delivery.test.ts",
  "test/e2e/limits.test.ts",
  "test/e2e/limits-more.test.ts",
  "test/e2e/group-pacing.test.ts",
  "test/unit/telegram-pace.test.ts",
  "test/e2e/typing.test.ts",
];

/**
 * Files that must not run among the many (processes started and killed, a database taken away, the
 * bench's quick run, leases held and lost) but assert no rate or short deadline that a second such
 * file beside them could break: their bounds are counts, orders, a process's own CPU time, or
 * "within seconds" with room. They run two at a time, after the rest and before the ALONE files.
 */
const PAIRED = [
  "test/bench.test.ts",
  "test/e2e/database-outage.test.ts",
  "test/e2e/process.test.ts",
  "test/e2e/push-crash.test.ts",
  "test/e2e/notification-pages.test.ts",
  "test/e2e/real-telegram-walk.test.ts",
  "test/scale/outbox-lease.test.ts",
  "test/scale/shared-state.test.ts",
];

/**
 * Test files that never open the bot's database, or open only a SQLite one they name themselves
 * (the browser tests' playground on `:memory:`, the process tests' `file:` databases): the fake
 * Telegram, the sandbox marketplace, the marketplace client, parsers and formats. A run with
 * TEST_DATABASE_URL (the PostgreSQL half of .ci/run) leaves them out, since they would run exactly
 * as in the SQLite half. test/unit/database-free.test.ts checks that none of them reaches for the
 * test database.
 */
export const DATABASE_FREE = [
  "test/telegram-fake/**/*.test.ts",
  "test/sandbox/**/*.test.ts",
  "test/marketplace/**/*.test.ts",
  "test/e2e/*-browser.test.ts",
  "test/e2e/process.test.ts",
  "test/e2e/push-crash.test.ts",
  "test/e2e/real-telegram-walk.test.ts",
  ...[
    "api-transformers",
    "chat-throttle",
    "ci-summary",
    "config-and-secrets",
    "database-health",
    "deep-link",
    "env-example",
    "flat-composer",
    "group-copy",
    "hostile-lookups",
    "i18n-bundles",
    "import-structure",
    "input",
    "locales",
    "log-safety",
    "metrics-counter",
    "miniapp-bar-value",
    "money-and-format",
    "page-size-cap",
    "playground-exposure",
    "playground-runtime",
    "public-work-bounds",
    "statement-batcher",
    "stats-chart-fonts-no-tmp",
    "stats-chart-fonts",
    "stats-chart",
    "stats-figures",
    "stats-time-zones",
    "webhook-failures",
  ].map((name) => `test/unit/${name}.test.ts`),
];

/** With TEST_DATABASE_URL set, the files that never use it are left out (see DATABASE_FREE). */
const onPostgres = /^postgres(ql)?:\/\//.test(process.env.TEST_DATABASE_URL ?? "");
const leftOut = onPostgres ? DATABASE_FREE : [];

export default defineConfig({
  test: {
    testTimeout: 30_000,
    hookTimeout: 30_000,
    // expect.poll waits for something the product promises to do, not for a deadline: on a loaded
    // machine (three files at once on two cores) a browser's round trip can take seconds, and the
    // 1 s default failed there. Polls with a real bound pass their own timeout.
    expect: { poll: { timeout: 15_000, interval: 50 } },
    pool: "forks",
    setupFiles: ["test/setup.ts"],
    globalSetup: ["test/global-setup.ts"],
    projects: [
      {
        extends: true,
        test: {
          name: "together",
          include: ["test/**/*.test.ts"],
          exclude: [...ALONE, ...PAIRED, ...leftOut],
          maxWorkers: 3,
          sequence: { groupOrder: 0 },
        },
      },
      {
        extends: true,
        test: { name: "paired", include: PAIRED, exclude: leftOut, maxWorkers: 2, sequence: { groupOrder: 1 } },
      },
      {
        extends: true,
        test: {
          name: "alone",
          include: ALONE,
          exclude: [...PAIRED, ...leftOut],
          fileParallelism: false,
          sequence: { groupOrder: 2 },
        },
      },
    ],
  },
});
