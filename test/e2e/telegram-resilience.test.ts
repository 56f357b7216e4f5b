import { afterEach, describe, expect, it } from "vitest";
import { Bot } from "grammy";
import { Hono } from "hono";
import { BOT_TOKEN, startWorld, type World } from "../kit/world";
import { telegramWebhookSecret } from "#src/app";
import { registerTelegramWebhook } from "#src/server/routes/telegram-webhook";
import { createLogger } from "#src/logger";
import type { BotContext } from "#src/bot/context";
import type { ServerEnv } from "#src/server/create-server";

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Telegram's JSON for a private-chat text message (webhook mode: tests post updates themselves). */
function textUpdate(updateId: number, chatId: number, text: string) {
  const entities = text.startsWith("/")
    ? [{ type: "bot_command", offset: 0, length: text.split(" ")[0]!.length }]
    : undefined;
  return {
    update_id: updateId,
    message: {
      message_id: updateId,
      date: 0,
      chat: { id: chatId, type: "private", first_name: "W" },
      from: { id: chatId, is_bot: false, first_name: "W", language_code: "en" },
      text,
      entities,
    },
  };
}

describe("long polling", () => {
  let world: World;
  afterEach(async () => {
    await world.stop();
  });

  it("an idle bot with short Bot API timeouts still answers at once after several poll periods", async () => {
    // Request timeout 2 s: the long poll must end before it (1 s). Were the poll longer, every
    // idle poll would be aborted and retried with growing waits, and /help would wait for them.
    world = await startWorld({ telegramTimeouts: { requestSeconds: 2 } });
    const pollsSoFar = () => world.fake.calls.filter((call) => call.method === "getUpdates").length;
    // Several idle poll periods go by (each ends after 1 s with nothing).
    for (const deadline = Date.now() + 15_000; pollsSoFar() < 4 && Date.now() < deadline;) await sleep(50);
    const user = world.user(501);
    const pollsBefore = pollsSoFar();
    user.send("/help");
    const reply = await user.nextMessage({ timeoutMs: 5_000 });
    expect(reply.text).toContain("/connect");
    // "At once" counted in polls, not in time: the poll open when /help came (or the next) brought it.
    const replyAt = world.fake.calls.findIndex(
      (call) => call.method === "sendMessage" && Number(call.params.chat_id) === 501,
    );
    expect(
      world.fake.calls.slice(0, replyAt).filter((call) => call.method === "getUpdates").length - pollsBefore,
    ).toBeLessThanOrEqual(2);
    const polls = world.fake.calls.filter((call) => call.method === "getUpdates");
    expect(polls.length).toBeGreaterThanOrEqual(4);
    expect(polls.every((call) => call.ok && Number(call.params.timeout) === 1)).toBe(true);
    expect(world.logs()).not.toContain("retrying");
  });

  it("logs a refused setMyCommands and still answers /start", async () => {
    world = await startWorld({ refuseMethods: ["setMyCommands"] });
    const user = world.user(502);
    user.send("/start");
    expect((await user.nextMessage()).text).toContain("Welcome");
    const deadline = Date.now() + 5_000;
    while (!world.logs().includes("setMyCommands failed") && Date.now() < deadline) await sleep(20);
    expect(world.logs()).toContain("setMyCommands failed; the command menu may be out of date");
    expect(world.fake.commands("ru")).toEqual([]);
    const metrics = await (await fetch(`${world.app.url}/metrics`)).text();
    expect(metrics).toMatch(/telegram_api_calls_total\{method="setMyCommands",outcome="error"\} [1-9]/);
  });
});

describe("webhook mode under failure and shutdown", () => {
  let world: World;
  let post: (update: unknown) => Promise<Response>;
  const start = async () => {
    world = await startWorld({ env: { BOT_MODE: "webhook", PUBLIC_URL: "https://bot.example.com" } });
    const secret = telegramWebhookSecret(world.env.SECRET_KEY!);
    post = (update) =>
      fetch(`${world.app.url}/telegram`, {
        method: "POST",
        headers: { "content-type": "application/json", "x-telegram-bot-api-secret-token": secret },
        body: JSON.stringify(update),
      });
  };
  const sentTo = (chatId: number) =>
    world.fake.calls.filter(
      (call) => call.method === "sendMessage" && Number(call.params.chat_id) === chatId && call.ok,
    );
  afterEach(async () => {
    await world.stop();
  });

  it("answers 500 when handling failed, so Telegram redelivers; the redelivery is handled once", async () => {
    await start();
    world.fake.sendText({ id: 601, firstName: "W", languageCode: "en" }, "hello");
    const original = world.app.deps.db;
    // Every handler fails: the database object has lost its methods (the turn bookkeeping keeps its own).
    world.app.deps.db = {} as never;
    const update = textUpdate(7_001, 601, "/help");
    expect((await post(update)).status).toBe(500);
    expect(sentTo(601)).toHaveLength(0);
    world.app.deps.db = original;
    expect((await post(update)).status).toBe(200);
    expect((await post(update)).status).toBe(200);
    expect(sentTo(601)).toHaveLength(1);
    expect(String(sentTo(601)[0]!.params.text)).toContain("/connect");
    const turn = await world.app.db
      .selectFrom("telegram_updates")
      .select("done")
      .where("update_id", "=", 7_001)
      .executeTakeFirst();
    expect(turn).toEqual({ done: 1 });
  });

  it("an update failing every time is acknowledged at the third delivery, and the user gets an error id", async () => {
    await start();
    world.fake.sendText({ id: 602, firstName: "W", languageCode: "en" }, "hello");
    world.app.deps.db = {} as never;
    const update = textUpdate(7_002, 602, "/help");
    const statuses = [];
    for (let i = 0; i < 3; i++) statuses.push((await post(update)).status);
    expect(statuses).toEqual([500, 500, 200]);
    expect(sentTo(602)).toHaveLength(1);
    expect(String(sentTo(602)[0]!.params.text)).toMatch(/Something went wrong.*error id/s);
  });

  it("stop() lets an update being handled finish and answer before closing", async () => {
    await start();
    world.fake.sendText({ id: 603, firstName: "W", languageCode: "en" }, "hello");
    // Slow, yet within what a stop waits for updates in hand (1.2 s, so the process exits within 2 s).
    world.sandbox.control.injectFault({ method: "GET", pathPrefix: "/api/v1/pricing", delayMs: 700, times: 5 });
    const answer = post(textUpdate(7_003, 603, "/quote energy 65k 1h"));
    // The update is being handled: its quote is waiting on the slow marketplace.
    for (
      const deadline = Date.now() + 5_000;
      !world.sandboxRequests.some((request) => request.includes("/api/v1/pricing")) && Date.now() < deadline;
    )
      await sleep(10);
    expect(world.sandboxInFlight()).toBeGreaterThan(0);
    await world.app.stop();
    // Stopped only once the update had answered.
    expect(sentTo(603)).toHaveLength(1);
    expect((await answer).status).toBe(200);
    expect(sentTo(603)).toHaveLength(1);
    expect(String(sentTo(603)[0]!.params.text)).toMatch(/65,000|65 000|65000/);
  });
});

describe("POST /telegram before the bot is initialised", () => {
  it("answers 503 (Telegram retries) instead of failing the update", async () => {
    const bot = new Bot<BotContext>(BOT_TOKEN, { client: { apiRoot: "http://127.0.0.1:1" } });
    let handled = 0;
    bot.use(() => {
      handled++;
    });
    const app = new Hono<ServerEnv>();
    registerTelegramWebhook(bot, "s3cret", createLogger({ level: "silent" })).register(app);
    const answer = await app.request("/telegram", {
      method: "POST",
      headers: { "content-type": "application/json", "x-telegram-bot-api-secret-token": "s3cret" },
      body: JSON.stringify(textUpdate(1, 1, "/help")),
    });
    expect(answer.status).toBe(503);
    expect(handled).toBe(0);
  });
});
