import { randomBytes } from "node:crypto";
import type { Server } from "node:http";
import type { AddressInfo } from "node:net";
import { serve } from "@hono/node-server";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { telegramWebhookSecret } from "#src/app";
import { migrateToLatest, openDatabase } from "#src/db/connection";
import { saveApiKey } from "#src/db/repos/credentials";
import { upsertUser } from "#src/db/repos/users";
import { createSandbox } from "#src/sandbox/index";
import { SecretBox } from "#src/security/secret-box";
import { createChatUser, startFakeTelegram, type StartedFakeTelegram } from "../kit/telegram-driver";
import { createPostgresTestDatabase, TEST_DATABASE_URL, type TestDatabase } from "../kit/test-database";
import { ADDRESS_A, BOT_TOKEN } from "../kit/world";
import { closeServer, sleep, spawnReplica, startBalancer, waitReady, waitUntil, type Replica } from "./replica-kit";

const name = TEST_DATABASE_URL
  ? "two updates of one chat racing at two replicas on one PostgreSQL"
  : "two updates of one chat racing at two replicas (skipped: TEST_DATABASE_URL is unset; this needs a PostgreSQL server, CI always sets it)";

// Slow marketplace answers keep the first update busy while the second is already at the other replica.
const SLOW_MS = 400;

describe.skipIf(!TEST_DATABASE_URL)(name, () => {
  let database: TestDatabase;
  let telegram: StartedFakeTelegram;
  let sandboxServer: Server;
  let balancer: Awaited<ReturnType<typeof startBalancer>>;
  const replicas: Replica[] = [];
  const sandbox = createSandbox({ now: () => new Date(), settleDelayMs: 60_000 });
  const secretKey = randomBytes(32).toString("base64");
  const userId = 3_200_001;
  let accountId: string;

  beforeAll(async () => {
    database = await createPostgresTestDatabase("bot_race");
    const { db } = await openDatabase(database.url, { poolMax: 2 });
    await migrateToLatest(db);
    ({ accountId } = sandbox.control.createAccount({ trx: "5000", usdt: "0" }));
    const { apiKey } = sandbox.control.createKey({ accountId, scope: "purchase" });
    await upsertUser(db, userId, userId, Date.now());
    await saveApiKey(db, new SecretBox(secretKey), userId, apiKey, Date.now());
    await db.destroy();
    sandboxServer = await new Promise((resolve) => {
      const fetch = async (req: Request) => {
        const path = new URL(req.url).pathname;
        if (path === "/api/v1/pricing/quote" || (req.method === "POST" && path === "/api/v1/orders"))
          await sleep(SLOW_MS);
        return sandbox.app.fetch(req);
      };
      const started = serve({ fetch, port: 0, hostname: "127.0.0.1" }, () => resolve(started as Server));
    });
    // Parallel delivery, also within one chat: what a load balancer's retry or a redelivery can do.
    telegram = await startFakeTelegram({ token: BOT_TOKEN, webhook: { maxConnections: 4, sameChatInParallel: true } });
    balancer = await startBalancer(() => replicas);
    const marketplaceUrl = `http://127.0.0.1:${(sandboxServer.address() as AddressInfo).port}`;
    for (const id of ["w1", "w2"])
      replicas.push(
        await spawnReplica(id, {
          telegramApiRoot: telegram.apiRoot,
          marketplaceUrl,
          databaseUrl: database.url,
          secretKey,
          mode: "webhook",
        }),
      );
    for (const replica of replicas) await waitReady(replica);
    // Each replica registered the public https URL; point the fake Telegram at the balancer instead.
    const answer = await fetch(`${telegram.apiRoot}/bot${BOT_TOKEN}/setWebhook`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ url: `${balancer.url}/telegram`, secret_token: telegramWebhookSecret(secretKey) }),
    });
    expect(answer.ok).toBe(true);
  }, 60_000);

  afterAll(async () => {
    for (const replica of replicas) if (replica.alive) replica.child.kill("SIGKILL");
    await telegram?.close();
    await closeServer(balancer?.server);
    await closeServer(sandboxServer);
    await database?.drop();
  }, 60_000);

  /**
   * The two updates with these ids as the balancer routed them; asserts they really raced. A route
   * is recorded when the replica's answer begins, which is after the reply it sent: waited for.
   */
  async function raced(first: number, second: number) {
    const routeOf = (id: number) =>
      balancer.routed.find(
        (r) => r.path === "/telegram" && (JSON.parse(r.body) as { update_id: number }).update_id === id,
      );
    await waitUntil(
      () => routeOf(first) !== undefined && routeOf(second) !== undefined,
      10_000,
      "both updates answered",
      10,
    );
    const routes = [routeOf(first)!, routeOf(second)!];
    expect(routes.every(Boolean)).toBe(true);
    expect(routes[0]!.replica).not.toBe(routes[1]!.replica);
    // each was at its replica before the other was answered
    expect(routes[1]!.forwardedAt).toBeLessThan(routes[0]!.at);
    expect(routes[0]!.forwardedAt).toBeLessThan(routes[1]!.at);
    return routes;
  }

  it("two messages of one chat at two replicas, the second arriving while the first is handled, are handled in update_id order, once each, also when redelivered", async () => {
    const user = createChatUser(telegram.fake, { id: userId, firstName: "Racer", languageCode: "en" });
    const first = user.send("/quote energy 65000 1h");
    // Order is kept among the updates a replica has recorded (Telegram itself never sends a chat's
    // next update before the previous one is answered): the second arrives once the first is
    // recorded and while it is still being handled (its quote takes SLOW_MS), at the other replica.
    const { db } = await openDatabase(database.url, { poolMax: 1 });
    try {
      await waitUntil(
        async () =>
          (await db
            .selectFrom("telegram_updates")
            .select("update_id")
            .where("update_id", "=", first.updateId)
            .executeTakeFirst()) !== undefined,
        5_000,
        "the first update recorded",
        10,
      );
    } finally {
      await db.destroy();
    }
    const second = user.send("/help");
    await waitUntil(() => user.botMessages().length >= 2, 20_000, "both replies");
    const routes = await raced(first.updateId, second.updateId);
    // /help needs no marketplace call: handled in parallel, its answer would come first
    const texts = user.botMessages().map((m) => m.text ?? "");
    expect(texts).toHaveLength(2);
    expect(texts[0]).toContain("Price quote");
    expect(texts[1]).toContain("/quote");

    // a load balancer's retry: each update again, at the other replica → acknowledged, not handled
    for (const route of routes) {
      const other = replicas.find((r) => r.id !== route.replica)!;
      const again = await fetch(`${other.url}/telegram`, {
        method: "POST",
        headers: {
          "content-type": "application/json",
          "x-telegram-bot-api-secret-token": telegramWebhookSecret(secretKey),
        },
        body: route.body,
      });
      expect(again.status).toBe(200);
    }
    await sleep(1_000);
    expect(user.botMessages()).toHaveLength(2);
  }, 40_000);

  it("a double tap on Confirm whose two callbacks race at two replicas places one order", async () => {
    const user = createChatUser(telegram.fake, { id: userId, firstName: "Racer", languageCode: "en" });
    const before = user.botMessages().length;
    user.send(`/buy energy 65000 1h ${ADDRESS_A}`);
    await waitUntil(() => user.botMessages().length > before, 20_000, "the order card");
    const card = user.botMessages().at(-1)!;
    expect(card.text).toContain("TRX");
    const taps = [user.press("✅ Confirm"), user.press("✅ Confirm")];
    await waitUntil(
      () => user.botMessages().some((m) => /Order placed/.test(m.text ?? "")),
      20_000,
      "the order to be placed",
    );
    await sleep(1_500);
    await raced(taps[0]!.updateId, taps[1]!.updateId);
    expect(sandbox.control.listOrders(accountId)).toHaveLength(1);
    expect(user.botMessages().filter((m) => /Order placed/.test(m.text ?? ""))).toHaveLength(1);
  }, 40_000);
});
