import { afterEach, describe, expect, it } from "vitest";
import { signInitData } from "#src/miniapp/index";
import { startDatabaseOutageProxy, type DatabaseOutageProxy } from "../kit/db-outage-proxy";
import { createPostgresTestDatabase, TEST_DATABASE_URL, type TestDatabase } from "../kit/test-database";
import { BOT_TOKEN, linkKey, startWorld, type World } from "../kit/world";
import { pause, waitFor } from "../kit/push-helpers";
import { PUBLIC_URL } from "../kit/miniapp";

const pgOnly = TEST_DATABASE_URL
  ? ""
  : " (skipped: TEST_DATABASE_URL is unset; SQLite has no server to lose, this needs PostgreSQL)";

/** The log lines (parsed) of `text`. */
const parsedLog = (text: string) =>
  text
    .split("\n")
    .filter(Boolean)
    .map((line) => JSON.parse(line) as { level: number; msg: string });

describe.skipIf(!TEST_DATABASE_URL)(`the dashboard API during a PostgreSQL outage${pgOnly}`, () => {
  let world: World | null = null;
  let proxy: DatabaseOutageProxy | null = null;
  let database: TestDatabase | null = null;
  afterEach(async () => {
    proxy?.up();
    await world?.stop();
    await proxy?.close();
    await database?.drop();
    world = database = proxy = null;
  });

  it(
    "answers 503 with Retry-After while the database is away, logs the outage once (no stack per request), and serves again once it is back",
    { timeout: 60_000 },
    async () => {
      database = await createPostgresTestDatabase("bot_app_outage");
      proxy = await startDatabaseOutageProxy(database.url);
      const started = await startWorld({ env: { DATABASE_URL: proxy.url, PUBLIC_URL } });
      world = started;
      await linkKey(started, started.user(4801), started.newAccount().apiKey);
      const initData = signInitData(
        { id: 4801, firstName: "User4801", languageCode: "en" },
        BOT_TOKEN,
        new Date(started.app.deps.now()),
      );
      const ask = (path: string, method = "GET") =>
        Promise.resolve(started.app.http.request(path, { method, headers: { authorization: `tma ${initData}` } }));
      expect((await ask("/app/api/dashboard")).status).toBe(200);

      const logOffset = started.logs().length;
      proxy.down();
      for (const [path, method] of [
        ["/app/api/dashboard", "GET"],
        ["/app/api/spending?days=7", "GET"],
        ["/app/api/rules/abc/pause", "POST"],
      ] as const) {
        for (let i = 0; i < 3; i++) {
          const answer = await ask(path, method);
          expect(answer.status, path).toBe(503);
          expect(Number(answer.headers.get("retry-after"))).toBeGreaterThanOrEqual(1);
        }
      }
      await pause(200);
      const outageLog = started.logs().slice(logOffset);
      expect(
        parsedLog(outageLog)
          .filter((line) => line.level >= 40)
          .map((line) => line.msg.split(":")[0]),
      ).toEqual(["database unreachable"]);
      expect(outageLog).not.toContain("HTTP handler failed");

      proxy.up();
      await waitFor(async () => (await fetch(`${started.app.url}/readyz`)).status === 200, 20_000);
      expect((await ask("/app/api/dashboard")).status).toBe(200);
    },
  );
});
