import { describe, expect, it } from "vitest";
import {
  ADDRESS_A,
  ADDRESS_B,
  buttonLabels,
  callbackAnswerText,
  linkedUser,
  manageWorld,
  nextBotText,
  type World,
} from "../kit/world";
import { autoBuyRow, check, drained, energyRate, makeAutoBuy, ordersOf } from "../kit/auto-buys";

/**
 * Managing auto-buys (issue 55): /autobuys with Pause, Resume, Delete and the last orders, the
 * alert's Pause and Stop, and /settings' Automatic buying switch, which stops every auto-buy at
 * once and stays off until turned on.
 */
describe("auto-buys: /autobuys and the Automatic buying switch", () => {
  let world: World;
  manageWorld((started) => (world = started), { file: true });

  it("/autobuys lists state, cap, budget left today and the end, with Pause, Resume, Delete in place; a card shows the last orders", async () => {
    const { user, accountId } = await linkedUser(world, 5801);
    user.send("/autobuys");
    expect((await user.nextMessage()).text).toContain("You have no auto-buys yet");
    const first = await makeAutoBuy(world, user, `energy 65k 1h ${ADDRESS_A} 3 10`);
    await makeAutoBuy(world, user, `bandwidth 5k 1d ${ADDRESS_B} 4 20`);
    energyRate(world, 30);
    await check(world, { autoBought: 1 });
    await drained(world);

    user.send("/autobuys");
    const list = await nextBotText(user, (text) => text.includes("Your auto-buys"));
    expect(list.text).toContain("Your auto-buys (2 of 5)");
    expect(list.text).toMatch(
      /1\. 65,000 Energy for 1h → TNPeea…YqeL · ≤ 3 TRX · today 7\.855 TRX of 10 TRX left · ends .* UTC — 🟢 buying/,
    );
    expect(list.text).toMatch(/2\. 5,000 Bandwidth for 1d → TR7NHq…Lj6t · ≤ 4 TRX · today 20 TRX of 20 TRX left/);
    expect(buttonLabels(list)).toEqual(["⚙️ 1", "⏸ Pause 1", "🗑 Delete 1", "⚙️ 2", "⏸ Pause 2", "🗑 Delete 2"]);

    user.press("⏸ Pause 2");
    let edit = await user.nextBotEvent();
    expect(edit.kind).toBe("edit");
    expect(edit.message.messageId).toBe(list.messageId);
    expect(edit.message.text).toMatch(/2\. .*⏸ paused by you/);
    expect(buttonLabels(edit.message)).toContain("▶️ Resume 2");
    user.press("▶️ Resume 2");
    edit = await user.nextBotEvent();
    expect(edit.message.text).toMatch(/2\. .*🟢 buying/);

    user.press("⚙️ 1");
    edit = await user.nextBotEvent();
    const order = ordersOf(world, accountId)[0]!;
    for (const part of [
      "Auto-buy",
      first.slice(0, 8),
      ADDRESS_A,
      "Most per order: 3 TRX",
      "Daily budget: 10 TRX (left today: 7.855 TRX, UTC day)",
      "Orders a day: at most 1",
      "Public price now: 1.95 TRX",
      "Last orders:",
      `2.145 TRX · order ${order.id.slice(0, 8)}`,
    ])
      expect(edit.message.text).toContain(part);
    expect(buttonLabels(edit.message)).toEqual(["⏸ Pause", "🗑 Delete", "📋 All auto-buys"]);
    user.press("🗑 Delete");
    edit = await user.nextBotEvent();
    expect(edit.message.text).toContain("deleted");
    expect(edit.message.text).toContain("Your auto-buys (1 of 5)");
    expect(await world.app.db.selectFrom("auto_buys").selectAll().execute()).toHaveLength(1);
  });

  it("a paused auto-buy buys nothing; the alert's Pause pauses, its Stop ends it for good", async () => {
    const { user, accountId } = await linkedUser(world, 5802);
    const id = await makeAutoBuy(world, user, `energy 65k 15m ${ADDRESS_A} 3 100`, { ordersPerDay: 5 });
    energyRate(world, 30, "15m");
    await check(world, { autoBought: 1 });
    await nextBotText(user, (text) => text.includes("Auto-bought"));
    await drained(world);
    user.press("⏸ Pause");
    const card = await nextBotText(user, (text) => text.includes("Status:"));
    expect(card.text).toContain("⏸ paused by you");
    expect(buttonLabels(card)).toContain("▶️ Resume");
    world.shiftAppClock(16 * 60_000);
    await check(world, { previews: 0, autoBought: 0 });
    user.press("▶️ Resume");
    await nextBotText(user, (text) => text.includes("🟢 buying"));
    await check(world, { autoBought: 1 });
    await nextBotText(user, (text) => text.includes("Auto-bought"));
    await drained(world);

    user.press("⏹ Stop");
    const ended = await nextBotText(user, (text) => text.includes("Status:"));
    expect(ended.text).toContain("stopped by you");
    expect(buttonLabels(ended)).toEqual(["🗑 Delete", "📋 All auto-buys"]);
    expect(await autoBuyRow(world, id)).toMatchObject({ status: "ended", reason: "user" });
    world.shiftAppClock(16 * 60_000);
    await check(world, { autoBought: 0 });
    expect(ordersOf(world, accountId)).toHaveLength(2);
  });

  it("the Automatic buying switch stops every auto-buy at once; off stays off; on resumes none by itself", async () => {
    const { user, accountId } = await linkedUser(world, 5803);
    const one = await makeAutoBuy(world, user, `energy 65k 1h ${ADDRESS_A} 3 10`);
    const two = await makeAutoBuy(world, user, `energy 65k 1h ${ADDRESS_B} 3 10`);
    user.send("/settings");
    const settings = await user.nextMessage();
    expect(settings.text).toContain("Automatic buying: on");
    user.press(/Automatic buying: on/);
    const off = await user.nextBotEvent();
    expect(off.message.text).toContain("Automatic buying: off");
    expect(buttonLabels(off.message)).toContain("⛔ Automatic buying: off");
    for (const id of [one, two])
      expect(await autoBuyRow(world, id)).toMatchObject({ status: "paused", reason: "switch" });

    energyRate(world, 30);
    await check(world, { previews: 0, autoBought: 0 });
    user.send(`/autobuy energy 65k 1d ${ADDRESS_A} 3 10`);
    expect((await user.nextMessage()).text).toContain("Automatic buying is off in /settings");
    user.send("/autobuys");
    const list = await nextBotText(user, (text) => text.includes("Your auto-buys"));
    expect(list.text).toContain("paused: Automatic buying was turned off");
    const resume = user.press("▶️ Resume 1");
    expect(await callbackAnswerText(world, resume.callbackQueryId)).toContain("Automatic buying is off in /settings");
    await check(world, { autoBought: 0 });
    expect(ordersOf(world, accountId)).toHaveLength(0);

    user.send("/settings");
    await user.nextMessage();
    user.press(/Automatic buying: off/);
    expect((await user.nextBotEvent()).message.text).toContain("Automatic buying: on");
    // On again resumes none by itself: each waits for its own Resume.
    await check(world, { autoBought: 0 });
    expect(await autoBuyRow(world, one)).toMatchObject({ status: "paused" });
    user.send("/autobuys");
    await nextBotText(user, (text) => text.includes("Your auto-buys"));
    user.press("▶️ Resume 1");
    await nextBotText(user, (text) => /1\. .*🟢 buying/.test(text));
    await check(world, { autoBought: 1 });
    expect(ordersOf(world, accountId)).toHaveLength(1);
  });
});
