import { afterEach, beforeEach } from "vitest";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Writable } from "node:stream";
import type { AddressInfo } from "node:net";
import { randomBytes } from "node:crypto";
import { serve } from "@hono/node-server";
import { startApp, type App, type AppOptions } from "#src/app";
import { updatesHandled, updatesInFlight } from "#src/bot/create-bot";
import { createSandbox, type Sandbox } from "#src/sandbox/index";
import { createChatUser, expectNoRejectedCalls, startFakeTelegram } from "./telegram-driver";
import { removeDatabaseDir } from "./temp-dir";
import { createPostgresTestDatabase, TEST_DATABASE_URL, type TestDatabase } from "./test-database";
import type { ChatMessage, FakeUser } from "#src/telegram-fake/index";

export const BOT_TOKEN = "123456789:AAEexampleexampleexampleexample0000";
export const ADDRESS_A = "TNPeeaaFB7K9cmo4uQpcU32zGK8G1NYqeL";
export const ADDRESS_B = "TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t";
export const ADDRESS_C = "TLa2f6VPqDgRE67v1736s7bJ8Ray5wYjU7";

export interface WorldOptions {
  env?: Record<string, string | undefined>;
  /**
   * Keep the database across restarts: a SQLite file, or with TEST_DATABASE_URL the world's own
   * PostgreSQL database (which survives restarts anyway); default ":memory:" / a fresh database.
   */
  file?: boolean;
  /** Always SQLite, even with TEST_DATABASE_URL (tests about SQLite itself). */
  sqlite?: boolean;
  rateLimits?: boolean;
  /** "typing…" as deployed (after 300 ms of work); off by default, so tests can count a chat's calls. */
  typing?: { afterMs: number; everyMs: number };
  /** A private chat's calls this many ms apart, as deployed (250); 0 by default, so tests run at machine speed. */
  chatPaceMs?: number;
  /** Double taps answered and dropped as deployed (within this many ms); off by default, since tests press again at machine speed. */
  doubleTapMs?: number;
  /** Run the bot's and the fake Telegram's clocks this many times faster than real time (rate-limit tests). */
  timeScale?: number;
  /** Bot API request and long-poll timeouts of the app (tests of polling robustness). */
  telegramTimeouts?: AppOptions["telegramTimeouts"];
  /** Retries of a Bot API call answered with 5xx or 429 (tests of failure paths use 0). */
  telegramServerErrorRetries?: number;
  /** How often webhook mode reads getWebhookInfo (default every minute). */
  webhookInfoEveryMs?: number;
  /** Bot API methods the fake Telegram refuses with a 400 (e.g. setMyCommands). */
  refuseMethods?: readonly string[];
  /**
   * Let the world stop although the fake recorded calls Telegram would have rejected (tests that
   * provoke rejections on purpose); by default stop() fails the test on any.
   */
  allowRejectedCalls?: boolean;
}

/**
 * The world of an end-to-end test: the sandbox marketplace and the fake Bot API over real HTTP,
 * and the real app (composition root) pointed at both. Log lines are captured for secret checks.
 */
export async function startWorld(options: WorldOptions = {}) {
  let clock = Date.now();
  const sandbox: Sandbox = createSandbox({ now: () => new Date(clock), settleDelayMs: 0 });
  // Every HTTP request the sandbox received ("GET /api/v1/…"), so a test can prove nothing was called.
  const sandboxRequests: string[] = [];
  // Requests the sandbox has not answered yet (a delayed fault holds one), so a test can wait them out.
  let sandboxInFlight = 0;
  const countedFetch: typeof sandbox.app.fetch = async (request, ...rest) => {
    sandboxRequests.push(`${request.method} ${new URL(request.url).pathname}`);
    sandboxInFlight += 1;
    try {
      return await sandbox.app.fetch(request, ...rest);
    } finally {
      sandboxInFlight -= 1;
    }
  };
  const sandboxServer = await new Promise<ReturnType<typeof serve>>((resolve) => {
    const started = serve({ fetch: countedFetch, port: 0, hostname: "127.0.0.1" }, () => resolve(started));
  });
  const marketplaceUrl = `http://127.0.0.1:${(sandboxServer.address() as AddressInfo).port}`;
  const origin = Date.now();
  const scale = options.timeScale ?? 1;
  let clockOffset = 0;
  const botNow = () => origin + (Date.now() - origin) * scale + clockOffset;
  const telegram = await startFakeTelegram(
    { token: BOT_TOKEN, rateLimits: { enabled: options.rateLimits ?? false }, now: botNow },
    { refuseMethods: options.refuseMethods },
  );
  const dir = mkdtempSync(join(tmpdir(), "bot-test-"));
  const logLines: string[] = [];
  const logDestination = new Writable({
    write(chunk, _encoding, callback) {
      logLines.push(chunk.toString());
      callback();
    },
  });
  const database: TestDatabase | null =
    TEST_DATABASE_URL && !options.sqlite && !options.env?.DATABASE_URL ? await createPostgresTestDatabase() : null;
  const env: Record<string, string | undefined> = {
    BOT_TOKEN,
    TELEGRAM_API_ROOT: telegram.apiRoot,
    MARKETPLACE_URL: marketplaceUrl,
    DATABASE_URL: database ? database.url : options.file ? `file:${join(dir, "bot.db")}` : ":memory:",
    SECRET_KEY: randomBytes(32).toString("base64"),
    HOST: "127.0.0.1",
    PORT: "0",
    LOG_LEVEL: "debug",
    NOTIFICATIONS_POLL: "0 0 1 1 *",
    MARKETPLACE_TIMEOUT_MS: "3000",
    ...options.env,
  };
  const boot = () =>
    startApp({
      env,
      logDestination,
      perChatMinTimeMs: options.chatPaceMs ?? 0,
      telegramTyping: options.typing ?? null,
      telegramDoubleTapMs: options.doubleTapMs ?? null,
      marketplaceBackoffMs: 5,
      now: botNow,
      telegramTimeouts: options.telegramTimeouts,
      telegramServerErrorRetries: options.telegramServerErrorRetries,
      webhookInfoEveryMs: options.webhookInfoEveryMs,
    });
  let allowRejectedCalls = options.allowRejectedCalls ?? false;
  let stopping: Promise<void> | null = null;
  let app: App = await boot();
  const replicas: App[] = [];

  const world = {
    sandbox,
    sandboxRequests,
    /** Requests to the sandbox not answered yet. */
    sandboxInFlight: () => sandboxInFlight,
    telegram,
    fake: telegram.fake,
    env,
    dir,
    /** Which database this world runs on ("postgres" when TEST_DATABASE_URL is set). */
    dialect: database ? ("postgres" as const) : ("sqlite" as const),
    marketplaceUrl,
    get app() {
      return app;
    },
    logs: () => logLines.join(""),
    advance(ms: number) {
      clock += ms;
    },
    /** Moves the app's (and the fake Telegram's) clock forward by `ms`, as time passing would. */
    shiftAppClock(ms: number) {
      clockOffset += ms;
    },
    user(id: number, user: Partial<FakeUser> = {}) {
      return createChatUser(telegram.fake, { id, firstName: `User${id}`, languageCode: "en", ...user });
    },
    /** A fresh sandbox account with a funded purchase-scope key. */
    newAccount(
      balance = { trx: "1000", usdt: "50" },
      scope: "read" | "purchase" | "full" = "purchase",
      dailyLimitTrx?: string,
    ) {
      const { accountId } = sandbox.control.createAccount(balance);
      const { apiKey } = sandbox.control.createKey({ accountId, scope, dailyLimitTrx });
      return { accountId, apiKey };
    },
    async restart() {
      await app.stop();
      app = await boot();
    },
    /**
     * Starts another replica of the bot on the same database (same configuration, this process),
     * stopped with the world. It polls Telegram once it holds the polling lease.
     */
    async startReplica(): Promise<App> {
      const replica = await boot();
      replicas.push(replica);
      return replica;
    },
    /**
     * Resolves once the bot handles no update: a guided flow's state is saved just after its
     * reply, so a test that reads the database after a reply waits for this first.
     */
    async settled(timeoutMs = 5000): Promise<void> {
      if (!(await updatesHandled(app.bot, timeoutMs)))
        throw new Error(`the bot was still handling ${updatesInFlight(app.bot)} update(s) after ${timeoutMs} ms`);
    },
    assertNoRejectedCalls() {
      expectNoRejectedCalls(telegram.fake);
    },
    /** Opts this world out of the rejected-call check at stop (the test provokes rejections). */
    allowRejectedCalls() {
      allowRejectedCalls = true;
    },
    /**
     * Stops everything (once; later calls wait for the first), then fails when the fake recorded
     * a call Telegram would have rejected, unless the world opted out: every world is checked,
     * whoever starts and stops it.
     */
    stop(): Promise<void> {
      stopping ??= (async () => {
        for (const replica of replicas) await replica.stop();
        await app.stop();
        await telegram.close();
        await new Promise<void>((resolve) => {
          sandboxServer.close(() => resolve());
          (sandboxServer as unknown as { closeAllConnections?: () => void }).closeAllConnections?.();
        });
        await database?.drop();
        // The world's SQLite file (when it had one) goes with it: runs of the suite left thousands behind.
        await removeDatabaseDir(dir);
      })();
      return stopping.then(() => {
        if (!allowRejectedCalls) expectNoRejectedCalls(telegram.fake);
      });
    },
  };
  return world;
}

export type World = Awaited<ReturnType<typeof startWorld>>;

/** Links a key through the one-line /connect and waits for the confirmation. */
export async function linkKey(world: World, user: ReturnType<World["user"]>, apiKey: string) {
  user.send(`/connect ${apiKey}`);
  return user.nextMessage();
}

/** A user `id` with a new sandbox account (`balance`) whose key they linked. */
export async function linkedUser(world: World, id: number, balance = { trx: "1000", usdt: "0" }) {
  const account = world.newAccount(balance);
  const user = world.user(id);
  await linkKey(world, user, account.apiKey);
  return { ...account, user };
}

/** The labels of a message's inline buttons, row after row. */
export const buttonLabels = (message: ChatMessage): string[] =>
  (message.replyMarkup?.inline_keyboard ?? []).flat().map((button) => button.text);
/** The colour (Bot API 9.4 `style`) of each button, by label: "success", "danger", "primary" or "none". */
export const buttonStyles = (message: ChatMessage): Record<string, string> =>
  Object.fromEntries(
    (message.replyMarkup?.inline_keyboard ?? []).flat().map((button) => [button.text, button.style ?? "none"]),
  );

/** The next new message or edit in the user's chat whose text passes `check`. */
export async function nextBotText(
  user: ReturnType<World["user"]>,
  check: (text: string) => boolean,
  timeoutMs = 8000,
): Promise<ChatMessage> {
  for (;;) {
    const event = await user.nextBotEvent({ timeoutMs });
    if (event.kind !== "delete" && check(event.message.text ?? "")) return event.message;
  }
}

/** A confirmation card's outcome after Confirm, past "processing…" and "checking…". */
export const cardOutcome = (user: ReturnType<World["user"]>): Promise<ChatMessage> =>
  nextBotText(user, (text) => !text.includes("Processing") && !text.includes("checking whether"));

/**
 * The step of the user's open guided question ("buy/address"), once the bot's writes settled: the
 * step stored beside a flow's state, or a first question's, asked before its flow is entered
 * (kept in `flows`); null when no question is open.
 */
export async function openStep(world: World, chatId: number): Promise<string | null> {
  await world.settled();
  const flow = await world.app.db
    .selectFrom("conversations")
    .select("step")
    .where("chat_id", "=", chatId)
    .executeTakeFirst();
  if (flow) return flow.step;
  const first = await world.app.db
    .selectFrom("flows")
    .select(["flow", "step"])
    .where("telegram_id", "=", chatId)
    .executeTakeFirst();
  return first && first.flow !== "connect" ? first.step : null;
}

/** The toast text the bot answered a button press with (waits up to 4 s for the answer). */
export async function callbackAnswerText(world: World, callbackQueryId: string): Promise<string> {
  for (let i = 0; i < 200; i++) {
    const answer = world.fake.callbackAnswers.find((candidate) => candidate.callbackQueryId === callbackQueryId);
    if (answer) return answer.text ?? "";
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  throw new Error(`callback ${callbackQueryId} was never answered`);
}

/**
 * Starts a fresh world before each test of the enclosing suite and stops it after; every test
 * fails when the fake recorded a call Telegram would have rejected (checked by stop(), after
 * the world stopped).
 */
export function manageWorld(assign: (world: World) => void, options?: WorldOptions): void {
  let current: World | null = null;
  beforeEach(async () => {
    current = await startWorld(options);
    assign(current);
  });
  afterEach(async () => {
    const stopping = current?.stop();
    current = null;
    await stopping;
  });
}
