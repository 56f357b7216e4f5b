import { describe, expect, it } from "vitest";
import {
  ADDRESS_A,
  buttonLabels,
  callbackAnswerText,
  cardOutcome,
  linkedUser,
  manageWorld,
  nextBotText,
  type World,
} from "../kit/world";
import { waitFor } from "../kit/push-helpers";
import { findGuardSettings } from "#src/db/repos/guard-settings";
import { capCheck, reserveSpend } from "#src/spend-guard/index";
import { nextUtcMidnight } from "#src/db/utc-day";
import { CARD_SURE } from "#src/chat/callback-data";
import type { ChatMessage } from "#src/telegram-fake/index";

/**
 * The spend guard in /settings: Ask again above (a second tap naming the amount) and the daily cap
 * on what is bought through the bot (per UTC day; cards show the day so far and offer no Confirm
 * over it), with hostile amounts refused. Driven through Telegram updates against the sandbox.
 */
describe("the spend guard", () => {
  let world: World;
  manageWorld((started) => (world = started));

  type Who = Awaited<ReturnType<typeof linkedUser>>;
  const isCard = (text: string) => text.includes("Confirm your order");
  const ordersOf = (who: Who) => world.sandbox.control.listOrders(who.accountId);
  const settingsOf = (who: Who) => findGuardSettings(world.app.db, who.user.user.id);

  /** /buy on one line; the card it answers with. */
  async function buyCard(who: Who, volume: string): Promise<ChatMessage> {
    who.user.send(`/buy energy ${volume} 1h ${ADDRESS_A}`);
    return nextBotText(who.user, isCard);
  }

  /**
   * A press a client could forge: `data` on `message` as Telegram shows it now (its own keyboard,
   * which does not carry `data`). Returns the toast the bot answered with.
   */
  let forged = 0;
  function forgedPress(who: Who, message: ChatMessage, data: string): Promise<string> {
    const id = `forged-guard-${++forged}`;
    const { id: userId, firstName } = who.user.user;
    const chat = { id: userId, type: "private", first_name: firstName };
    world.fake.injectUpdate({
      callback_query: {
        id,
        from: { id: userId, is_bot: false, first_name: firstName, language_code: "en" },
        message: {
          message_id: message.messageId,
          from: { id: 123456789, is_bot: true, first_name: "Energy Sandbox" },
          chat,
          date: message.date,
          text: message.text,
          reply_markup: message.replyMarkup,
        },
        chat_instance: "1",
        data,
      },
    });
    return callbackAnswerText(world, id);
  }

  /** Sets an amount on one line and waits for the settings card that follows. */
  async function setAmount(who: Who, which: "ask" | "cap", value: string): Promise<void> {
    who.user.send(`/settings ${which} ${value}`);
    await nextBotText(who.user, (text) => text.includes("<b>Settings</b>") || text.includes("Settings\n"));
  }

  it("Ask again above: Confirm on a card above the amount asks for a second tap naming it; below it, one tap places the order", async () => {
    const who = await linkedUser(world, 5601);
    await setAmount(who, "ask", "100");
    expect((await settingsOf(who)).askAboveSun).toBe(100_000_000n);

    // 1.5m energy for an hour: 107.25 TRX, above 100.
    const card = await buyCard(who, "1.5m");
    expect(card.text).toContain("Total: 107.25 TRX");
    world.fake.pressButtonByLabel(who.user.user, "✅ Confirm", { messageId: card.messageId });
    const asked = await nextBotText(who.user, (text) => text.includes("Are you sure?"));
    expect(asked.messageId).toBe(card.messageId);
    expect(asked.text).toContain("107.25 TRX");
    expect(asked.text).toContain("100 TRX");
    expect(buttonLabels(asked)).toEqual(["✅ Yes, spend 107.25 TRX", "✖️ Cancel"]);
    await world.settled();
    expect(ordersOf(who)).toHaveLength(0);

    world.fake.pressButtonByLabel(who.user.user, "✅ Yes, spend 107.25 TRX", { messageId: card.messageId });
    expect((await cardOutcome(who.user)).text).toContain("Order placed");
    expect(ordersOf(who)).toHaveLength(1);
    expect(ordersOf(who)[0]!.totalTrx).toBe("107.25");

    // 65k energy for an hour (4.6475 TRX) is below 100: one tap.
    const small = await buyCard(who, "65000");
    world.fake.pressButtonByLabel(who.user.user, "✅ Confirm", { messageId: small.messageId });
    expect((await cardOutcome(who.user)).text).toContain("Order placed");
    expect(ordersOf(who)).toHaveLength(2);
  });

  it("Ask again above: the second tap is taken only from the button the question drew; Cancel there spends nothing", async () => {
    const who = await linkedUser(world, 5602);
    await setAmount(who, "ask", "50");
    const card = await buyCard(who, "1.5m");
    const cardId = CARD_SURE.parse(card.replyMarkup!.inline_keyboard[0]![0]!.callback_data!.replace(/^cf:/, "cs:"))!;
    // A forged "Yes, spend" on the card (its keyboard shows Confirm and Cancel only).
    expect(await forgedPress(who, card, CARD_SURE.data(cardId))).toContain("no longer valid");
    world.fake.pressButtonByLabel(who.user.user, "✅ Confirm", { messageId: card.messageId });
    await nextBotText(who.user, (text) => text.includes("Are you sure?"));
    world.fake.pressButtonByLabel(who.user.user, "✖️ Cancel", { messageId: card.messageId });
    await nextBotText(who.user, (text) => text.includes("Cancelled. Nothing was charged."));
    await world.settled();
    expect(ordersOf(who)).toHaveLength(0);
    // Turned off: one tap again.
    await setAmount(who, "ask", "off");
    expect((await settingsOf(who)).askAboveSun).toBeNull();
    const again = await buyCard(who, "1.5m");
    world.fake.pressButtonByLabel(who.user.user, "✅ Confirm", { messageId: again.messageId });
    expect((await cardOutcome(who.user)).text).toContain("Order placed");
  });

  it("the daily cap: cards show today through this bot; over it the card says so and offers no Confirm (Buy again and Buy now too); the next UTC day it is allowed again", async () => {
    const who = await linkedUser(world, 5603);
    await setAmount(who, "cap", "10");
    for (const spent of ["0", "4.6475"]) {
      const card = await buyCard(who, "65000");
      expect(card.text).toContain(`Today through this bot: ${spent} of 10 TRX`);
      world.fake.pressButtonByLabel(who.user.user, "✅ Confirm", { messageId: card.messageId });
      expect((await cardOutcome(who.user)).text).toContain("Order placed");
    }
    const over = await buyCard(who, "65000");
    expect(over.text).toContain("Today through this bot: 9.295 of 10 TRX");
    expect(over.text).toContain("over your daily cap of 10 TRX");
    expect(buttonLabels(over)).toEqual(["✖️ Cancel"]);

    // Buy again on an order's card opens the same card, under the same cap.
    who.user.send("/orders");
    const list = await nextBotText(who.user, (text) => text.includes("Your orders"));
    world.fake.pressButtonByLabel(who.user.user, /·/, { messageId: list.messageId });
    const detail = await waitFor(() =>
      world.fake
        .messages(5603)
        .find((message) => message.messageId === list.messageId && buttonLabels(message).includes("Buy again")),
    );
    world.fake.pressButtonByLabel(who.user.user, "Buy again", { messageId: detail.messageId });
    const again = await nextBotText(who.user, isCard);
    expect(again.text).toContain("over your daily cap");
    expect(buttonLabels(again)).toEqual(["✖️ Cancel"]);

    // Buy now under a price watch's alert: the same card, the same cap.
    who.user.send(`/watch energy 65k 1h 2.5 ${ADDRESS_A}`);
    await nextBotText(who.user, (text) => text.includes("Price watch"));
    world.sandbox.control.setPrice({ resource: "energy", duration: "1h", sunPerUnit: 30 });
    await world.app.push.checkPriceWatches();
    const alert = await nextBotText(who.user, (text) => text.includes("🛒") || text.includes("price"));
    world.fake.pressButtonByLabel(who.user.user, "🛒 Buy now", { messageId: alert.messageId });
    const now = await nextBotText(who.user, isCard);
    expect(now.text).toContain("Today through this bot: 9.295 of 10 TRX");
    expect(buttonLabels(now)).toEqual(["✖️ Cancel"]);
    world.sandbox.control.setPrice({ resource: "energy", duration: "1h", sunPerUnit: null });
    expect(ordersOf(who)).toHaveLength(2);

    // The next UTC day: the count starts again from 0.
    world.shiftAppClock(nextUtcMidnight(world.app.deps.now()) - world.app.deps.now() + 60_000);
    const tomorrow = await buyCard(who, "65000");
    expect(tomorrow.text).toContain("Today through this bot: 0 of 10 TRX");
    world.fake.pressButtonByLabel(who.user.user, "✅ Confirm", { messageId: tomorrow.messageId });
    expect((await cardOutcome(who.user)).text).toContain("Order placed");
    expect(ordersOf(who)).toHaveLength(3);
  });

  it("the daily cap is decided again at Confirm: of two cards drawn under it, the second to be confirmed is refused and nothing is charged", async () => {
    const who = await linkedUser(world, 5604);
    await setAmount(who, "cap", "5");
    const first = await buyCard(who, "65000");
    const second = await buyCard(who, "65000");
    expect(buttonLabels(second)).toContain("✅ Confirm");
    world.fake.pressButtonByLabel(who.user.user, "✅ Confirm", { messageId: first.messageId });
    expect((await cardOutcome(who.user)).text).toContain("Order placed");
    world.fake.pressButtonByLabel(who.user.user, "✅ Confirm", { messageId: second.messageId });
    const refused = await cardOutcome(who.user);
    expect(refused.text).toContain("Not placed");
    expect(refused.text).toContain("4.6475 TRX of your daily cap of 5 TRX");
    expect(ordersOf(who)).toHaveLength(1);
    expect(world.sandbox.control.getBalance(who.accountId).trx).toBe("995.3525");
  });

  it("the cap's reservation is one decision per spend for any buying path: two at once cannot both pass it", async () => {
    const who = await linkedUser(world, 5605);
    await setAmount(who, "cap", "10");
    const now = world.app.deps.now();
    const spend = (source: string) =>
      reserveSpend(world.app.db, { source, telegramId: 5605, totalSun: 6_000_000n, now });
    const results = await Promise.all([spend("autobuy:a"), spend("autobuy:b"), spend("card:c")]);
    expect(results.filter((result) => result.allowed)).toHaveLength(1);
    // The same source again keeps its reservation (a retry of an order whose outcome was unknown).
    const winner = ["autobuy:a", "autobuy:b", "card:c"][results.findIndex((result) => result.allowed)]!;
    expect((await spend(winner)).allowed).toBe(true);
    expect(await capCheck(world.app.db, 5605, 4_000_000n, now)).toEqual({
      spentSun: 6_000_000n,
      capSun: 10_000_000n,
      allowed: true,
    });
  });

  it("hostile amounts (0, negative, 40 digits, words) get a clear message and change nothing, on one line and in the guided step", async () => {
    const who = await linkedUser(world, 5606);
    await setAmount(who, "cap", "25");
    const hostile: Array<[string, string]> = [
      ["0", "must be above 0 TRX"],
      ["-5", "cannot be negative"],
      ["1".repeat(40), "the most this setting takes"],
      ["lots of money", "is not an amount of TRX"],
      ["1.0000001", "at most 6 decimals"],
    ];
    for (const [input, said] of hostile) {
      who.user.send(`/settings cap ${input}`);
      const answer = await nextBotText(who.user, (text) => text.includes("Nothing was changed"));
      expect(answer.text).toContain(said);
      who.user.send(`/settings ask ${input}`);
      expect((await nextBotText(who.user, (text) => text.includes("Nothing was changed"))).text).toContain(said);
    }
    await world.settled();
    expect(await settingsOf(who)).toMatchObject({ dailyCapSun: 25_000_000n, askAboveSun: null });

    // The guided step from the settings' button: each bad answer is explained and asked again.
    // (Past the flood limit's 10-second window first: the lines above were many messages at once.)
    world.shiftAppClock(11_000);
    who.user.send("/settings");
    const card = await nextBotText(who.user, (text) => text.includes("Spend guard"));
    expect(card.text).toContain("Daily cap through this bot: 25 TRX");
    world.fake.pressButtonByLabel(who.user.user, "🛡 Daily cap…", { messageId: card.messageId });
    const question = await nextBotText(who.user, (text) => text.includes("Send the most TRX"));
    expect(question.text).toContain("Now: 25 TRX");
    expect(buttonLabels(question)).toEqual(["Turn off"]);
    for (const [input, said] of hostile) {
      who.user.send(input);
      expect((await nextBotText(who.user, (text) => text.includes("Nothing was changed"))).text).toContain(said);
    }
    await world.settled();
    expect((await settingsOf(who)).dailyCapSun).toBe(25_000_000n);
    who.user.send("40.5");
    await nextBotText(who.user, (text) => text.includes("Daily cap through this bot: 40.5 TRX per UTC day"));
    const shown = await nextBotText(who.user, (text) => text.includes("Spend guard"));
    expect(shown.text).toContain("Daily cap through this bot: 40.5 TRX (today so far: 0 TRX)");
    expect((await settingsOf(who)).dailyCapSun).toBe(40_500_000n);
    // Turn off, from the question's button.
    world.fake.pressButtonByLabel(who.user.user, "🛡 Daily cap…", { messageId: shown.messageId });
    await nextBotText(who.user, (text) => text.includes("Now: 40.5 TRX"));
    who.user.press("Turn off");
    await nextBotText(who.user, (text) => text.includes("The daily cap is off"));
    expect((await settingsOf(who)).dailyCapSun).toBeNull();
  });

  it("the settings card switches the ends and delivery alerts and sets the low-balance warning; crafted taps change nothing", async () => {
    const who = await linkedUser(world, 5607);
    who.user.send("/settings");
    const card = await nextBotText(who.user, (text) => text.includes("Spend guard"));
    expect(card.text).toContain("🔔 Rental ending: on");
    expect(card.text).toContain("🔕 Rule deliveries: off");
    expect(card.text).toContain("Low balance warning: 24 h");
    expect(buttonLabels(card)).toEqual(expect.arrayContaining(["12 h", "✅ 24 h", "3 days", "off"]));
    const press = async (label: string, check: (text: string) => boolean) => {
      world.fake.pressButtonByLabel(who.user.user, label, { messageId: card.messageId });
      return nextBotText(who.user, check);
    };
    await press("🔔 Rental ending", (text) => text.includes("🔕 Rental ending: off"));
    await press("🔕 Rule deliveries", (text) => text.includes("🔔 Rule deliveries: on"));
    await press("3 days", (text) => text.includes("Low balance warning: 3 days"));
    const settings = await settingsOf(who);
    expect(settings).toMatchObject({ alertEnds: false, alertDeliveries: true, warningHours: 72 });
    expect(settings.deliveriesSince).toEqual(expect.any(Number));
    await press("off", (text) => text.includes("Low balance warning: off"));
    expect((await settingsOf(who)).warningHours).toBe(0);
    // A tap the menu never drew (a warning time not offered) is refused.
    const menuData = card.replyMarkup!.inline_keyboard.flat().find((button) => button.text === "12 h")!.callback_data!;
    const drawn = world.fake.messages(5607).find((message) => message.messageId === card.messageId)!;
    await forgedPress(who, drawn, menuData.replace("g.w12", "g.w99"));
    await world.settled();
    expect((await settingsOf(who)).warningHours).toBe(0);
  });
});
