import { Api, type Transformer } from "grammy";
import { afterEach, describe, expect, it } from "vitest";
import { telegramWebhookSecret } from "#src/app";
import { rotateWebhookToken } from "#src/db/repos/webhook-tokens";
import { startDatabaseOutageProxy, type DatabaseOutageProxy } from "../kit/db-outage-proxy";
import { createPostgresTestDatabase, TEST_DATABASE_URL, type TestDatabase } from "../kit/test-database";
import { BOT_TOKEN, linkKey, startWorld, type World } from "../kit/world";
import { botTexts, pause, waitFor } from "../kit/push-helpers";

const OUTAGE_MS = 30_000;
const filled = (orderId: string) => ({
  event: "order.filled",
  data: { id: orderId, status: "Filled", resource: "energy", volume: "65000", totalTrx: "4.6475" },
});
/** Order ids whose first 8 characters (what the alert shows) tell them apart. */
const orderId = (n: number) => `${String(70_000_000 + n)}-0000-4000-8000-000000000000`;

interface Traffic {
  /** Order ids the marketplace got a 200 for, and when (before, during or after the outage). */
  acknowledged: Map<string, number>;
  /** Every status the marketplace webhook answered. */
  statuses: Map<number, number>;
  /** Commands the users sent ("/o12z"): each must be answered exactly once. */
  commands: Array<{ chatId: number; text: string }>;
  stop(): Promise<void>;
}

/**
 * The marketplace posts a new settlement every 500 ms, to each user in turn, and sends an
 * unanswered (non-2xx) one again a second later, as it does; the users send a command every
 * second between them (each one every 4 s: below the flood limit even when a 30 s backlog
 * arrives at once).
 */
function startTraffic(world: World, users: Array<{ chatId: number; webhookUrl: string }>): Traffic {
  const acknowledged = new Map<string, number>();
  const statuses = new Map<number, number>();
  const commands: Array<{ chatId: number; text: string }> = [];
  let running = true;
  const deliveries: Array<Promise<void>> = [];
  const deliver = async (url: string, id: string): Promise<void> => {
    for (;;) {
      const answer = await fetch(url, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify(filled(id)),
      }).catch(() => null);
      const status = answer?.status ?? 0;
      await answer?.body?.cancel();
      statuses.set(status, (statuses.get(status) ?? 0) + 1);
      if (status === 200) {
        acknowledged.set(id, Date.now());
        return;
      }
      await pause(1_000);
    }
  };
  let n = 0;
  const events = setInterval(() => {
    if (!running) return;
    n += 1;
    const user = users[n % users.length]!;
    deliveries.push(deliver(user.webhookUrl, orderId(n)));
  }, 500);
  let m = 0;
  const chat = setInterval(() => {
    if (!running) return;
    m += 1;
    const user = users[m % users.length]!;
    const text = `/o${m}z`;
    world.fake.sendText({ id: user.chatId, firstName: `User${user.chatId}`, languageCode: "en" }, text);
    commands.push({ chatId: user.chatId, text });
  }, 1_000);
  return {
    acknowledged,
    statuses,
    commands,
    async stop() {
      running = false;
      clearInterval(events);
      clearInterval(chat);
      await Promise.all(deliveries);
    },
  };
}

const readyStatus = (world: World) =>
  fetch(`${world.app.url}/readyz`)
    .then(async (answer) => {
      await answer.body?.cancel();
      return answer.status;
    })
    .catch(() => 0);

/**
 * A Bot API transformer that holds the first sendMessage whose parameters contain `text` until
 * `release()`, then answers it with `answer` (or passes it on to Telegram); `reached` resolves
 * when it is held.
 */
function holdSend(text: string, answer?: { ok: false; error_code: number; description: string }) {
  let reached!: () => void;
  let release!: () => void;
  const released = new Promise<void>((resolve) => (release = resolve));
  let held = false;
  const transformer: Transformer = async (prev, method, payload, signal) => {
    if (held || method !== "sendMessage" || !JSON.stringify(payload).includes(text))
      return prev(method, payload, signal);
    held = true;
    reached();
    await released;
    return answer ? (answer as never) : prev(method, payload, signal);
  };
  return { transformer, reached: new Promise<void>((resolve) => (reached = resolve)), release };
}

/** The log lines (parsed) of `text`, the captured log or a part of it. */
const parsedLog = (text: string) =>
  text
    .split("\n")
    .filter(Boolean)
    .map((line) => JSON.parse(line) as { level: number; msg: string });

const pgOnly = TEST_DATABASE_URL
  ? ""
  : " (skipped: TEST_DATABASE_URL is unset; SQLite has no server to lose, this needs PostgreSQL)";

describe.skipIf(!TEST_DATABASE_URL)(`a PostgreSQL outage${pgOnly}`, () => {
  let world: World | null = null;
  let proxy: DatabaseOutageProxy | null = null;
  let database: TestDatabase | null = null;
  afterEach(async () => {
    proxy?.up();
    await world?.stop();
    await proxy?.close();
    await database?.drop();
    world = null;
    proxy = null;
    database = null;
  });

  /** A world (in webhook mode unless `polling`) whose database is reached through the outage proxy. */
  const startOutageWorld = async (
    env: Record<string, string> = {},
    polling = false,
  ): Promise<{ world: World; proxy: DatabaseOutageProxy }> => {
    database = await createPostgresTestDatabase("bot_outage");
    proxy = await startDatabaseOutageProxy(database.url);
    world = await startWorld({
      env: {
        DATABASE_URL: proxy.url,
        ...(polling ? {} : { BOT_MODE: "webhook", PUBLIC_URL: "https://bot.example.com" }),
        ...env,
      },
    });
    if (polling) return { world, proxy };
    // Telegram posts the updates to this bot's /telegram (the app registered its public address).
    const secret = telegramWebhookSecret(world.env.SECRET_KEY!);
    await fetch(`${world.telegram.apiRoot}/bot${BOT_TOKEN}/setWebhook`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ url: `${world.app.url}/telegram`, secret_token: secret }),
    });
    return { world, proxy };
  };

  it(
    "nothing exits or spins, /readyz follows the database, no webhook is acknowledged unstored, every event gives one alert and every update one answer, and the log says it once each way",
    { timeout: 150_000 },
    async () => {
      const { world, proxy } = await startOutageWorld();

      const users: Array<{ chatId: number; webhookUrl: string }> = [];
      for (const chatId of [4101, 4102, 4103, 4104]) {
        await linkKey(world, world.user(chatId), world.newAccount().apiKey);
        const token = await rotateWebhookToken(world.app.db, chatId, Date.now());
        users.push({ chatId, webhookUrl: `${world.app.url}/webhooks/marketplace/${token}` });
      }
      const crashes: unknown[] = [];
      const onCrash = (error: unknown) => crashes.push(error);
      process.on("uncaughtException", onCrash);
      process.on("unhandledRejection", onCrash);
      try {
        const traffic = startTraffic(world, users);
        await pause(3_000);
        expect(traffic.acknowledged.size).toBeGreaterThan(0);

        const logOffset = world.logs().length;
        const cpuBefore = process.cpuUsage();
        const refusedBefore = traffic.statuses.get(503) ?? 0;
        proxy.down();
        const outageStarted = Date.now();
        const readyDuring: number[] = [];
        while (Date.now() - outageStarted < OUTAGE_MS) {
          await pause(2_000);
          readyDuring.push(await readyStatus(world));
        }
        const cpu = process.cpuUsage(cpuBefore);
        // Webhook deliveries answered 503 during the outage: each may have tried the database once.
        const refusedDeliveries = (traffic.statuses.get(503) ?? 0) - refusedBefore;
        const connectionsTried = proxy.refused();
        const outageLog = world.logs().slice(logOffset);
        proxy.up();
        const backAt = Date.now();
        await waitFor(async () => (await readyStatus(world)) === 200, 15_000);
        const readyAfterMs = Date.now() - backAt;

        await pause(5_000);
        await traffic.stop();
        const all = [...traffic.acknowledged.keys()];
        const chatOf = (id: string) => users[Number(id.slice(0, 8)) % users.length]!.chatId;
        const alertsFor = (id: string) =>
          botTexts(world, chatOf(id)).filter((text) => text.includes(`Order ${id.slice(0, 8)}`)).length;
        const answersTo = (command: { chatId: number; text: string }) =>
          botTexts(world, command.chatId).filter((text) => text.includes(command.text)).length;
        await waitFor(
          () => all.every((id) => alertsFor(id) >= 1) && traffic.commands.every((command) => answersTo(command) >= 1),
          90_000,
        );
        await pause(1_500);

        // Nothing exited or crashed, and the outage cost little CPU: nothing retried in a tight loop.
        expect(crashes).toEqual([]);
        expect((await fetch(`${world.app.url}/healthz`)).status).toBe(200);
        const cpuMs = (cpu.user + cpu.system) / 1000;
        expect(cpuMs, `CPU during the outage: ${Math.round(cpuMs)} ms`).toBeLessThan(OUTAGE_MS * 0.25);
        // Beyond one try per refused delivery, the bot's own work tried the database a few times a
        // second at most (a loop retrying at once would try it thousands of times).
        expect(
          connectionsTried - refusedDeliveries,
          `connections tried: ${connectionsTried}, deliveries refused: ${refusedDeliveries}`,
        ).toBeLessThan(OUTAGE_MS / 200);
        // /readyz: 503 all through the outage, 200 within 10 s after.
        expect(new Set(readyDuring)).toEqual(new Set([503]));
        expect(readyAfterMs).toBeLessThan(10_000);
        // The marketplace heard 200 (stored) or 503 (send it again), never anything else.
        expect([...traffic.statuses.keys()].sort()).toEqual([200, 503]);
        // Every acknowledged event, before, during and after the outage: exactly one alert.
        // Nothing is acknowledged while the database is away (a commit in flight as it went may be, at once).
        const acknowledgedDuring = [...traffic.acknowledged.values()].filter(
          (at) => at >= outageStarted + 1_000 && at < backAt,
        ).length;
        // Enough events to mean something: one every 500 ms is sent (about 75 over the run on a quiet
        // machine); a loaded one (this file runs beside another heavy one) sends fewer.
        expect(all.length).toBeGreaterThan(30);
        expect(all.filter((id) => alertsFor(id) !== 1)).toEqual([]);
        // Every update Telegram delivered: answered exactly once.
        expect(traffic.commands.length).toBeGreaterThan(30);
        expect(traffic.commands.filter((command) => answersTo(command) !== 1)).toEqual([]);
        // The log: once unreachable, once back; no line per failed request or loop pass.
        const log = parsedLog(world.logs());
        expect(log.filter((line) => line.msg.startsWith("database unreachable")).length).toBe(1);
        expect(log.filter((line) => line.msg === "database reachable again").length).toBe(1);
        expect(
          parsedLog(outageLog)
            .filter((line) => line.level >= 40)
            .map((line) => line.msg.split(":")[0]),
        ).toEqual(["database unreachable"]);
        expect(acknowledgedDuring).toBe(0);
      } finally {
        process.off("uncaughtException", onCrash);
        process.off("unhandledRejection", onCrash);
      }
    },
  );

  it(
    "an update whose reply failed as the database went away (so its turn could not be given back) is handled once the database is back",
    { timeout: 60_000 },
    async () => {
      const { world, proxy } = await startOutageWorld();
      // The reply to /late1z reaches Telegram while the database is still there; Telegram answers it
      // with a 502 just after the database went away.
      const reply = holdSend("/late1z", { ok: false, error_code: 502, description: "Bad Gateway" });
      world.app.bot.api.config.use(reply.transformer);
      const user = world.user(4201);
      user.send("/hi1z");
      await user.nextMessage();
      user.send("/late1z");
      await reply.reached;
      proxy.down();
      await pause(300);
      reply.release();
      // Telegram delivers it again every second; the database refuses; then it is back.
      await pause(3_000);
      proxy.up();
      const answers = () => botTexts(world, 4201).filter((text) => text.includes("/late1z")).length;
      await waitFor(() => answers() > 0, 20_000);
      await pause(1_500);
      expect(answers()).toBe(1);
    },
  );
  it(
    "in polling mode the replica stops polling while the database is away and answers what was sent meanwhile once it is back; the log says it once each way",
    { timeout: 60_000 },
    async () => {
      const { world, proxy } = await startOutageWorld({}, true);
      const user = world.user(4301);
      user.send("/before1z");
      await user.nextMessage();
      const logOffset = world.logs().length;
      proxy.down();
      // Past a lease renewal or two: the replica no longer leads, so nothing is fetched meanwhile.
      await pause(6_000);
      user.send("/during1z");
      await pause(6_000);
      proxy.up();
      const answers = () => botTexts(world, 4301).filter((text) => text.includes("/during1z")).length;
      await waitFor(() => answers() > 0, 20_000);
      await pause(1_500);
      expect(answers()).toBe(1);
      const lines = parsedLog(world.logs().slice(logOffset));
      expect(lines.filter((line) => line.msg.startsWith("database unreachable")).length).toBe(1);
      expect(lines.filter((line) => line.msg === "database reachable again").length).toBe(1);
      // Above info: the outage once, and the lease lost once; nothing per tick or per update.
      expect(lines.filter((line) => line.level >= 40).map((line) => line.msg.split(":")[0])).toEqual([
        "database unreachable",
        "lost the lease",
      ]);
    },
  );

  it(
    "an alert Telegram accepted just as the database went away is recorded once it is back, not sent again when its claim runs out",
    { timeout: 60_000 },
    async () => {
      // Claims on alerts last 2 s here, so the outage outlives the claim.
      const { world, proxy } = await startOutageWorld({ LEASE_MS: "2000" });
      await linkKey(world, world.user(4401), world.newAccount().apiKey);
      const token = await rotateWebhookToken(world.app.db, 4401, Date.now());
      // The sender's sendMessage to Telegram is held until the database is gone, then goes through.
      const send = holdSend("71000001");
      const api = new Api(BOT_TOKEN, { apiRoot: world.telegram.apiRoot });
      api.config.use(send.transformer);
      await world.app.push.sender.stop(0);
      world.app.push.sender.start(api);
      const answer = await fetch(`${world.app.url}/webhooks/marketplace/${token}`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify(filled("71000001-0000-4000-8000-000000000000")),
      });
      expect(answer.status).toBe(200);
      await send.reached;
      proxy.down();
      await pause(300);
      send.release();
      await pause(4_000);
      proxy.up();
      const alerts = () => botTexts(world, 4401).filter((text) => text.includes("Order 71000001")).length;
      await waitFor(() => alerts() > 0, 10_000);
      // Past the claim's end and several sender cycles with the database back.
      await pause(4_000);
      expect(alerts()).toBe(1);
      const row = await world.app.db
        .selectFrom("outbox")
        .select("status")
        .where("telegram_id", "=", 4401)
        .executeTakeFirstOrThrow();
      expect(row.status).toBe("sent");
    },
  );
});
