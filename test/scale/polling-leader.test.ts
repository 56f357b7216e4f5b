import { randomBytes } from "node:crypto";
import type { Server } from "node:http";
import type { AddressInfo } from "node:net";
import { serve } from "@hono/node-server";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { migrateToLatest, openDatabase } from "#src/db/connection";
import { createSandbox } from "#src/sandbox/index";
import { createChatUser, startFakeTelegram, type StartedFakeTelegram } from "../kit/telegram-driver";
import { createPostgresTestDatabase, TEST_DATABASE_URL, type TestDatabase } from "../kit/test-database";
import { BOT_TOKEN } from "../kit/world";
import {
  closeServer,
  killHard,
  methodOf,
  spawnReplica,
  startTaggedProxy,
  waitReady,
  waitUntil,
  type Replica,
  type TaggedCall,
} from "./replica-kit";

const name = TEST_DATABASE_URL
  ? "two replicas in polling mode on one PostgreSQL: only the leader polls, the other takes over"
  : "two replicas in polling mode on one PostgreSQL (skipped: TEST_DATABASE_URL is unset; this needs a PostgreSQL server, CI always sets it)";

describe.skipIf(!TEST_DATABASE_URL)(name, () => {
  let database: TestDatabase;
  let telegram: StartedFakeTelegram;
  let sandboxServer: Server;
  const proxies: Server[] = [];
  const replicas: Replica[] = [];
  const calls: TaggedCall[] = [];

  beforeAll(async () => {
    database = await createPostgresTestDatabase("bot_polling");
    const { db } = await openDatabase(database.url, { poolMax: 2 });
    await migrateToLatest(db);
    await db.destroy();
    const sandbox = createSandbox({ now: () => new Date(), settleDelayMs: 0 });
    sandboxServer = await new Promise((resolve) => {
      const started = serve({ fetch: sandbox.app.fetch, port: 0, hostname: "127.0.0.1" }, () =>
        resolve(started as Server),
      );
    });
    telegram = await startFakeTelegram({ token: BOT_TOKEN });
  }, 60_000);

  afterAll(async () => {
    for (const replica of replicas) if (replica.alive) replica.child.kill("SIGKILL");
    for (const proxy of proxies) await closeServer(proxy);
    await telegram?.close();
    await closeServer(sandboxServer);
    await database?.drop();
  }, 60_000);

  it("only the lease holder calls getUpdates (no 409 ever); after SIGKILL of the leader the other answers within seconds, the message sent meanwhile included", async () => {
    const secretKey = randomBytes(32).toString("base64");
    const marketplaceUrl = `http://127.0.0.1:${(sandboxServer.address() as AddressInfo).port}`;
    for (const id of ["p1", "p2"]) {
      // each replica reaches Telegram through its own proxy, so every getUpdates names its caller
      const proxy = await startTaggedProxy(telegram.apiRoot, id, calls);
      proxies.push(proxy.server);
      const replica = await spawnReplica(id, {
        telegramApiRoot: proxy.url,
        marketplaceUrl,
        databaseUrl: database.url,
        secretKey,
        mode: "polling",
      });
      replicas.push(replica);
      await waitReady(replica);
    }
    const leaderOf = async (replica: Replica) =>
      /^replica_polling_leader(\{[^}]*\})? 1$/m.test(await (await fetch(`${replica.url}/metrics`)).text());
    await waitUntil(
      async () => (await leaderOf(replicas[0]!)) || (await leaderOf(replicas[1]!)),
      15_000,
      "a polling leader",
    );
    const leader = (await leaderOf(replicas[0]!)) ? replicas[0]! : replicas[1]!;
    const follower = replicas.find((r) => r !== leader)!;
    expect(await leaderOf(follower)).toBe(false);

    const user = createChatUser(telegram.fake, { id: 3_100_001, firstName: "Poll", languageCode: "en" });
    user.send("/help");
    expect((await user.nextMessage({ timeoutMs: 20_000 })).text).toContain("/quote");
    const polls = (replica: Replica) => calls.filter((c) => c.replica === replica.id && methodOf(c) === "getUpdates");
    expect(polls(leader).length).toBeGreaterThan(0);
    expect(polls(follower)).toHaveLength(0);

    await killHard(leader);
    const killedAt = Date.now();
    user.send("/help");
    const answer = await user.nextMessage({ timeoutMs: 20_000 });
    const tookOverMs = Date.now() - killedAt;
    expect(answer.text).toContain("/quote");
    // the lease lasts 10 s and is tried every 2.5 s: a new leader within about 12.5 s
    expect(tookOverMs).toBeLessThan(15_000);
    expect(await leaderOf(follower)).toBe(true);
    expect(polls(follower).length).toBeGreaterThan(0);
    // the killed leader never polled again, and the fake never had two polls at once
    expect(polls(leader).every((c) => c.startedAt <= killedAt)).toBe(true);
    const conflicts = telegram.fake.calls.filter((c) => c.method === "getUpdates" && c.errorCode === 409);
    expect(conflicts).toHaveLength(0);
    expect(user.botMessages().filter((m) => m.text?.includes("/quote"))).toHaveLength(2);
  }, 60_000);
});
