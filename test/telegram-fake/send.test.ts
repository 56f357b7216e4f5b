import { InlineKeyboard } from "grammy";
import { describe, expect, it } from "vitest";
import { ALICE, apiError, world } from "./grammy-helpers";

describe("sendMessage", () => {
  it("answers with a real Message and records the chat as the user sees it", async () => {
    const { fake, bot } = await world();
    fake.sendText(ALICE, "/start");
    const sent = await bot.api.sendMessage(ALICE.id, "<b>Hi</b> &amp; welcome", {
      parse_mode: "HTML",
      reply_markup: new InlineKeyboard().text("Buy energy", "buy").url("Docs", "https://example.org"),
    });
    expect(sent).toMatchObject({
      message_id: 2,
      chat: { id: ALICE.id, type: "private", first_name: "Alice" },
      from: { is_bot: true, username: "sandbox_energy_bot" },
      text: "Hi & welcome",
      entities: [{ type: "bold", offset: 0, length: 2 }],
      reply_markup: {
        inline_keyboard: [
          [
            { text: "Buy energy", callback_data: "buy" },
            { text: "Docs", url: "https://example.org" },
          ],
        ],
      },
    });
    expect(fake.messages(ALICE.id).map((m) => [m.from, m.text, m.html])).toEqual([
      ["user", "/start", undefined],
      ["bot", "Hi & welcome", "<b>Hi</b> &amp; welcome"],
    ]);
    expect(fake.rejectedCalls()).toEqual([]);
  });

  it("keeps a button's style (Bot API 9.4) and refuses one Telegram does not know", async () => {
    const { fake, bot } = await world();
    fake.sendText(ALICE, "hi");
    const sent = await bot.api.sendMessage(ALICE.id, "Sure?", {
      reply_markup: new InlineKeyboard()
        .text("Yes", "y")
        .success()
        .text("No", "n")
        .danger()
        .text("More", "m")
        .primary(),
    });
    expect(sent.reply_markup?.inline_keyboard[0]!.map((button) => button.style)).toEqual([
      "success",
      "danger",
      "primary",
    ]);
    const wrong = {
      inline_keyboard: [[{ text: "Yes", callback_data: "y", style: "green" }]],
    } as unknown as InlineKeyboard;
    const refused = await apiError(bot.api.sendMessage(ALICE.id, "Sure?", { reply_markup: wrong }));
    expect(refused.error_code).toBe(400);
    expect(refused.description).toMatch(/style/);
  });

  it("refuses a chat it never saw", async () => {
    const { bot, fake } = await world();
    expect((await apiError(bot.api.sendMessage(42, "hello"))).description).toBe("Bad Request: chat not found");
    expect(fake.rejectedCalls().map((call) => call.method)).toEqual(["sendMessage"]);
  });

  it("refuses empty text and text over 4096 UTF-16 units after parsing", async () => {
    const { fake, bot } = await world();
    fake.sendText(ALICE, "hi");
    expect((await apiError(bot.api.sendMessage(ALICE.id, ""))).description).toBe("Bad Request: message text is empty");
    expect((await apiError(bot.api.sendMessage(ALICE.id, " \n "))).description).toBe(
      "Bad Request: message text is empty",
    );
    const tooLong = await apiError(bot.api.sendMessage(ALICE.id, "⚡".repeat(4097)));
    expect(tooLong.description).toBe("Bad Request: message is too long");
    // Markup does not count: 4096 characters inside <b> are fine.
    await bot.api.sendMessage(ALICE.id, `<b>${"x".repeat(4096)}</b>`, { parse_mode: "HTML" });
  });

  it("refuses HTML Telegram cannot parse", async () => {
    const { fake, bot } = await world();
    fake.sendText(ALICE, "hi");
    const error = await apiError(bot.api.sendMessage(ALICE.id, "Fees & limits", { parse_mode: "HTML" }));
    expect(error.error_code).toBe(400);
    expect(error.description).toMatch(/^Bad Request: can't parse entities: /);
    const unknownTag = await apiError(bot.api.sendMessage(ALICE.id, "a<br>b", { parse_mode: "HTML" }));
    expect(unknownTag.description).toContain(`Unsupported start tag "br"`);
  });

  it("refuses callback data over 64 bytes or empty", async () => {
    const { fake, bot } = await world();
    fake.sendText(ALICE, "hi");
    const tooLong = new InlineKeyboard().text("Go", "ж".repeat(33)); // 66 bytes, 33 characters
    expect((await apiError(bot.api.sendMessage(ALICE.id, "x", { reply_markup: tooLong }))).description).toBe(
      "Bad Request: BUTTON_DATA_INVALID",
    );
    const empty = { inline_keyboard: [[{ text: "Go", callback_data: "" }]] };
    expect((await apiError(bot.api.sendMessage(ALICE.id, "x", { reply_markup: empty }))).description).toBe(
      "Bad Request: BUTTON_DATA_INVALID",
    );
    await bot.api.sendMessage(ALICE.id, "x", { reply_markup: new InlineKeyboard().text("Go", "ж".repeat(32)) });
  });

  it("refuses bad buttons: url scheme, no action, two actions, no text", async () => {
    const { fake, bot } = await world();
    fake.sendText(ALICE, "hi");
    const send = (button: object) =>
      apiError(bot.api.sendMessage(ALICE.id, "x", { reply_markup: { inline_keyboard: [[button as never]] } }));
    expect((await send({ text: "Docs", url: "example.org" })).description).toBe("Bad Request: BUTTON_URL_INVALID");
    expect((await send({ text: "Plain" })).description).toContain("Text buttons are unallowed in the inline keyboard");
    expect((await send({ text: "Both", callback_data: "a", url: "https://x.org" })).description).toContain(
      "exactly one of the optional fields",
    );
    expect((await send({ callback_data: "a" })).description).toContain(`Field "text" must be of type String`);
    expect((await send({ text: "Copy", copy_text: "TNPe" })).description).toContain("copy_text");
    await bot.api.sendMessage(ALICE.id, "x", {
      reply_markup: new InlineKeyboard().copyText("Copy", "TNPe").url("tg", "tg://resolve?domain=x"),
    });
  });

  it("refuses more than 8 buttons in a row or 100 in all", async () => {
    const { fake, bot } = await world();
    fake.sendText(ALICE, "hi");
    const row = (n: number) => Array.from({ length: n }, (_, i) => ({ text: `${i}`, callback_data: `${i}` }));
    const wide = { inline_keyboard: [row(9)] };
    expect((await apiError(bot.api.sendMessage(ALICE.id, "x", { reply_markup: wide }))).description).toBe(
      "Bad Request: BUTTONS_TOO_MUCH",
    );
    const tall = { inline_keyboard: Array.from({ length: 13 }, () => row(8)) };
    expect((await apiError(bot.api.sendMessage(ALICE.id, "x", { reply_markup: tall }))).description).toBe(
      "Bad Request: BUTTONS_TOO_MUCH",
    );
    await bot.api.sendMessage(ALICE.id, "x", {
      reply_markup: { inline_keyboard: Array.from({ length: 12 }, () => row(8)) },
    });
  });

  it("accepts form-encoded and query-string calls as Telegram does", async () => {
    const { fake, apiRoot, token } = await world();
    fake.sendText(ALICE, "hi");
    const form = await fetch(`${apiRoot}/bot${token}/sendMessage`, {
      method: "POST",
      body: new URLSearchParams({ chat_id: String(ALICE.id), text: "<i>form</i>", parse_mode: "HTML" }),
    });
    expect(await form.json()).toMatchObject({ ok: true, result: { text: "form" } });
    const query = await fetch(`${apiRoot}/bot${token}/sendmessage?chat_id=${ALICE.id}&text=query`);
    expect(await query.json()).toMatchObject({ ok: true, result: { text: "query" } });
  });
});

describe("the API surface", () => {
  it("answers 404 for unknown methods and 401 for a wrong token", async () => {
    const { apiRoot, token, fake } = await world();
    const unknown = await fetch(`${apiRoot}/bot${token}/sendTelepathy`, { method: "POST" });
    expect(unknown.status).toBe(404);
    expect(await unknown.json()).toEqual({ ok: false, error_code: 404, description: "Not Found" });
    const wrongToken = await fetch(`${apiRoot}/bot1:WRONG/getMe`);
    expect(await wrongToken.json()).toEqual({ ok: false, error_code: 401, description: "Unauthorized" });
    expect(fake.rejectedCalls().map((call) => call.errorCode)).toEqual([404, 401]);
  });

  it("keeps commands per language and validates them", async () => {
    const { fake, bot } = await world();
    await bot.api.setMyCommands([{ command: "start", description: "Start" }]);
    await bot.api.setMyCommands([{ command: "start", description: "Начать" }], { language_code: "ru" });
    expect(fake.commands()).toEqual([{ command: "start", description: "Start" }]);
    expect(fake.commands("ru")).toEqual([{ command: "start", description: "Начать" }]);
    expect(await bot.api.getMyCommands({ language_code: "ru" })).toEqual([{ command: "start", description: "Начать" }]);
    expect((await apiError(bot.api.setMyCommands([{ command: "Start", description: "x" }]))).description).toBe(
      "Bad Request: BOT_COMMAND_INVALID",
    );
    expect((await apiError(bot.api.setMyCommands([{ command: "x", description: "" }]))).description).toBe(
      "Bad Request: BOT_COMMAND_DESCRIPTION_INVALID",
    );
    await bot.api.deleteMyCommands({ language_code: "ru" });
    expect(fake.commands("ru")).toEqual([]);
    await bot.api.setChatMenuButton({ menu_button: { type: "commands" } });
  });
});
