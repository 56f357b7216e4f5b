import { afterEach, describe, expect, it } from "vitest";
import { startWorld, type World } from "../kit/world";
import { createPostgresTestDatabase, TEST_DATABASE_URL, type TestDatabase } from "../kit/test-database";

const title = TEST_DATABASE_URL
  ? "the app on PostgreSQL logs no part of a short DATABASE_URL password"
  : "the app on PostgreSQL logs no part of a short DATABASE_URL password (skipped: TEST_DATABASE_URL is unset; test/unit/operations-config.test.ts covers the logger alone)";

describe.skipIf(!TEST_DATABASE_URL)(title, () => {
  let world: World | null = null;
  let database: TestDatabase | null = null;
  afterEach(async () => {
    await world?.stop();
    await database?.drop();
    world = null;
    database = null;
  });

  it.each(["a", "Zq"])(
    "password %j: a chat, a failed readiness probe and log lines carrying the URL and the configuration",
    { timeout: 60_000 },
    async (password) => {
      database = await createPostgresTestDatabase("bot_pwlog");
      const url = new URL(database.url);
      // The test server trusts local connections, so any password is accepted.
      url.password = password;
      const databaseUrl = url.toString();
      world = await startWorld({ env: { DATABASE_URL: databaseUrl } });

      const user = world.user(7_301);
      user.send("/start");
      await user.nextMessage();
      // A readiness probe while every query fails, with a driver error that names the URL.
      const executor = world.app.db.getExecutor();
      const original = executor.executeQuery.bind(executor);
      executor.executeQuery = () => Promise.reject(new Error(`connection to ${databaseUrl} refused`));
      try {
        expect((await fetch(`${world.app.url}/readyz`)).status).toBe(503);
      } finally {
        executor.executeQuery = original;
      }
      world.app.logger.error(
        { err: new Error(`could not reach ${databaseUrl}`), config: world.app.config, databaseUrl },
        `database at ${databaseUrl} unreachable`,
      );

      const logs = world.logs();
      expect(logs).toContain(`${url.host}${url.pathname}`);
      expect(logs).not.toContain(`:${password}@`);
      expect(logs).not.toContain(`"password":"${password}"`);
      if (password.length > 1) expect(logs).not.toContain(password);
    },
  );
});
