import { spawn, type ChildProcess } from "node:child_process";
import { randomBytes } from "node:crypto";
import { createServer, request as httpRequest, type IncomingMessage, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { serve } from "@hono/node-server";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { telegramWebhookSecret } from "../../src/app";
import { migrateToLatest, openDatabase } from "../../src/db/connection";
import { saveApiKey } from "../../src/db/repos/credentials";
import { upsertUser } from "../../src/db/repos/users";
import { rotateWebhookToken } from "../../src/db/repos/webhook-tokens";
import { createMarketplaceClient } from "../../src/marketplace";
import { openPollCycle } from "../../src/push/notification-poller";
import { followOrder } from "../../src/push/order-follower";
import { createSandbox } from "../../src/sandbox";
import { SecretBox } from "../../src/security/secret-box";
import { createChatUser, startFakeTelegram, type StartedFakeTelegram } from "../kit/telegram-driver";
import { createPostgresTestDatabase, TEST_DATABASE_URL, type TestDatabase } from "../kit/test-database";
import { ADDRESS_A, BOT_TOKEN } from "../kit/world";
import { freePort } from "../kit/net";

/**
 * Three bot processes (`node src/main.ts`, webhook mode) on one PostgreSQL database, one fake
 * Telegram (rate limits on) behind a small round-robin load balancer, and the sandbox marketplace.
 * One replica is killed with SIGKILL in the middle.
 */
const USERS = 1_000;
const WEBHOOK_USERS = 100; // × 3 webhooks each = 300
const NOTIFIED_USERS = 200; // get one new notification each for the poll cycle
const ORDER_USERS = 20; // place an order followed to settlement
const FIRST_ID = 2_000_001;
const LEASE_MS = 4_000;

const name = TEST_DATABASE_URL
  ? "three replicas on one PostgreSQL: work shared by leases, nothing lost or sent twice"
  : "three replicas on one PostgreSQL (skipped: TEST_DATABASE_URL is unset; this needs a PostgreSQL server, CI always sets it)";

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function waitUntil(check: () => boolean | Promise<boolean>, timeoutMs: number, what: string): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(100);
  }
}


interface Replica {
  id: string;
  port: number;
  url: string;
  child: ChildProcess;
  alive: boolean;
  out: () => string;
}

/** A round-robin HTTP load balancer that skips backends refusing connections; records who got what. */
function startBalancer(backends: () => Replica[]) {
  let next = 0;
  const routed: Array<{ path: string; replica: string; body: string }> = [];
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      const body = Buffer.concat(chunks);
      const attempt = (tries: number) => {
        const alive = backends().filter((b) => b.alive);
        if (alive.length === 0 || tries > 6) {
          res.writeHead(502).end();
          return;
        }
        const backend = alive[next++ % alive.length]!;
        const proxied = httpRequest(
          { host: "127.0.0.1", port: backend.port, path: req.url, method: req.method, headers: req.headers },
          (answer: IncomingMessage) => {
            routed.push({ path: req.url ?? "", replica: backend.id, body: body.toString() });
            res.writeHead(answer.statusCode ?? 502, answer.headers);
            answer.pipe(res);
          },
        );
        proxied.on("error", () => attempt(tries + 1));
        proxied.end(body);
      };
      attempt(0);
    });
  });
  return { server, routed };
}

describe.skipIf(!TEST_DATABASE_URL)(name, () => {
  let database: TestDatabase;
  let db: Awaited<ReturnType<typeof openDatabase>>["db"];
  let telegram: StartedFakeTelegram;
  let sandboxServer: ReturnType<typeof serve>;
  let balancer: ReturnType<typeof startBalancer>;
  let balancerUrl: string;
  const replicas: Replica[] = [];
  const secretKey = randomBytes(32).toString("base64");
  const sandbox = createSandbox({ now: () => new Date(), settleDelayMs: 0 });
  const notificationPolls = new Map<string, number>();
  let countPolls = false;

  beforeAll(async () => {
    database = await createPostgresTestDatabase("bot_scale");
    ({ db } = await openDatabase(database.url, { poolMax: 5 }));
    await migrateToLatest(db);

    sandboxServer = await new Promise((resolve) => {
      const started = serve(
        {
          fetch: (req: Request) => {
            const path = new URL(req.url).pathname;
            if (countPolls && req.method === "GET" && path === "/api/v1/notifications") {
              const key = req.headers.get("x-api-key") ?? "";
              notificationPolls.set(key, (notificationPolls.get(key) ?? 0) + 1);
            }
            return sandbox.app.fetch(req);
          },
          port: 0,
          hostname: "127.0.0.1",
        },
        () => resolve(started),
      );
    });
    telegram = await startFakeTelegram({ token: BOT_TOKEN, rateLimits: { enabled: true } });
    balancer = startBalancer(() => replicas);
    await new Promise<void>((resolve) => balancer.server.listen(0, "127.0.0.1", () => resolve()));
    balancerUrl = `http://127.0.0.1:${(balancer.server.address() as AddressInfo).port}`;
  }, 60_000);

  afterAll(async () => {
    for (const replica of replicas) if (replica.alive) replica.child.kill("SIGKILL");
    await db?.destroy();
    await telegram?.close();
    await new Promise<void>((resolve) => (balancer ? balancer.server.close(() => resolve()) : resolve()));
    await new Promise<void>((resolve) => (sandboxServer ? sandboxServer.close(() => resolve()) : resolve()));
    await database?.drop();
  }, 60_000);

  it("300 webhooks, a poll cycle over 1,000 users and followed orders over three replicas, one SIGKILLed midway: every alert once, in order, within Telegram's limits; a double tap on Confirm at two replicas places one order", async () => {
    const marketplaceUrl = `http://127.0.0.1:${(sandboxServer.address() as AddressInfo).port}`;
    const box = new SecretBox(secretKey);
    const now = Date.now();

    // --- users: 1,000 linked users (plus one who will tap Confirm twice), chats known to Telegram
    const keys = new Map<number, { accountId: string; apiKey: string }>();
    const ids = Array.from({ length: USERS }, (_, i) => FIRST_ID + i);
    const tapper = 2_900_001;
    for (const id of [...ids, tapper]) {
      const { accountId } = sandbox.control.createAccount({ trx: "5000", usdt: "0" });
      const { apiKey } = sandbox.control.createKey({ accountId, scope: "purchase" });
      keys.set(id, { accountId, apiKey });
      await upsertUser(db, id, id, now);
      await saveApiKey(db, box, id, apiKey, now);
      telegram.fake.sendText({ id, firstName: `U${id}`, languageCode: "en" }, "hi");
    }
    await db
      .insertInto("poll_state")
      .values(ids.map((id) => ({ telegram_id: id, primed: 1, failures: 0, next_poll_at: 0 })))
      .execute();
    // Those "hi" messages only make the chats known to Telegram: drain them before any bot runs.
    for (let offset = 0; ; ) {
      const answer = (await (await fetch(`${telegram.apiRoot}/bot${BOT_TOKEN}/getUpdates`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ offset, limit: 100, timeout: 0 }) })).json()) as { result: Array<{ update_id: number }> };
      if (answer.result.length === 0) break;
      offset = answer.result.at(-1)!.update_id + 1;
    }
    const tokens = new Map<number, string>();
    for (const id of ids.slice(0, WEBHOOK_USERS)) tokens.set(id, await rotateWebhookToken(db, id, now));
    for (const id of ids.slice(WEBHOOK_USERS, WEBHOOK_USERS + NOTIFIED_USERS)) sandbox.control.addNotification({ accountId: keys.get(id)!.accountId, title: `Maintenance for ${id}`, body: "The provider restarts at 03:00 UTC" });

    // --- three replicas
    for (const id of ["r1", "r2", "r3"]) {
      const port = await freePort();
      const child = spawn(process.execPath, ["--import", "tsx", "src/main.ts"], {
        env: {
          PATH: process.env.PATH ?? "",
          NODE_ENV: "production",
          BOT_TOKEN,
          TELEGRAM_API_ROOT: telegram.apiRoot,
          MARKETPLACE_URL: marketplaceUrl,
          DATABASE_URL: database.url,
          DATABASE_POOL_MAX: "8",
          SECRET_KEY: secretKey,
          BOT_MODE: "webhook",
          PUBLIC_URL: "https://bot.example.com",
          HOST: "127.0.0.1",
          PORT: String(port),
          NOTIFICATIONS_POLL: "0 0 1 1 *",
          LOG_LEVEL: "info",
          REPLICA_ID: id,
          LEASE_MS: String(LEASE_MS),
        },
        stdio: ["ignore", "pipe", "pipe"],
      });
      let output = "";
      child.stdout!.on("data", (chunk) => (output += chunk));
      child.stderr!.on("data", (chunk) => (output += chunk));
      const replica: Replica = { id, port, url: `http://127.0.0.1:${port}`, child, alive: true, out: () => output };
      child.on("exit", () => (replica.alive = false));
      replicas.push(replica);
    }
    for (const replica of replicas) {
      await waitUntil(async () => (await fetch(`${replica.url}/readyz`).catch(() => null))?.ok === true, 40_000, `${replica.id} to be ready\n${replica.out()}`);
    }
    // Each replica registered the public https URL; point the fake Telegram at the balancer instead.
    const setWebhook = await fetch(`${telegram.apiRoot}/bot${BOT_TOKEN}/setWebhook`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ url: `${balancerUrl}/telegram`, secret_token: telegramWebhookSecret(secretKey) }) });
    expect(setWebhook.ok).toBe(true);

    // --- orders placed for 20 users, followed until they settle
    const orderIds: Array<{ id: number; orderId: string }> = [];
    for (const id of ids.slice(WEBHOOK_USERS + NOTIFIED_USERS, WEBHOOK_USERS + NOTIFIED_USERS + ORDER_USERS)) {
      const client = createMarketplaceClient({ baseUrl: marketplaceUrl, apiKey: () => keys.get(id)!.apiKey });
      const order = await client.createOrder({ resource: "energy", targetAddress: ADDRESS_A, volume: 65000, duration: "1h" }, randomBytes(8).toString("hex"));
      await followOrder(db, id, order.id, Date.now() - 5_000);
      orderIds.push({ id, orderId: order.id });
    }

    // --- everything at once: the poll cycle, the webhooks, settlement; SIGKILL r3 in the middle
    countPolls = true;
    const cycle = await openPollCycle(db, "test", Date.now(), Date.now());
    for (const { id } of orderIds) sandbox.control.settleNow({ accountId: keys.get(id)!.accountId });
    // the alert names the first 8 characters of the order id: k then the 7-digit user id
    const webhookOrder = (id: number, k: number) => `${k}${id}-0000-4000-8000-00000000000${k}`;
    const expected = new Map<number, string[]>(); // chat → alert markers, in the order they must arrive
    let posted = 0;
    let killedAt: { leasedAlerts: number[]; leasedUsers: number[] } | null = null;
    const post = async (id: number, k: number) => {
      const body = JSON.stringify({ event: "order.filled", data: { id: webhookOrder(id, k), status: "filled", resource: "energy", volume: 65000, targetAddress: ADDRESS_A, totalTrx: "3.5" } });
      for (let attempt = 0; ; attempt++) {
        const replica = replicas[(id + k + attempt) % replicas.length]!;
        const answer = await fetch(`${replica.url}/webhooks/marketplace/${tokens.get(id)!}`, { method: "POST", headers: { "content-type": "application/json" }, body }).catch(() => null);
        if (answer?.ok) break; // a marketplace retries elsewhere until acknowledged
        if (attempt > 10) throw new Error("webhook never acknowledged");
      }
      posted += 1;
    };
    const webhookUsers = ids.slice(0, WEBHOOK_USERS);
    for (const id of webhookUsers) expected.set(id, [1, 2, 3].map((k) => webhookOrder(id, k).slice(0, 8)));
    const posting = Promise.all(
      webhookUsers.map(async (id, index) => {
        await sleep(index * 15);
        for (const k of [1, 2, 3]) await post(id, k);
      }),
    );
    const sentAlerts = () => telegram.fake.calls.filter((c) => c.method === "sendMessage" && c.ok).length;
    await waitUntil(() => sentAlerts() >= 120, 60_000, "alerts to start flowing");
    const victim = replicas[2]!;
    victim.child.kill("SIGKILL");
    victim.alive = false;
    await new Promise((resolve) => victim.child.once("exit", resolve).once("error", resolve)).catch(() => undefined);
    killedAt = {
      leasedAlerts: (await db.selectFrom("outbox").select("id").where("lease_owner", "=", "r3").where("status", "=", "queued").execute()).map((r) => Number(r.id)),
      leasedUsers: (await db.selectFrom("poll_state").select("telegram_id").where("lease_owner", "=", "r3").execute()).map((r) => Number(r.telegram_id)),
    };
    await posting;
    expect(posted).toBe(300);

    for (const id of ids.slice(WEBHOOK_USERS, WEBHOOK_USERS + NOTIFIED_USERS)) expected.set(id, [`Maintenance for ${id}`]);
    for (const { id, orderId } of orderIds) expected.set(id, [orderId.slice(0, 8)]);
    const total = [...expected.values()].reduce((sum, list) => sum + list.length, 0);
    expect(total).toBe(300 + NOTIFIED_USERS + ORDER_USERS);

    // every user polled in the cycle; every alert delivered
    await waitUntil(async () => (await db.selectFrom("poll_state").select("telegram_id").where("last_cycle", "<", cycle).execute()).length === 0, 90_000, "the poll cycle to cover every user");
    await waitUntil(async () => (await db.selectFrom("outbox").select("id").where("status", "=", "queued").execute()).length === 0, 120_000, "the outbox to drain");
    await waitUntil(() => [...expected.entries()].every(([chat, markers]) => markers.every((m) => telegram.fake.messages(chat).some((msg) => msg.from === "bot" && msg.text?.includes(m)))), 30_000, "every alert to arrive");
    await sleep(1_500);

    // exactly once each, in order per chat (a row in flight at the killed replica may be sent twice: at-least-once at the very instant of a crash)
    const inFlight = new Set((await db.selectFrom("outbox").select(["chat_id", "dedupe_key"]).where("id", "in", killedAt.leasedAlerts.length ? killedAt.leasedAlerts : [-1]).execute()).map((r) => Number(r.chat_id)));
    for (const [chat, markers] of expected) {
      const texts = telegram.fake.messages(chat).filter((m) => m.from === "bot").map((m) => m.text ?? "");
      const positions = markers.map((marker) => texts.findIndex((t) => t.includes(marker)));
      expect(positions.every((p) => p >= 0), `chat ${chat} got every alert`).toBe(true);
      expect([...positions].sort((a, b) => a - b), `chat ${chat} in order`).toEqual(positions);
      if (!inFlight.has(chat)) for (const marker of markers) expect(texts.filter((t) => t.includes(marker)).length, `chat ${chat}: ${marker} once`).toBe(1);
    }
    const outbox = await db.selectFrom("outbox").select(["status"]).execute();
    expect(outbox.length).toBeGreaterThanOrEqual(total);
    expect(outbox.every((row) => row.status === "sent")).toBe(true);

    // no user polled twice in the cycle (a user the killed replica held may have been asked again)
    for (const id of ids) {
      const polls = notificationPolls.get(keys.get(id)!.apiKey) ?? 0;
      if (!killedAt.leasedUsers.includes(id)) expect(polls, `user ${id} polled once`).toBe(1);
      else expect(polls).toBeLessThanOrEqual(2);
    }

    // Telegram's limits held overall: no 429 from the fake's flood control; the shared budget grants
    // at most 29 in any second, so even with arrivals bunched by up to 50 ms of network and event-loop
    // jitter between three processes, no 950 ms holds more than 30; ≥ 1 s between two messages to one chat
    const sends = telegram.fake.calls.filter((c) => c.method === "sendMessage");
    expect(sends.filter((c) => c.throttled)).toHaveLength(0);
    const times = sends.map((c) => c.at).sort((a, b) => a - b);
    for (let i = 0; i + 30 < times.length; i++) expect(times[i + 30]! - times[i]!).toBeGreaterThanOrEqual(950);
    const byChat = new Map<number, number[]>();
    for (const call of sends) byChat.set(Number(call.params.chat_id), [...(byChat.get(Number(call.params.chat_id)) ?? []), call.at]);
    for (const list of byChat.values()) for (let i = 1; i < list.length; i++) expect(list[i]! - list[i - 1]!).toBeGreaterThanOrEqual(950);

    for (const replica of replicas.slice(0, 2)) {
      const metrics = await (await fetch(`${replica.url}/metrics`)).text();
      expect(metrics).toContain(`replica_info{replica="${replica.id}",dialect="postgres"} 1`);
      expect(metrics).toMatch(/outbox_queue_depth 0/);
    }

    // --- a double tap on Confirm whose two callbacks reach two different replicas places one order
    const user = createChatUser(telegram.fake, { id: tapper, firstName: "Tapper", languageCode: "en" });
    user.send(`/buy energy 65000 1h ${ADDRESS_A}`);
    const card = await user.nextMessage({ timeoutMs: 20_000 });
    expect(card.text).toContain("TRX");
    user.press("✅ Confirm");
    user.press("✅ Confirm");
    await waitUntil(() => telegram.fake.messages(tapper).some((m) => m.from === "bot" && /Order placed/.test(m.text ?? "")), 20_000, "the order to be placed");
    await sleep(1_500);
    const callbacks = balancer.routed.filter((r) => r.path === "/telegram" && r.body.includes('"callback_query"') && r.body.includes(String(tapper)));
    expect(callbacks).toHaveLength(2);
    expect(new Set(callbacks.map((c) => c.replica)).size).toBe(2);
    expect(sandbox.control.listOrders(keys.get(tapper)!.accountId)).toHaveLength(1);
  }, 300_000);
});
