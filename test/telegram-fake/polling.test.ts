import { Bot } from "grammy";
import { describe, expect, it } from "vitest";
import { createChatUser, expectNoRejectedCalls } from "../kit/telegram-driver";
import { ALICE, apiError, world } from "./grammy-helpers";

describe("long polling", () => {
  it("holds getUpdates until an update arrives, and forgets updates below the offset", async () => {
    const { fake, bot } = await world();
    const started = Date.now();
    const poll = bot.api.getUpdates({ timeout: 10 });
    setTimeout(() => fake.sendText(ALICE, "hello"), 100);
    const [update] = await poll;
    expect(Date.now() - started).toBeGreaterThanOrEqual(90);
    expect(update?.message).toMatchObject({ text: "hello", chat: { id: ALICE.id, type: "private" } });
    expect(await bot.api.getUpdates({ timeout: 0 })).toHaveLength(1);
    expect(await bot.api.getUpdates({ offset: update!.update_id + 1, timeout: 0 })).toEqual([]);
  });

  it("answers an empty list when the timeout passes, capped by longPollMaxMs", async () => {
    const { bot } = await world({ longPollMaxMs: 200 });
    const started = Date.now();
    expect(await bot.api.getUpdates({ timeout: 30 })).toEqual([]);
    // Far below the 30 s asked for (a loaded machine may be slow, never 30 s slow).
    expect(Date.now() - started).toBeLessThan(10_000);
  });

  it("runs a real bot with bot.start(), marking /commands as Telegram does", async () => {
    const { fake, bot } = await world();
    bot.command("start", (ctx) => ctx.reply(`Hello, <b>${ctx.from?.first_name}</b>`, { parse_mode: "HTML" }));
    bot.on("message:text", (ctx) => ctx.reply(`echo: ${ctx.message.text}`));
    // drop_pending_updates would drop what a user sends before polling starts, as on Telegram.
    await new Promise<void>((resolve) => void bot.start({ drop_pending_updates: true, onStart: () => resolve() }));
    const alice = createChatUser(fake, ALICE);
    alice.send("/start");
    expect(await alice.nextMessage()).toMatchObject({ text: "Hello, Alice", html: "Hello, <b>Alice</b>" });
    alice.send("65000");
    expect((await alice.nextMessage()).text).toBe("echo: 65000");
    await bot.stop();
    expectNoRejectedCalls(fake);
  });

  it("answers 409 to a second poller while the first waits", async () => {
    const { bot, apiRoot, token, fake } = await world();
    const first = bot.api.getUpdates({ timeout: 5 });
    await new Promise((resolve) => setTimeout(resolve, 50));
    const second = new Bot(token, { client: { apiRoot } });
    const conflict = await apiError(second.api.getUpdates({ timeout: 5 }));
    expect(conflict.error_code).toBe(409);
    expect(conflict.description).toBe(
      "Conflict: terminated by other getUpdates request; make sure that only one bot instance is running",
    );
    fake.sendText(ALICE, "hi");
    expect(await first).toHaveLength(1);
  });

  it("answers 409 to getUpdates while a webhook is set", async () => {
    const { bot, fake } = await world();
    await bot.api.setWebhook("https://bot.example/telegram", { secret_token: "s3cret_-" });
    expect(fake.webhook).toEqual({ url: "https://bot.example/telegram", secretToken: "s3cret_-" });
    expect((await apiError(bot.api.getUpdates())).error_code).toBe(409);
    expect((await apiError(bot.api.setWebhook("https://bot.example", { secret_token: "no spaces" }))).error_code).toBe(
      400,
    );
    expect((await apiError(bot.api.setWebhook("http://bot.example"))).error_code).toBe(400);
    await bot.api.deleteWebhook();
    expect(fake.webhook).toBeNull();
    expect(await bot.api.getUpdates({ timeout: 0 })).toEqual([]);
  });

  it("resolves a pending poll with [] on close", async () => {
    const { bot, fake } = await world();
    const poll = bot.api.getUpdates({ timeout: 20 });
    await new Promise((resolve) => setTimeout(resolve, 50));
    fake.close();
    expect(await poll).toEqual([]);
  });
});
