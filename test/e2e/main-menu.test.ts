import { describe, expect, it } from "vitest";
import { buttonLabels, callbackAnswerText, linkKey, manageWorld, openStep, type World } from "../kit/world";
import type { ChatMessage } from "#src/telegram-fake/index";

const labels = (message: ChatMessage) =>
  (message.replyMarkup?.inline_keyboard ?? []).flat().map((button) => button.text);

describe("the main menu of /start", () => {
  let world: World;
  manageWorld((started) => (world = started), { env: { PUBLIC_URL: "https://bot.example.com" } });

  it("reaches every area: Watches, Stats and Webhook open what their commands open, and Connect a key shows until a key is linked", async () => {
    const user = world.user(9301);
    user.send("/start");
    const welcome = await user.nextMessage();
    for (const word of [
      "Quote",
      "Buy",
      "Orders",
      "Rules",
      "Wallet",
      "Top up",
      "Watches",
      "Stats",
      "Notifications",
      "Settings",
      "Webhook",
      "Connect a key",
    ]) {
      expect(
        labels(welcome).some((label) => label.includes(word)),
        word,
      ).toBe(true);
    }
    // Every row fits a phone: at most two buttons.
    expect(Math.max(...welcome.replyMarkup!.inline_keyboard.map((row) => row.length))).toBeLessThanOrEqual(2);

    user.press(/Watches/);
    expect((await user.nextMessage()).text).toContain("no price watches yet");
    user.press(/Connect a key/);
    expect((await user.nextMessage()).text).toContain("Send me your marketplace API key");
    user.send("/cancel");
    await user.nextMessage();

    const account = world.newAccount({ trx: "500", usdt: "0" });
    await linkKey(world, user, account.apiKey);
    user.send("/start");
    const linked = await user.nextMessage();
    expect(labels(linked).some((label) => label.includes("Connect a key"))).toBe(false);
    expect(labels(linked).some((label) => label.includes("Webhook"))).toBe(true);

    user.press(/Webhook/);
    const webhook = await user.nextMessage();
    expect(webhook.text).toContain("Your personal webhook URL");
    expect(webhook.text).toMatch(/https:\/\/bot\.example\.com\/webhooks\/marketplace\/\S+/);

    user.send("/start");
    await user.nextMessage();
    user.press(/Stats/);
    const chart = await user.nextMessage({ timeoutMs: 15_000 });
    // Nothing spent yet: the figures as text, without a chart.
    expect(chart.text).toContain("Spending, last 7 days");
  });
  it("a menu tap ends the open question: another area closes it, and Quote asks its own first question in place of the open one", async () => {
    const user = world.user(9302);
    user.send("/start");
    const welcome = await user.nextMessage();
    user.press(/Quote/);
    const first = await user.nextMessage();
    expect(first.text).toContain("Which resource");
    expect(await openStep(world, 9302)).toBe("quote/resource");

    // Another area: the question is closed, and typed text after it is no answer.
    world.fake.pressButtonByLabel(user.user, /Watches/, { messageId: welcome.messageId });
    expect((await user.nextMessage()).text).toContain("no price watches yet");
    expect(await openStep(world, 9302)).toBeNull();
    user.send("energy");
    expect((await user.nextMessage()).text).toContain("didn't understand");

    // Quote twice: the second question replaces the first; the first's buttons answer nothing.
    world.fake.pressButtonByLabel(user.user, /Quote/, { messageId: welcome.messageId });
    const older = await user.nextMessage();
    expect(older.text).toContain("Which resource");
    world.fake.pressButtonByLabel(user.user, /Quote/, { messageId: welcome.messageId });
    const newer = await user.nextMessage();
    expect(newer.text).toContain("Which resource");
    expect(await openStep(world, 9302)).toBe("quote/resource");
    expect(await world.app.db.selectFrom("flows").selectAll().where("telegram_id", "=", 9302).execute()).toHaveLength(
      1,
    );
    // The replaced question lost its buttons; a press racing that removal still answers nothing.
    await world.settled();
    expect(
      buttonLabels(world.fake.messages(older.chatId).find((message) => message.messageId === older.messageId)!),
    ).toEqual([]);
    const energyData = (older.replyMarkup?.inline_keyboard ?? []).flat().find((button) => button.text === "Energy");
    expect(energyData && "callback_data" in energyData).toBe(true);
    const chat = { id: older.chatId, type: "private" as const, first_name: "User9302" };
    world.fake.injectUpdate({
      callback_query: {
        id: "raced-9302",
        from: { id: 9302, is_bot: false, first_name: "User9302", language_code: "en" },
        chat_instance: "1",
        data: (energyData as { callback_data: string }).callback_data,
        message: {
          message_id: older.messageId,
          from: { id: 123456789, is_bot: true, first_name: "Bot" },
          chat,
          date: older.date,
          text: older.text,
        },
      },
    });
    expect(await callbackAnswerText(world, "raced-9302")).toBe(
      "This button does not answer the open question. Use the buttons under the last question, or type your answer.",
    );
    world.fake.pressButtonByLabel(user.user, "Energy", { messageId: newer.messageId });
    expect((await user.nextMessage()).text).toContain("How much Energy");
    expect(await openStep(world, 9302)).toBe("quote/volume");
    expect(await world.app.db.selectFrom("flows").selectAll().where("telegram_id", "=", 9302).execute()).toHaveLength(
      0,
    );
  });
});
