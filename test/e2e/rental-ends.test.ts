import { describe, expect, it } from "vitest";
import { ADDRESS_A, ADDRESS_B, buttonLabels, cardOutcome, manageWorld, nextBotText, type World } from "../kit/world";
import { buyThroughBot, linkedUser, outboxOf, waitFor } from "../kit/push-helpers";
import { checkRentalEnds } from "#src/push/rental-ends";
import { RENEW } from "#src/chat/callback-data";

const MINUTE = 60_000;

/**
 * The "ends" alert: every filled order the bot knows of (placed through it and followed, or seen
 * filled by a webhook or a notification poll) gets one alert before its rental ends, naming the
 * rent and the address, with Renew (a fresh card at today's price). One per order across restarts
 * and replicas.
 */
describe("a rental ending", () => {
  let world: World;
  // A file database: the alert's marker must survive the restart, and a replica shares it.
  manageWorld((started) => (world = started), { file: true });

  type Who = Awaited<ReturnType<typeof linkedUser>>;
  const ordersOf = (who: Who) => world.sandbox.control.listOrders(who.accountId);
  const endsAlerts = async (telegramId: number) =>
    (await outboxOf(world, telegramId)).filter((row) => row.dedupe_key.startsWith("ends:"));
  const isEndsAlert = (text: string) => text.includes("Your rental ends in");
  const check = () => world.app.push.checkRentalEnds();

  /** An order placed at the marketplace directly (not through the bot), with the user's key. */
  async function orderElsewhere(who: Who, duration: string, address = ADDRESS_B): Promise<string> {
    const response = await fetch(`${world.marketplaceUrl}/api/v1/orders`, {
      method: "POST",
      headers: { "x-api-key": who.apiKey, "idempotency-key": crypto.randomUUID(), "content-type": "application/json" },
      body: JSON.stringify({ resource: "energy", targetAddress: address, volume: 65000, duration }),
    });
    expect(response.status).toBe(200);
    return ((await response.json()) as { id: string }).id;
  }

  it("an order bought through the bot: one alert 10 minutes before its hour ends, naming the rent and address; Renew opens a fresh card at today's price under the spend guard", async () => {
    const who = await linkedUser(world, 5621);
    const orderId = await buyThroughBot(world, who);
    world.sandbox.control.settleNow({ accountId: who.accountId });
    expect(await world.app.push.checkOrdersNow(5621)).toBe(1);
    await nextBotText(who.user, (text) => text.includes("filled"));

    expect(await check()).toEqual({ alerted: 0, missed: 0 });
    world.shiftAppClock(49 * MINUTE);
    expect(await check()).toEqual({ alerted: 0, missed: 0 });
    world.shiftAppClock(MINUTE + 1_000);
    expect(await check()).toEqual({ alerted: 1, missed: 0 });
    const alert = await nextBotText(who.user, isEndsAlert);
    for (const part of ["ends in 10 min", orderId.slice(0, 8), "65,000", "Energy", "1h", ADDRESS_A, "UTC"])
      expect(alert.text).toContain(part);
    expect(buttonLabels(alert)).toEqual(["🔁 Renew"]);
    const data = alert.replyMarkup!.inline_keyboard[0]![0]!.callback_data!;
    expect(RENEW.parse(data)).not.toBeNull();
    expect(data).not.toContain(orderId.slice(0, 8));

    // Renew: today's price (it moved), the same rent and address, the daily cap's line; Confirm places it.
    world.sandbox.control.setPrice({ resource: "energy", duration: "1h", sunPerUnit: 70 });
    who.user.send("/settings cap 100");
    await nextBotText(who.user, (text) => text.includes("Spend guard"));
    world.fake.pressButtonByLabel(who.user.user, "🔁 Renew", { messageId: alert.messageId });
    const card = await nextBotText(who.user, (text) => text.includes("Confirm your order"));
    for (const part of ["65,000", "1h", ADDRESS_A, "Total: 5.005 TRX", "Today through this bot: 4.6475 of 100 TRX"])
      expect(card.text).toContain(part);
    world.fake.pressButtonByLabel(who.user.user, "✅ Confirm", { messageId: card.messageId });
    expect((await cardOutcome(who.user)).text).toContain("Order placed");
    expect(ordersOf(who)).toHaveLength(2);

    // Nothing more for this order: again, after a restart, or later.
    expect(await check()).toEqual({ alerted: 0, missed: 0 });
    await world.restart();
    world.shiftAppClock(5 * MINUTE);
    expect(await world.app.push.checkRentalEnds()).toEqual({ alerted: 0, missed: 0 });
    expect(await endsAlerts(5621)).toHaveLength(1);
  });

  it("a rental under an hour is alerted a quarter of its duration before the end (15 minutes: 3 min 45 s before)", async () => {
    const who = await linkedUser(world, 5622);
    world.sandbox.control.setWebhookUrl({ accountId: who.accountId, url: who.webhookUrl });
    who.user.send(`/buy energy 65000 15m ${ADDRESS_A}`);
    await nextBotText(who.user, (text) => text.includes("Confirm your order"));
    who.user.press("✅ Confirm");
    await nextBotText(who.user, (text) => text.includes("Order placed"));
    // Settled and told by the sandbox's own webhook.
    world.sandbox.control.settleNow({ accountId: who.accountId });
    await world.sandbox.tick();
    await nextBotText(who.user, (text) => text.includes("filled"));
    world.shiftAppClock(11 * MINUTE);
    expect(await check()).toEqual({ alerted: 0, missed: 0 });
    world.shiftAppClock(15_000 + 1_000);
    expect(await check()).toEqual({ alerted: 1, missed: 0 });
    const alert = await nextBotText(who.user, isEndsAlert);
    expect(alert.text).toContain("ends in 4 min");
    expect(alert.text).toContain("15m");
  });

  it("an order placed elsewhere, seen filled only by a webhook or only by a notification poll, is alerted too", async () => {
    const byWebhook = await linkedUser(world, 5623);
    const id = await orderElsewhere(byWebhook, "1h");
    world.sandbox.control.settleNow({ accountId: byWebhook.accountId });
    const order = world.sandbox.control.listOrders(byWebhook.accountId)[0]!;
    expect((await byWebhook.post({ event: "order.filled", data: { order } })).status).toBe(200);
    await nextBotText(byWebhook.user, (text) => text.includes("filled"));

    const byPoll = await linkedUser(world, 5624);
    const polledId = await orderElsewhere(byPoll, "1d", ADDRESS_A);
    world.sandbox.control.settleNow({ accountId: byPoll.accountId });
    await world.app.push.pollNow();
    await nextBotText(byPoll.user, (text) => text.includes("filled"));

    world.shiftAppClock(50 * MINUTE + 1_000);
    expect(await check()).toEqual({ alerted: 1, missed: 0 });
    const first = await nextBotText(byWebhook.user, isEndsAlert);
    expect(first.text).toContain(id.slice(0, 8));
    expect(first.text).toContain(ADDRESS_B);
    world.shiftAppClock(23 * 60 * MINUTE);
    expect(await check()).toEqual({ alerted: 1, missed: 0 });
    const second = await nextBotText(byPoll.user, isEndsAlert);
    expect(second.text).toContain(polledId.slice(0, 8));
    expect(second.text).toContain("1d");
  });

  it("one alert per order with two replicas checking at once, and with two passes racing past the lease", async () => {
    const users = [await linkedUser(world, 5625), await linkedUser(world, 5626)];
    for (const who of users) {
      await buyThroughBot(world, who);
      world.sandbox.control.settleNow({ accountId: who.accountId });
    }
    await world.app.push.checkOrdersNow();
    const replica = await world.startReplica();
    world.shiftAppClock(51 * MINUTE);
    const reports = await Promise.all([world.app.push.checkRentalEnds(), replica.push.checkRentalEnds()]);
    expect(reports.reduce((sum, report) => sum + (report?.alerted ?? 0), 0)).toBe(2);
    for (const who of users) await nextBotText(who.user, isEndsAlert);

    // Two passes without the lease (a replica whose lease ran out mid-pass): the marker decides.
    const third = await linkedUser(world, 5627);
    // The marketplace's clock (the orders' creation) catches up with the bot's, moved above.
    world.advance(51 * MINUTE);
    await buyThroughBot(world, third);
    world.sandbox.control.settleNow({ accountId: third.accountId });
    await world.app.push.checkOrdersNow(5627);
    world.shiftAppClock(51 * MINUTE);
    const deps = { ...world.app.deps, translations: world.app.deps.i18n, onQueued: () => world.app.push.sender.wake() };
    const raced = await Promise.all([checkRentalEnds(deps), checkRentalEnds(deps), checkRentalEnds(deps)]);
    expect(raced.reduce((sum, report) => sum + report.alerted, 0)).toBe(1);
    await nextBotText(third.user, isEndsAlert);
    await waitFor(async () => (await outboxOf(world, 5627)).every((row) => row.status !== "queued"));
    for (const id of [5625, 5626, 5627]) {
      expect(await endsAlerts(id)).toHaveLength(1);
      expect(world.fake.messages(id).filter((message) => isEndsAlert(message.text ?? ""))).toHaveLength(1);
    }
  });

  it("switched off in /settings, or seen only after the rental ended: no alert", async () => {
    const off = await linkedUser(world, 5628);
    off.user.send("/settings");
    const card = await nextBotText(off.user, (text) => text.includes("Spend guard"));
    world.fake.pressButtonByLabel(off.user.user, "🔔 Rental ending", { messageId: card.messageId });
    await nextBotText(off.user, (text) => text.includes("🔕 Rental ending: off"));
    await buyThroughBot(world, off);
    world.sandbox.control.settleNow({ accountId: off.accountId });
    await world.app.push.checkOrdersNow(5628);

    const late = await linkedUser(world, 5629);
    await orderElsewhere(late, "15m");
    world.sandbox.control.settleNow({ accountId: late.accountId });
    world.shiftAppClock(20 * MINUTE);
    await world.app.push.pollNow();
    await nextBotText(late.user, (text) => text.includes("filled"));

    world.shiftAppClock(40 * MINUTE);
    expect(await check()).toEqual({ alerted: 0, missed: 2 });
    expect(await endsAlerts(5628)).toEqual([]);
    expect(await endsAlerts(5629)).toEqual([]);
  });
});
