import { serve } from "@hono/node-server";
import { InlineKeyboard } from "grammy";
import { Hono } from "hono";
import type { AddressInfo } from "node:net";
import { describe, expect, it, onTestFinished } from "vitest";
import { createChatUser, expectNoRejectedCalls } from "../kit/telegram-driver";
import { ALICE, apiError, world } from "./grammy-helpers";

describe("a chat user driven through a running bot", () => {
  it("sends, presses and sees messages, edits and deletions in order", async () => {
    const { fake, bot } = await world();
    bot.command("buy", (ctx) => ctx.reply("Confirm?", { reply_markup: new InlineKeyboard().text("Yes", "y") }));
    bot.callbackQuery("y", async (ctx) => {
      await ctx.answerCallbackQuery();
      await ctx.editMessageText("Done");
      await ctx.deleteMessage();
    });
    await new Promise<void>((resolve) => void bot.start({ onStart: () => resolve() }));
    const alice = createChatUser(fake, ALICE);

    alice.send("/buy");
    const card = await alice.nextMessage();
    expect(card.replyMarkup?.inline_keyboard[0]?.[0]?.text).toBe("Yes");
    expect(alice.press("Yes").messageId).toBe(card.messageId);
    const edit = await alice.nextBotEvent();
    expect([edit.kind, edit.message.text]).toEqual(["edit", "Done"]);
    const deletion = await alice.nextBotEvent();
    expect([deletion.kind, deletion.message.messageId]).toEqual(["delete", card.messageId]);
    expect(alice.lastBotMessage()).toBeUndefined();
    expect(alice.botMessages()).toHaveLength(1);
    await bot.stop();
    expectNoRejectedCalls(fake);
  });

  it("times out with the bot's recent calls when nothing comes", async () => {
    const { fake } = await world();
    await expect(createChatUser(fake, ALICE).nextBotEvent({ timeoutMs: 50 })).rejects.toThrow(/within 50 ms.*getMe ok/);
  });

  it("lists rejected calls with their descriptions", async () => {
    const { fake, bot } = await world();
    await apiError(bot.api.sendMessage(7, "x"));
    expect(() => expectNoRejectedCalls(fake)).toThrow(/#2 sendMessage → 400 Bad Request: chat not found/);
  });
});

describe("the event stream", () => {
  it("numbers events so a client can resume after the last one it saw", async () => {
    const { fake, bot } = await world();
    const seen: string[] = [];
    const unsubscribe = fake.subscribe((event) => seen.push(event.kind));
    fake.sendText(ALICE, "hi");
    await bot.api.sendMessage(ALICE.id, "hello");
    unsubscribe();
    const all = fake.eventsSince(0);
    expect(all.map((event) => event.id)).toEqual(all.map((_, index) => index + 1));
    expect(seen).toEqual(["user_message", "message", "call"]);
    const afterUserMessage = fake.eventsSince(all.find((event) => event.kind === "user_message")!.id);
    expect(afterUserMessage.map((event) => event.kind)).toEqual(["message", "call"]);
  });

  it("keeps snapshots: an event shows the message as it was then", async () => {
    const { fake, bot } = await world();
    fake.sendText(ALICE, "hi");
    const sent = await bot.api.sendMessage(ALICE.id, "before");
    await bot.api.editMessageText(ALICE.id, sent.message_id, "after");
    const texts = fake.eventsSince(0).flatMap((event) => (event.message?.from === "bot" ? [event.message.text] : []));
    expect(texts).toEqual(["before", "after"]);
  });
});

describe("webhook delivery", () => {
  it("posts updates one at a time with the secret token", async () => {
    const received: Array<{ secret: string | undefined; update: unknown }> = [];
    const receiver = new Hono().post("/hook", async (c) => {
      received.push({ secret: c.req.header("x-telegram-bot-api-secret-token"), update: await c.req.json() });
      return c.text("ok");
    });
    const port = await new Promise<number>((resolve) => {
      const server = serve({ fetch: receiver.fetch, hostname: "127.0.0.1", port: 0 }, (info: AddressInfo) =>
        resolve(info.port),
      );
      onTestFinished(() => void server.close());
    });
    const { fake, bot } = await world();
    await bot.api.setWebhook(`http://127.0.0.1:${port}/hook`, { secret_token: "hook-secret" });
    fake.sendText(ALICE, "one");
    fake.sendText(ALICE, "two");
    await expect.poll(() => received.length).toBe(2);
    expect(received.map((r) => [r.secret, (r.update as { message: { text: string } }).message.text])).toEqual([
      ["hook-secret", "one"],
      ["hook-secret", "two"],
    ]);
    expect((await bot.api.getWebhookInfo()).pending_update_count).toBe(0);
  });
});
