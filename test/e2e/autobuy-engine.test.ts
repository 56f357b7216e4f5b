import { describe, expect, it } from "vitest";
import { checkPriceWatches } from "#src/push/price-watch-job";
import type { App } from "#src/app";
import {
  ADDRESS_A,
  ADDRESS_B,
  buttonLabels,
  buttonStyles,
  linkedUser,
  manageWorld,
  nextBotText,
  type World,
} from "../kit/world";
import { TEST_DATABASE_URL } from "../kit/test-database";
import {
  autoBoughtKeys,
  autoBoughtShown,
  check,
  energyRate,
  makeAutoBuy,
  drained,
  ordersOf,
  settle,
  toNextUtcDay,
} from "../kit/auto-buys";

const MINUTE = 60_000;
const bought = (text: string) => text.includes("Auto-bought");

/**
 * The buying engine (issue 55) on the price check the watches run: one public quote per rent, a
 * preview only under the cap, an order only when the user's total, the day's budget and count and
 * the address allow it, with an Idempotency-Key derived from (auto-buy, UTC day, number that day).
 */
describe("auto-buys: buying on the price check", () => {
  let world: World;
  manageWorld((started) => (world = started), { file: true });

  it("a crossing places one order, alerts once with Pause and Stop, and the order is followed to its end", async () => {
    const { user, accountId } = await linkedUser(world, 5601);
    const id = await makeAutoBuy(world, user, `energy 65k 1h ${ADDRESS_A} 3 10`);
    world.sandboxRequests.length = 0;
    // 4.225 TRX quoted: over the cap, so no preview is read.
    await check(world, { autoBuyRents: 1, quoted: 1, previews: 0, autoBought: 0 });
    expect(world.sandboxRequests.filter((request) => request.includes("/orders/preview"))).toHaveLength(0);

    energyRate(world, 30); // 1.95 quoted, 2.145 TRX the user's total
    await check(world, { quoted: 1, previews: 1, autoBought: 1 });
    const orders = ordersOf(world, accountId);
    expect(orders).toHaveLength(1);
    expect(orders[0]).toMatchObject({ targetAddress: ADDRESS_A, resource: "energy", duration: "1h" });
    const alert = await nextBotText(user, bought);
    for (const part of [
      "Auto-bought",
      "65,000 Energy for 1h",
      ADDRESS_A,
      "Total: 2.145 TRX",
      "your cap: 3 TRX",
      "Left of today's budget: 7.855 TRX of 10 TRX",
      orders[0]!.id,
    ])
      expect(alert.text).toContain(part);
    expect(buttonLabels(alert)).toEqual(["⏸ Pause", "⏹ Stop"]);
    expect(buttonStyles(alert)["⏹ Stop"]).toBe("danger");

    // The rental runs for an hour: later checks, and a restart, place nothing more.
    await check(world, { autoBought: 0 });
    await world.restart();
    await check(world, { autoBought: 0 });
    await settle();
    expect(ordersOf(world, accountId)).toHaveLength(1);
    expect(autoBoughtShown(user)).toHaveLength(1);
    const day = new Date(world.app.deps.now()).toISOString().slice(0, 10);
    expect(await autoBoughtKeys(world, 5601)).toEqual([`autobuy:${id}:${day}:1`]);

    // Followed like any order the bot placed: the filled alert follows.
    world.sandbox.control.settleNow({ accountId });
    await world.app.push.checkOrdersNow(5601);
    expect((await nextBotText(user, (text) => text.includes("filled"))).text).toContain(orders[0]!.id.slice(0, 8));
  });

  it("the daily budget and the order count stop further orders that day and allow them the next UTC day", async () => {
    energyRate(world, 30, "15m"); // 15 minutes of 65,000 energy: 2.145 TRX
    const budgeted = await linkedUser(world, 5602);
    await makeAutoBuy(world, budgeted.user, `energy 65k 15m ${ADDRESS_A} 3 5`, { ordersPerDay: 5 });
    const counted = await linkedUser(world, 5603);
    await makeAutoBuy(world, counted.user, `energy 65k 15m ${ADDRESS_B} 3 100`, { ordersPerDay: 2 });

    await check(world, { autoBuyRents: 1, quoted: 1, autoBought: 2 });
    await drained(world);
    // The rentals run 15 minutes: nothing before they end.
    world.shiftAppClock(10 * MINUTE);
    await check(world, { autoBought: 0 });
    world.shiftAppClock(6 * MINUTE);
    await check(world, { autoBought: 2 });
    await drained(world);
    expect(ordersOf(world, budgeted.accountId)).toHaveLength(2);
    expect(ordersOf(world, counted.accountId)).toHaveLength(2);
    // 4.29 of 5 TRX spent: the budget has no room for a third; the other has had its two orders.
    world.shiftAppClock(16 * MINUTE);
    await check(world, { autoBought: 0 });
    expect(ordersOf(world, budgeted.accountId)).toHaveLength(2);
    expect(ordersOf(world, counted.accountId)).toHaveLength(2);

    toNextUtcDay(world);
    await check(world, { autoBought: 2 });
    await drained(world);
    expect(ordersOf(world, budgeted.accountId)).toHaveLength(3);
    expect(ordersOf(world, counted.accountId)).toHaveLength(3);
    await settle();
    const alerts = autoBoughtShown(budgeted.user);
    expect(alerts).toHaveLength(3);
    expect(alerts[1]!.text).toContain("Left of today's budget: 0.71 TRX of 5 TRX");
    expect(alerts[2]!.text).toContain("Left of today's budget: 2.855 TRX of 5 TRX");
  });

  it("a running rental for the address blocks a second order; its end allows the next", async () => {
    const { user, accountId } = await linkedUser(world, 5604);
    await makeAutoBuy(world, user, `energy 65k 1h ${ADDRESS_A} 3 100`, { ordersPerDay: 5 });
    energyRate(world, 30);
    await check(world, { autoBought: 1 });
    await drained(world);
    for (const minutes of [1, 20, 30]) {
      world.shiftAppClock(minutes * MINUTE);
      await check(world, { autoBought: 0 });
    }
    expect(ordersOf(world, accountId)).toHaveLength(1);
    world.shiftAppClock(10 * MINUTE);
    await check(world, { autoBought: 1 });
    expect(ordersOf(world, accountId)).toHaveLength(2);
  });

  it("an order refunded no longer covers the address nor counts against the budget", async () => {
    const { user, accountId } = await linkedUser(world, 5605);
    await makeAutoBuy(world, user, `energy 65k 1h ${ADDRESS_A} 3 3`);
    energyRate(world, 30);
    world.sandbox.control.failNextOrder({ accountId, mode: "async" });
    await check(world, { autoBought: 1 });
    world.sandbox.control.settleNow({ accountId });
    await world.app.push.checkOrdersNow(5605);
    await nextBotText(user, (text) => text.includes("failed"));
    await check(world, { autoBought: 1 });
    expect(ordersOf(world, accountId).map((order) => order.status)).toEqual(["Failed", "Created"]);
  });

  it("retention deletes an auto-buy's settled orders 90 days on, never an open attempt", async () => {
    const { user } = await linkedUser(world, 5609);
    const id = await makeAutoBuy(world, user, `energy 65k 1h ${ADDRESS_A} 3 10`, { days: 30 });
    energyRate(world, 30);
    await check(world, { autoBought: 1 });
    await drained(world);
    const rows = () =>
      world.app.db.selectFrom("auto_buy_orders").select("state").where("auto_buy_id", "=", id).execute();
    await world.app.db
      .insertInto("auto_buy_orders")
      .values({
        auto_buy_id: id,
        day: "2000-01-01",
        n: 1,
        telegram_id: 5609,
        idempotency_key: `autobuy-${id}-2000-01-01-1`,
        state: "placing",
        order_id: null,
        total_sun: "1",
        rental_ends_at: 0,
        lease_owner: null,
        lease_until: null,
        created_at: 0,
        updated_at: 0,
      })
      .execute();
    world.shiftAppClock(89 * 24 * 3_600_000);
    await world.app.push.runRetention();
    expect((await rows()).map((row) => row.state).sort()).toEqual(["placed", "placing"]);
    world.shiftAppClock(2 * 24 * 3_600_000);
    await world.app.push.runRetention();
    expect((await rows()).map((row) => row.state)).toEqual(["placing"]);
  });

  it("a restart between the order call and its record places no second order and alerts once", async () => {
    const { user, accountId } = await linkedUser(world, 5606);
    const id = await makeAutoBuy(world, user, `energy 65k 1h ${ADDRESS_A} 3 10`);
    energyRate(world, 30);
    // The order is held 1.5 s on its way in: the bot stops while it waits, before it can record it.
    world.sandbox.control.injectFault({ method: "POST", pathPrefix: "/orders", delayMs: 1500 });
    const interrupted = world.app.push.checkPriceWatches().catch(() => null);
    for (let i = 0; i < 200 && !world.sandboxRequests.includes("POST /api/v1/orders"); i++) await settle(10);
    expect(world.sandboxRequests).toContain("POST /api/v1/orders");
    const attempt = await world.app.db
      .selectFrom("auto_buy_orders")
      .selectAll()
      .where("auto_buy_id", "=", id)
      .executeTakeFirstOrThrow();
    expect(attempt.state).toBe("placing");
    await world.restart();
    await interrupted;
    for (let i = 0; i < 300 && ordersOf(world, accountId).length === 0; i++) await settle(10);
    expect(ordersOf(world, accountId)).toHaveLength(1);
    // The new process finds the attempt open and sends its key again: the marketplace returns that order.
    await check(world, { autoBought: 1 });
    await check(world, { autoBought: 0 });
    expect(ordersOf(world, accountId)).toHaveLength(1);
    const recorded = await world.app.db
      .selectFrom("auto_buy_orders")
      .selectAll()
      .where("auto_buy_id", "=", id)
      .execute();
    expect(recorded).toHaveLength(1);
    expect(recorded[0]).toMatchObject({ state: "placed", order_id: ordersOf(world, accountId)[0]!.id });
    await nextBotText(user, bought);
    await settle();
    expect(autoBoughtShown(user)).toHaveLength(1);
  });

  it.skipIf(!TEST_DATABASE_URL)(
    `two replicas place one order for one crossing${TEST_DATABASE_URL ? "" : " (skipped: several replicas need PostgreSQL, TEST_DATABASE_URL unset)"}`,
    async () => {
      const replica = await world.startReplica();
      const first = await linkedUser(world, 5607);
      await makeAutoBuy(world, first.user, `energy 65k 1h ${ADDRESS_A} 3 10`);
      energyRate(world, 30);
      // Both replicas' cron ticks fire for the same second: one checks it.
      const tick = Math.floor(world.app.deps.now() / 1000) * 1000;
      const reports = await Promise.all([world.app.push.checkPriceWatches(tick), replica.push.checkPriceWatches(tick)]);
      expect(reports.filter((report) => report !== null)).toHaveLength(1);
      expect(ordersOf(world, first.accountId)).toHaveLength(1);

      // Even two checks at once (a replica that lost its lease mid-check): the attempt's key is the
      // table's key, so one of them writes it and sends the order.
      const second = await linkedUser(world, 5608);
      await makeAutoBuy(world, second.user, `energy 65k 1h ${ADDRESS_B} 3 10`);
      const direct = (app: App, owner: string) =>
        checkPriceWatches(
          {
            db: app.db,
            logger: app.logger,
            translations: app.deps.i18n,
            now: app.deps.now,
            marketplace: app.deps.marketplace,
            box: app.deps.box,
            onQueued: () => app.push.sender.wake(),
            autoBuys: {
              db: app.db,
              logger: app.logger,
              translations: app.deps.i18n,
              now: app.deps.now,
              marketplace: app.deps.marketplace,
              box: app.deps.box,
              onQueued: () => app.push.sender.wake(),
              owner,
            },
          },
          null,
        );
      const both = await Promise.all([direct(world.app, "replica-a"), direct(replica, "replica-b")]);
      expect(both.reduce((sum, report) => sum + (report?.autoBought ?? 0), 0)).toBe(1);
      expect(ordersOf(world, second.accountId)).toHaveLength(1);
      await nextBotText(second.user, bought);
      await settle();
      expect(autoBoughtShown(second.user)).toHaveLength(1);
      expect(autoBoughtShown(first.user)).toHaveLength(1);
    },
  );
  it("the bot's daily cap (/settings) bounds auto-buys too: over it nothing is bought; once it allows, the order counts in today's spending through the bot", async () => {
    const { user, accountId } = await linkedUser(world, 5620);
    user.send("/settings cap 2");
    await nextBotText(user, (text) => text.includes("Daily cap through this bot: 2 TRX per UTC day"));
    await makeAutoBuy(world, user, `energy 65k 1h ${ADDRESS_A} 3 10`);
    energyRate(world, 30); // 2.145 TRX the user's total: under the auto-buy's cap of 3, over the bot's 2
    await check(world, { previews: 1, autoBought: 0 });
    await check(world, { autoBought: 0 });
    expect(ordersOf(world, accountId)).toHaveLength(0);

    user.send("/settings cap 5");
    await nextBotText(user, (text) => text.includes("Daily cap through this bot: 5 TRX per UTC day"));
    await check(world, { autoBought: 1 });
    expect(ordersOf(world, accountId)).toHaveLength(1);
    await nextBotText(user, bought);
    user.send("/settings");
    const card = await nextBotText(user, (text) => text.includes("Spend guard"));
    expect(card.text).toContain("Daily cap through this bot: 5 TRX (today so far: 2.145 TRX)");
  });
});
