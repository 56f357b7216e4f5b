import { InlineKeyboard } from "grammy";
import { describe, expect, it } from "vitest";
import { ALICE, apiError, world } from "../telegram-fake/grammy-helpers";

describe("the fake Telegram and Mini Apps", () => {
  it("takes a web_app inline button with an https URL and refuses any other URL, as Telegram does", async () => {
    const { fake, bot } = await world();
    fake.sendText(ALICE, "/dashboard");
    const sent = await bot.api.sendMessage(ALICE.id, "Dashboard", {
      reply_markup: new InlineKeyboard().webApp("Dashboard", "https://bot.example.test/app"),
    });
    expect(sent.reply_markup?.inline_keyboard[0]![0]).toEqual({
      text: "Dashboard",
      web_app: { url: "https://bot.example.test/app" },
    });
    for (const url of ["http://bot.example.test/app", "tg://resolve?domain=x", "not a url"]) {
      const refused = await apiError(
        bot.api.sendMessage(ALICE.id, "Dashboard", { reply_markup: new InlineKeyboard().webApp("Dashboard", url) }),
      );
      expect(refused.description, url).toMatch(/^Bad Request: BUTTON_URL_INVALID/);
    }
    expect(fake.rejectedCalls()).toHaveLength(3);
  });

  it("sets and reads the menu button: a web_app one needs a text and an https URL", async () => {
    const { fake, bot } = await world();
    fake.sendText(ALICE, "/start");
    expect(await bot.api.getChatMenuButton()).toEqual({ type: "default" });
    await bot.api.setChatMenuButton({
      menu_button: { type: "web_app", text: "Dashboard", web_app: { url: "https://bot.example.test/app" } },
    });
    expect(await bot.api.getChatMenuButton()).toEqual({
      type: "web_app",
      text: "Dashboard",
      web_app: { url: "https://bot.example.test/app" },
    });
    await bot.api.setChatMenuButton({ chat_id: ALICE.id, menu_button: { type: "commands" } });
    expect(await bot.api.getChatMenuButton({ chat_id: ALICE.id })).toEqual({ type: "commands" });
    expect(
      (
        await apiError(
          bot.api.setChatMenuButton({
            menu_button: { type: "web_app", text: "Dashboard", web_app: { url: "http://bot.example.test/app" } },
          }),
        )
      ).description,
    ).toMatch(/BUTTON_URL_INVALID/);
    expect(
      (
        await apiError(
          bot.api.setChatMenuButton({
            menu_button: { type: "web_app", text: " ", web_app: { url: "https://bot.example.test/app" } },
          }),
        )
      ).description,
    ).toMatch(/needs a text/);
  });
});
