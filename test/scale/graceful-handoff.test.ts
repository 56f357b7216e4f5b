import { randomBytes } from "node:crypto";
import { mkdtempSync } from "node:fs";
import type { Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { serve } from "@hono/node-server";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { migrateToLatest, openDatabase } from "#src/db/connection";
import { saveApiKey } from "#src/db/repos/credentials";
import { markInMotion } from "#src/db/repos/poll-schedule";
import { upsertUser } from "#src/db/repos/users";
import { createMarketplaceClient } from "#src/marketplace/index";
import { followOrder } from "#src/db/repos/followed-orders";
import { createSandbox } from "#src/sandbox/index";
import { SecretBox } from "#src/security/secret-box";
import { startFakeTelegram, type StartedFakeTelegram } from "../kit/telegram-driver";
import { removeDatabaseDir } from "../kit/temp-dir";
import { createPostgresTestDatabase, TEST_DATABASE_URL, type TestDatabase } from "../kit/test-database";
import { ADDRESS_A, BOT_TOKEN } from "../kit/world";
import {
  closeServer,
  spawnReplica,
  startTaggedProxy,
  waitReady,
  waitUntil,
  type Replica,
  type TaggedCall,
} from "./replica-kit";

/**
 * A bot process stopped with SIGTERM while a poll and an order check wait on a slow marketplace
 * answer hands back what it holds, and its replacement polls at once: a notification raised right
 * after the restart is relayed within seconds, not after the old leases run out (60 s). Runs on
 * PostgreSQL with TEST_DATABASE_URL, else on a SQLite file the two processes use one after the other.
 */
const USER = 5501;
/** Left holding a poll lease by a replica that died (SIGKILL): it must not keep the live one idle. */
const HELD = 5502;

describe("a graceful restart while a poll waits on a slow marketplace answer", () => {
  let database: TestDatabase | null = null;
  let databaseUrl: string;
  /** The SQLite file's folder (without TEST_DATABASE_URL), removed after the suite. */
  let sqliteDir: string | null = null;
  let db: Awaited<ReturnType<typeof openDatabase>>["db"];
  let telegram: StartedFakeTelegram;
  let sandboxServer: Server;
  const servers: Server[] = [];
  const replicas: Replica[] = [];
  const sandbox = createSandbox({ now: () => new Date(), settleDelayMs: null });
  const secretKey = randomBytes(32).toString("base64");

  beforeAll(async () => {
    if (TEST_DATABASE_URL) {
      database = await createPostgresTestDatabase("bot_handoff");
      databaseUrl = database.url;
    } else {
      sqliteDir = mkdtempSync(join(tmpdir(), "bot-handoff-"));
      databaseUrl = `file:${join(sqliteDir, "bot.db")}`;
    }
    ({ db } = await openDatabase(databaseUrl, { poolMax: 2 }));
    await migrateToLatest(db);
    sandboxServer = await new Promise((resolve) => {
      const started = serve({ fetch: sandbox.app.fetch, port: 0, hostname: "127.0.0.1" }, () =>
        resolve(started as Server),
      );
    });
    telegram = await startFakeTelegram({ token: BOT_TOKEN });
  }, 60_000);

  afterAll(async () => {
    for (const replica of replicas) if (replica.alive) replica.child.kill("SIGKILL");
    await db?.destroy();
    await telegram?.close();
    for (const server of [sandboxServer, ...servers]) await closeServer(server);
    await database?.drop();
    if (sqliteDir) await removeDatabaseDir(sqliteDir);
  }, 60_000);

  it("hands back its users and orders at SIGTERM; the replacement relays a notification raised after the restart within seconds, though another user stays held by a dead replica", async () => {
    const marketplaceUrl = `http://127.0.0.1:${(sandboxServer.address() as AddressInfo).port}`;
    const box = new SecretBox(secretKey);
    const now = Date.now();
    const keys = new Map<number, { accountId: string; apiKey: string }>();
    for (const id of [USER, HELD]) {
      const { accountId } = sandbox.control.createAccount({ trx: "1000", usdt: "0" });
      const { apiKey } = sandbox.control.createKey({ accountId, scope: "purchase" });
      keys.set(id, { accountId, apiKey });
      await upsertUser(db, id, id, now);
      await saveApiKey(db, box, id, apiKey, now);
      await db
        .insertInto("poll_state")
        .values({ telegram_id: id, primed: 1, failures: 0, next_poll_at: 0, rules_checked_at: now })
        .execute();
      // Both have something in motion (a deposit expected): polled on every tick.
      await markInMotion(db, id, "deposit", now);
      telegram.fake.sendText({ id, firstName: `U${id}`, languageCode: "en" }, "hi");
    }
    // Those "hi" messages only make the chats known to Telegram: drain them before any bot runs.
    for (let offset = 0; ;) {
      const answer = (await (
        await fetch(`${telegram.apiRoot}/bot${BOT_TOKEN}/getUpdates`, {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify({ offset, limit: 100, timeout: 0 }),
        })
      ).json()) as { result: Array<{ update_id: number }> };
      if (answer.result.length === 0) break;
      offset = answer.result.at(-1)!.update_id + 1;
    }
    // An order placed through the bot, followed until it settles (it settles only when told to).
    const order = await createMarketplaceClient({
      baseUrl: marketplaceUrl,
      apiKey: () => keys.get(USER)!.apiKey,
    }).createOrder(
      { resource: "energy", targetAddress: ADDRESS_A, volume: 65000, duration: "1h" },
      randomBytes(8).toString("hex"),
    );
    await followOrder(db, USER, order.id, now - 5_000);

    const spawn = async (id: string, slow: boolean) => {
      const calls: TaggedCall[] = [];
      // The first replica's marketplace answers its reads of notifications and orders 30 s late.
      const toMarket = await startTaggedProxy(marketplaceUrl, id, calls, {
        answerDelayMs: (call) =>
          slow && call.method === "GET" && /^\/api\/v1\/(notifications|orders\/)/.test(call.path) ? 30_000 : 0,
      });
      const toTelegram = await startTaggedProxy(telegram.apiRoot, id, []);
      servers.push(toMarket.server, toTelegram.server);
      const replica = await spawnReplica(id, {
        telegramApiRoot: toTelegram.url,
        marketplaceUrl: toMarket.url,
        databaseUrl,
        secretKey,
        mode: "webhook",
        extra: { NOTIFICATIONS_POLL: "* * * * * *" },
      });
      replicas.push(replica);
      await waitReady(replica);
      return { replica, calls };
    };
    const userKey = keys.get(USER)!.apiKey;
    const waiting = (calls: TaggedCall[], path: RegExp) =>
      calls.some(
        (call) =>
          call.apiKey === userKey && path.test(call.path) && call.status !== undefined && call.answeredAt === undefined,
      );

    // --- the first replica: a poll of the user and a check of their order wait on the marketplace
    const first = await spawn("first", true);
    await waitUntil(
      () => waiting(first.calls, /^\/api\/v1\/notifications/) && waiting(first.calls, /^\/api\/v1\/orders\//),
      20_000,
      "a poll and an order check in flight",
    );
    expect(
      (
        await db
          .selectFrom("poll_state")
          .select("lease_owner")
          .where("telegram_id", "=", USER)
          .executeTakeFirstOrThrow()
      ).lease_owner,
    ).toBe("first");
    expect(
      (
        await db
          .selectFrom("followed_orders")
          .select("lease_owner")
          .where("order_id", "=", order.id)
          .executeTakeFirstOrThrow()
      ).lease_owner,
    ).toBe("first");

    // --- SIGTERM: it stops within its shutdown budget and holds nothing any more
    const exited = new Promise<number | null>((resolve) => first.replica.child.once("exit", (code) => resolve(code)));
    first.replica.child.kill("SIGTERM");
    expect(await exited).toBe(0);
    expect(
      await db.selectFrom("poll_state").select("telegram_id").where("lease_owner", "=", "first").execute(),
    ).toEqual([]);
    expect(
      await db.selectFrom("followed_orders").select("order_id").where("lease_owner", "=", "first").execute(),
    ).toEqual([]);
    expect(await db.selectFrom("outbox").select("id").where("lease_owner", "=", "first").execute()).toEqual([]);

    // Another user is still held by a replica that died, not done in the open cycle.
    await db
      .updateTable("poll_state")
      .set({ last_cycle: 0, lease_owner: "dead", lease_until: Date.now() + 600_000 })
      .where("telegram_id", "=", HELD)
      .execute();

    // --- the replacement polls the user at once, and again on the next ticks
    const second = await spawn("second", false);
    const polledBySecond = () =>
      second.calls.filter(
        (call) =>
          call.apiKey === userKey && call.path.startsWith("/api/v1/notifications") && call.answeredAt !== undefined,
      ).length;
    await waitUntil(() => polledBySecond() >= 1, 10_000, "the replacement to poll the user");
    sandbox.control.addNotification({
      accountId: keys.get(USER)!.accountId,
      title: "Raised after the restart",
      body: "maintenance at 03:00 UTC",
    });
    const raisedAt = Date.now();
    await waitUntil(
      () =>
        telegram.fake
          .messages(USER)
          .some((message) => message.from === "bot" && message.text?.includes("Raised after the restart")),
      20_000,
      "the alert for the notification raised after the restart",
    );
    expect(Date.now() - raisedAt).toBeLessThan(20_000);
    expect(
      (
        await db
          .selectFrom("poll_state")
          .select("lease_owner")
          .where("telegram_id", "=", HELD)
          .executeTakeFirstOrThrow()
      ).lease_owner,
    ).toBe("dead");

    // The order the first replica was checking is followed by the replacement: settled, told once.
    sandbox.control.settleNow({ accountId: keys.get(USER)!.accountId });
    await waitUntil(
      () =>
        telegram.fake
          .messages(USER)
          .some((message) => message.from === "bot" && message.text?.includes(order.id.slice(0, 8))),
      20_000,
      "the settlement alert",
    );
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    expect(
      telegram.fake
        .messages(USER)
        .filter((message) => message.from === "bot" && message.text?.includes("Raised after the restart")),
    ).toHaveLength(1);
    expect(
      telegram.fake
        .messages(USER)
        .filter((message) => message.from === "bot" && message.text?.includes(order.id.slice(0, 8))),
    ).toHaveLength(1);
  }, 120_000);
});
