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
    "hostile-lookups",
    "import-structure",
    "input",
    "locales",
    "log-safety",
    "metrics-counter",
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
