import { InlineKeyboard } from "grammy";
import { describe, expect, it } from "vitest";
import { ALICE, apiError, world } from "./grammy-helpers";

const NOT_MODIFIED =
  "Bad Request: message is not modified: specified new message content and reply markup are exactly the same as a current content and reply markup of the message";

async function chatWithCard() {
  const context = await world();
  context.fake.sendText(ALICE, "/buy");
  const keyboard = new InlineKeyboard().text("Confirm", "c:1").text("Cancel", "x:1");
  const card = await context.bot.api.sendMessage(ALICE.id, "Buy 65 000 energy?", { reply_markup: keyboard });
  return { ...context, card, keyboard };
}

describe("edits", () => {
  it("edits text, drops the keyboard when reply_markup is left out, and refuses a no-op edit", async () => {
    const { fake, bot, card, keyboard } = await chatWithCard();
    const same = await apiError(
      bot.api.editMessageText(ALICE.id, card.message_id, "Buy 65 000 energy?", { reply_markup: keyboard }),
    );
    expect(same.description).toBe(NOT_MODIFIED);
    const edited = await bot.api.editMessageText(ALICE.id, card.message_id, "<i>Processing…</i>", {
      parse_mode: "HTML",
    });
    expect(edited).toMatchObject({ message_id: card.message_id, text: "Processing…" });
    const message = fake.messages(ALICE.id).find((m) => m.messageId === card.message_id)!;
    expect(message).toMatchObject({ edited: true, text: "Processing…", html: "<i>Processing…</i>" });
    expect(message.replyMarkup).toBeUndefined();
    expect((await apiError(bot.api.editMessageReplyMarkup(ALICE.id, card.message_id))).description).toBe(NOT_MODIFIED);
    await bot.api.editMessageReplyMarkup(ALICE.id, card.message_id, { reply_markup: keyboard });
  });

  it("validates edited text like sent text", async () => {
    const { bot, card } = await chatWithCard();
    const error = await apiError(bot.api.editMessageText(ALICE.id, card.message_id, "<b>x", { parse_mode: "HTML" }));
    expect(error.description).toMatch(/^Bad Request: can't parse entities: /);
    expect((await apiError(bot.api.editMessageText(ALICE.id, card.message_id, ""))).description).toBe(
      "Bad Request: message text is empty",
    );
  });

  it("refuses to edit or delete a missing or deleted message", async () => {
    const { fake, bot, card } = await chatWithCard();
    expect(await bot.api.deleteMessage(ALICE.id, card.message_id)).toBe(true);
    expect((await apiError(bot.api.deleteMessage(ALICE.id, card.message_id))).description).toBe(
      "Bad Request: message to delete not found",
    );
    expect((await apiError(bot.api.editMessageText(ALICE.id, card.message_id, "late"))).description).toBe(
      "Bad Request: message to edit not found",
    );
    expect((await apiError(bot.api.editMessageText(ALICE.id, 999, "nowhere"))).description).toBe(
      "Bad Request: message to edit not found",
    );
    expect(fake.messages(ALICE.id).find((m) => m.messageId === card.message_id)?.deleted).toBe(true);
  });

  it("refuses to edit the user's message or the caption of a text", async () => {
    const { bot, card } = await chatWithCard();
    expect((await apiError(bot.api.editMessageText(ALICE.id, 1, "mine now"))).description).toBe(
      "Bad Request: message can't be edited",
    );
    expect((await apiError(bot.api.editMessageCaption(ALICE.id, card.message_id, { caption: "c" }))).description).toBe(
      "Bad Request: there is no caption in the message to edit",
    );
  });
});

describe("callback queries", () => {
  it("delivers a press as a callback_query and accepts one answer", async () => {
    const { fake, bot, card } = await chatWithCard();
    const pressed = fake.pressButtonByLabel(ALICE, /^Conf/);
    expect(pressed.messageId).toBe(card.message_id);
    const [update] = await bot.api.getUpdates({ offset: pressed.updateId });
    expect(update?.callback_query).toMatchObject({
      id: pressed.callbackQueryId,
      data: "c:1",
      from: { id: ALICE.id, first_name: "Alice" },
      message: { message_id: card.message_id, text: "Buy 65 000 energy?" },
    });
    await bot.api.answerCallbackQuery(pressed.callbackQueryId, { text: "Done" });
    expect(fake.callbackAnswers).toEqual([{ callbackQueryId: pressed.callbackQueryId, text: "Done" }]);
    expect((await apiError(bot.api.answerCallbackQuery(pressed.callbackQueryId))).description).toBe(
      "Bad Request: query is too old and response timeout expired or query ID is invalid",
    );
    expect((await apiError(bot.api.answerCallbackQuery("123"))).description).toContain("query ID is invalid");
  });

  it("refuses an answer over 200 characters and a query older than 15 minutes", async () => {
    let now = 1_700_000_000_000;
    const { fake, bot } = await world({ now: () => now });
    fake.sendText(ALICE, "/buy");
    const card = await bot.api.sendMessage(ALICE.id, "?", { reply_markup: new InlineKeyboard().text("Go", "go") });
    const first = fake.pressButton(ALICE, card.message_id, "go");
    expect(
      (await apiError(bot.api.answerCallbackQuery(first.callbackQueryId, { text: "x".repeat(201) }))).error_code,
    ).toBe(400);
    now += 16 * 60 * 1000;
    expect((await apiError(bot.api.answerCallbackQuery(first.callbackQueryId))).description).toContain(
      "query is too old",
    );
  });

  it("lets a user press only buttons that exist, explaining what it saw", async () => {
    const { fake, card } = await chatWithCard();
    expect(() => fake.pressButtonByLabel(ALICE, "Refund")).toThrow(/buttons seen: "Confirm" \(message 2\), "Cancel"/);
    expect(() => fake.pressButton(ALICE, card.message_id, "forged")).toThrow(/no button with callback_data "forged"/);
  });
});
