import { describe, expect, it } from "vitest";
import {
  ADDRESS_A,
  ADDRESS_B,
  buttonLabels,
  buttonStyles,
  cardOutcome,
  linkedUser,
  manageWorld,
  nextBotText,
  openStep,
  type World,
} from "../kit/world";

/**
 * Creating an auto-buy (issue 55): one line or guided, with the same steps and buttons as /buy,
 * from a watch's card, in private chats only; the confirmation card shows every bound and the
 * worst case, and Confirm creates it without buying anything. Hostile amounts are explained and
 * asked again.
 */
describe("auto-buys: /autobuy and its confirmation card", () => {
  let world: World;
  manageWorld((started) => (world = started), { file: true });

  const autoBuys = (telegramId: number) =>
    world.app.db.selectFrom("auto_buys").selectAll().where("telegram_id", "=", telegramId).execute();

  it("one line goes straight to the card: rent, address, cap, the user's total now, budget, orders a day, end and the worst case; Confirm buys nothing", async () => {
    const { user, accountId } = await linkedUser(world, 5501);
    user.send(`/autobuy energy 65k 1h ${ADDRESS_A} 3 10`);
    const card = await user.nextMessage();
    for (const part of [
      "Confirm an auto-buy",
      "nothing is bought now",
      "65,000 Energy for 1h",
      ADDRESS_A,
      "Most per order: 3 TRX",
      // The user's own preview: 65,000 × 65 sun and the commission.
      "Your total for this order now: 4.6475 TRX",
      "Daily budget: 10 TRX (UTC day)",
      "Orders a day: at most 1",
      "Ends: 7 days after you confirm",
      "Worst case: 3 TRX a day",
      "Balance now: 1,000 TRX",
      "One rental per address at a time",
      "you authorize this bot to place these orders with your API key",
    ])
      expect(card.text).toContain(part);
    expect(card.text).toMatch(
      /Worst case: 3 TRX a day, (21|24) TRX in all<\/b>|Worst case: 3 TRX a day, (21|24) TRX in all/,
    );
    expect(buttonLabels(card)).toEqual(["✅ Confirm", "✖️ Cancel", "Orders a day: 1", "Lasts: 7 d"]);
    expect(buttonStyles(card)["✅ Confirm"]).toBe("success");

    // The card's choices redraw it in place: two orders a day doubles the worst case a day (within the budget).
    user.press("Orders a day: 1");
    let edit = await user.nextBotEvent();
    expect(edit.kind).toBe("edit");
    expect(edit.message.text).toContain("Orders a day: at most 2");
    expect(edit.message.text).toContain("Worst case: 6 TRX a day");
    user.press("Lasts: 7 d");
    edit = await user.nextBotEvent();
    expect(edit.message.text).toContain("Ends: 14 days after you confirm");
    expect(buttonLabels(edit.message)).toContain("Lasts: 14 d");

    user.press("✅ Confirm");
    const done = await cardOutcome(user);
    expect(done.text).toContain("created. Nothing was bought now");
    expect(world.sandbox.control.listOrders(accountId)).toHaveLength(0);
    const [row] = await autoBuys(5501);
    expect(row).toMatchObject({
      resource: "energy",
      volume: "65000",
      duration: "1h",
      address: ADDRESS_A,
      max_total_sun: "3000000",
      daily_budget_sun: "10000000",
      status: "active",
    });
    expect(Number(row!.orders_per_day)).toBe(2);
    expect(Number(row!.ends_at) - Number(row!.created_at)).toBe(14 * 24 * 3_600_000);
  });

  it("guided: the /buy steps and buttons, then the cap and the budget, each hostile answer explained and asked again", async () => {
    const { user, accountId } = await linkedUser(world, 5502, { trx: "100", usdt: "0" });
    user.send("/autobuy");
    expect((await user.nextMessage()).text).toContain("Which resource");
    user.press("Energy");
    await nextBotText(user, (text) => text.startsWith("How much Energy?"));
    user.press("65,000");
    await nextBotText(user, (text) => text.startsWith("For how long?"));
    user.press("1h");
    await nextBotText(user, (text) => text.startsWith("Which address receives it?"));
    user.send(ADDRESS_B);
    const ask = await nextBotText(user, (text) => text.includes("The most one order may cost"));
    expect(ask.text).toContain("Your own total for this order now is 4.6475 TRX");
    expect(ask.text).toContain("your balance is 100 TRX");
    expect(buttonLabels(ask)).toContain("≤ 4.6475 TRX");
    expect(await openStep(world, 5502)).toBe("autobuy/max");

    const refusals: Array<[string, string]> = [
      ["0", "must be above zero"],
      ["-5", "must be above zero"],
      ["101", "more than your balance (100 TRX)"],
      ["1".repeat(40), "far above any rent"],
      ["three trx please", "could not read that TRX amount"],
      ["2.1234567", "at most 6 decimals"],
    ];
    for (const [typed, said] of refusals) {
      user.send(typed);
      expect((await user.nextMessage()).text, typed).toContain(said);
      expect(await openStep(world, 5502), typed).toBe("autobuy/max");
    }
    user.send("3");
    const budget = await nextBotText(user, (text) => text.includes("one UTC day"));
    expect(buttonLabels(budget)).toEqual(["3 TRX", "6 TRX", "9 TRX"]);
    for (const [typed, said] of [
      ["2", "at least the most per order (3 TRX)"],
      ["0", "must be above zero"],
      ["words", "could not read that TRX amount"],
      ["9".repeat(40), "far above any rent"],
    ]) {
      user.send(typed!);
      expect((await user.nextMessage()).text, typed).toContain(said);
      expect(await openStep(world, 5502)).toBe("autobuy/budget");
    }
    user.press("6 TRX");
    const card = await nextBotText(user, (text) => text.includes("Confirm an auto-buy"));
    expect(card.text).toContain("Most per order: 3 TRX");
    expect(card.text).toContain("Daily budget: 6 TRX");
    expect(card.text).toContain(ADDRESS_B);
    user.press("✖️ Cancel");
    await nextBotText(user, (text) => text.includes("Cancelled"));
    expect(await autoBuys(5502)).toHaveLength(0);
    expect(world.sandbox.control.listOrders(accountId)).toHaveLength(0);
  });

  it("a refused one-line amount is said and asked again, the other values kept", async () => {
    const { user } = await linkedUser(world, 5503);
    user.send(`/autobuy energy 65k 1h ${ADDRESS_A} 0 10`);
    const asked = await nextBotText(user, (text) => text.includes("The most one order may cost"));
    expect(asked.text).toContain("must be above zero");
    user.send("3");
    // The budget (10) was kept: straight to the card.
    const card = await nextBotText(user, (text) => text.includes("Confirm an auto-buy"));
    expect(card.text).toContain("Daily budget: 10 TRX");

    user.send(`/autobuy energy 65k 1h ${ADDRESS_A} 3 2`);
    const budget = await nextBotText(user, (text) => text.includes("one UTC day"));
    expect(budget.text).toContain("at least the most per order (3 TRX)");
    user.send("5");
    expect((await nextBotText(user, (text) => text.includes("Confirm an auto-buy"))).text).toContain(
      "Daily budget: 5 TRX",
    );

    // A cap above the balance, given in one line, is asked again too (the budget with it).
    user.send(`/autobuy energy 65k 1h ${ADDRESS_A} 5000 6000`);
    const again = await nextBotText(user, (text) => text.includes("The most one order may cost"));
    expect(again.text).toContain("more than your balance (1,000 TRX)");
  });

  it("Make it auto-buy on a watch's card fills in the rent, the address and the threshold as the cap", async () => {
    const { user } = await linkedUser(world, 5504);
    user.send(`/watch energy 65k 1h 2.5 ${ADDRESS_A}`);
    const watchCard = await user.nextMessage();
    expect(buttonLabels(watchCard)).toContain("🤖 Make it auto-buy");
    user.press("🤖 Make it auto-buy");
    const budget = await nextBotText(user, (text) => text.includes("one UTC day"));
    expect(budget.text).toContain("At least the most per order (2.5 TRX)");
    user.send("5");
    const card = await nextBotText(user, (text) => text.includes("Confirm an auto-buy"));
    for (const part of ["65,000 Energy for 1h", ADDRESS_A, "Most per order: 2.5 TRX", "Daily budget: 5 TRX"])
      expect(card.text).toContain(part);
    user.press("✅ Confirm");
    await nextBotText(user, (text) => text.includes("created. Nothing was bought now"));
    expect(await autoBuys(5504)).toHaveLength(1);
  });

  it("is refused in a group, needs a key, and at most five per user", async () => {
    const { user } = await linkedUser(world, 5505);
    const sent = world.fake.sendText(user.user, `/autobuy energy 65k 1h ${ADDRESS_A} 3 10`, {
      chat: "group",
      groupId: -100555,
    });
    const deadline = Date.now() + 5000;
    while (world.fake.messages(sent.chatId).filter((m) => m.from === "bot").length === 0 && Date.now() < deadline)
      await new Promise((resolve) => setTimeout(resolve, 20));
    expect(world.fake.messages(sent.chatId).find((m) => m.from === "bot")?.text).toContain("private chats");
    expect(await autoBuys(5505)).toHaveLength(0);

    const stranger = world.user(5506);
    stranger.send(`/autobuy energy 65k 1h ${ADDRESS_A} 3 10`);
    expect((await stranger.nextMessage()).text).toContain("/connect");

    for (let n = 1; n <= 5; n++) {
      user.send(`/autobuy energy ${60 + n}k 1h ${ADDRESS_A} 3 10`);
      await nextBotText(user, (text) => text.includes("Confirm an auto-buy"));
      user.press("✅ Confirm");
      expect((await cardOutcome(user)).text).toContain("created");
    }
    user.send(`/autobuy energy 70k 1h ${ADDRESS_A} 3 10`);
    expect((await user.nextMessage()).text).toContain("5 auto-buys, the most allowed");
    expect(await autoBuys(5505)).toHaveLength(5);
  });
});
