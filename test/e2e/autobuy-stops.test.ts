import { describe, expect, it } from "vitest";
import { ADDRESS_A, buttonLabels, linkKey, linkedUser, manageWorld, nextBotText, type World } from "../kit/world";
import { groupTexts, linkGroup, teamGroup } from "../kit/group-helpers";
import { autoBuyRow, check, drained, energyRate, makeAutoBuy, ordersOf, settle, toNextUtcDay } from "../kit/auto-buys";

const stopped = (text: string) => text.includes("stopped:") || text.includes("paused until the next UTC day");
/** The auto-buy alerts that say it stopped (or waits), as shown in the chat. */
const stopAlerts = (user: ReturnType<World["user"]>) =>
  user.botMessages().filter((message) => stopped(message.text ?? "") && message.text!.includes("Why:"));

/**
 * The "Auto-bought" alert and its group copy, and an auto-buy stopping by itself (issue 55): each
 * cause told once, with why and what to do; a spend limit waits for the next UTC day.
 */
describe("auto-buys: the alert, and stopping by itself", () => {
  let world: World;
  manageWorld((started) => (world = started), { file: true });

  it("the Auto-bought alert is copied to the team's group like a filled alert: the owner named, no total, no button", async () => {
    const { user } = await linkedUser(world, 5701);
    const group = teamGroup(world, [user]);
    await linkGroup(world, user, group);
    await makeAutoBuy(world, user, `energy 65k 1h ${ADDRESS_A} 3 10`);
    energyRate(world, 30);
    await check(world, { autoBought: 1 });
    await nextBotText(user, (text) => text.includes("Auto-bought"));
    await drained(world);
    const copy = world.fake
      .messages(group.id)
      .filter((message) => message.from === "bot")
      .find((message) => (message.text ?? "").includes("Auto-bought"));
    expect(copy?.text).toContain("User5701");
    expect(copy?.text).toContain(ADDRESS_A);
    expect(copy?.text).not.toContain("2.145");
    expect(copy?.text).not.toContain("budget");
    expect(buttonLabels(copy!)).toEqual([]);
    expect(groupTexts(world, group.id).filter((text) => text.includes("Auto-bought"))).toHaveLength(1);
  });

  it("402: stops with Top up and Resume, told once; Resume after a top-up buys again", async () => {
    const { user, accountId } = await linkedUser(world, 5702);
    const id = await makeAutoBuy(world, user, `energy 65k 1h ${ADDRESS_A} 3 10`);
    world.sandbox.control.setBalance({ accountId, trx: "1" });
    energyRate(world, 30);
    await check(world, { previews: 1, autoBought: 0 });
    const alert = await nextBotText(user, stopped);
    expect(alert.text).toContain("your balance did not cover the next order (402)");
    expect(alert.text).toContain("top up, then tap Resume");
    expect(buttonLabels(alert)).toEqual(["💳 Top up", "▶️ Resume"]);
    expect(await autoBuyRow(world, id)).toMatchObject({ status: "stopped", reason: "balance" });
    await check(world, { previews: 0, autoBought: 0 });
    await settle();
    expect(stopAlerts(user)).toHaveLength(1);

    world.sandbox.control.setBalance({ accountId, trx: "100" });
    user.press("▶️ Resume");
    await nextBotText(user, (text) => text.includes("Status: 🟢 buying"));
    await check(world, { autoBought: 1 });
    expect(ordersOf(world, accountId)).toHaveLength(1);
  });

  it("403 scope: a read-only key stops every auto-buy of the user, told once, with Connect", async () => {
    const { accountId, apiKey } = world.newAccount({ trx: "1000", usdt: "0" }, "read");
    const user = world.user(5703);
    await linkKey(world, user, apiKey);
    await makeAutoBuy(world, user, `energy 65k 1h ${ADDRESS_A} 3 10`);
    await makeAutoBuy(world, user, `energy 65k 1d ${ADDRESS_A} 3 10`);
    energyRate(world, 30);
    await check(world, { autoBought: 0 });
    const alert = await nextBotText(user, stopped);
    expect(alert.text).toContain("Auto-buys stopped");
    expect(alert.text).toContain("may not buy (403");
    expect(buttonLabels(alert)).toEqual(["🔗 Connect a key"]);
    const rows = await world.app.db.selectFrom("auto_buys").select(["status", "reason"]).execute();
    expect(rows).toEqual([
      { status: "stopped", reason: "scope" },
      { status: "stopped", reason: "scope" },
    ]);
    energyRate(world, 30, "1d");
    await check(world, { autoBought: 0 });
    await settle();
    expect(stopAlerts(user)).toHaveLength(1);
    expect(ordersOf(world, accountId)).toHaveLength(0);
  });

  it("401: a revoked key stops them and is marked broken, told once", async () => {
    const { user, apiKey } = await linkedUser(world, 5704);
    const id = await makeAutoBuy(world, user, `energy 65k 1h ${ADDRESS_A} 3 10`);
    world.sandbox.control.revokeKey({ apiKey });
    energyRate(world, 30);
    await check(world, { autoBought: 0 });
    const alert = await nextBotText(user, stopped);
    expect(alert.text).toContain("refused your API key (401)");
    expect(alert.text).toContain("/connect");
    expect(await autoBuyRow(world, id)).toMatchObject({ status: "stopped", reason: "key" });
    const credential = await world.app.db
      .selectFrom("credentials")
      .selectAll()
      .where("telegram_id", "=", 5704)
      .executeTakeFirst();
    expect(credential?.broken_at).not.toBeNull();
    await check(world, { autoBought: 0 });
    await settle();
    expect(stopAlerts(user)).toHaveLength(1);
    expect(user.botMessages().filter((message) => (message.text ?? "").includes("no longer works"))).toHaveLength(0);
  });

  it("two provider failures (502) in a row stop it; one, then an order, does not", async () => {
    const { user, accountId } = await linkedUser(world, 5705);
    const id = await makeAutoBuy(world, user, `energy 65k 15m ${ADDRESS_A} 3 100`, { ordersPerDay: 5 });
    energyRate(world, 30, "15m");
    world.sandbox.control.failNextOrder({ accountId, mode: "sync" });
    await check(world, { autoBought: 0 });
    expect(await autoBuyRow(world, id)).toMatchObject({ status: "active" });
    await check(world, { autoBought: 1 });
    await drained(world);
    world.shiftAppClock(16 * 60_000);
    world.sandbox.control.failNextOrder({ accountId, mode: "sync" });
    await check(world, { autoBought: 0 });
    expect(await autoBuyRow(world, id)).toMatchObject({ status: "active" });
    world.sandbox.control.failNextOrder({ accountId, mode: "sync" });
    await check(world, { autoBought: 0 });
    expect(await autoBuyRow(world, id)).toMatchObject({ status: "stopped", reason: "provider" });
    const alert = await nextBotText(user, stopped);
    expect(alert.text).toContain("failed twice in a row (502)");
    expect(buttonLabels(alert)).toEqual(["▶️ Resume"]);
    await check(world, { autoBought: 0 });
    await settle();
    expect(stopAlerts(user)).toHaveLength(1);
    expect(ordersOf(world, accountId).filter((order) => order.status !== "Failed")).toHaveLength(1);
  });

  it("another key linked stops them (said in the reply); /disconnect deletes them", async () => {
    const { user } = await linkedUser(world, 5706);
    const id = await makeAutoBuy(world, user, `energy 65k 1h ${ADDRESS_A} 3 10`);
    const other = world.newAccount();
    user.send(`/connect ${other.apiKey}`);
    const reply = await nextBotText(user, (text) => text.includes("linked"));
    expect(reply.text).toContain("made under the previous key, so it is stopped");
    expect(await autoBuyRow(world, id)).toMatchObject({ status: "stopped", reason: "relinked" });
    energyRate(world, 30);
    await check(world, { autoBought: 0 });
    expect(ordersOf(world, other.accountId)).toHaveLength(0);

    user.send("/disconnect");
    await nextBotText(user, (text) => text.includes("auto-buys"));
    user.press("✅ Confirm");
    await nextBotText(user, (text) => text.includes("deleted"));
    expect(await world.app.db.selectFrom("auto_buys").selectAll().execute()).toHaveLength(0);
  });

  it("its end date reached: it ends and says so once", async () => {
    const { user } = await linkedUser(world, 5707);
    const id = await makeAutoBuy(world, user, `energy 65k 1h ${ADDRESS_A} 3 10`, { days: 1 });
    world.shiftAppClock(24 * 3_600_000 + 60_000);
    energyRate(world, 30);
    await check(world, { autoBought: 0 });
    const alert = await nextBotText(user, stopped);
    expect(alert.text).toContain("its end date came");
    expect(await autoBuyRow(world, id)).toMatchObject({ status: "ended", reason: "ended" });
    await check(world, { autoBought: 0 });
    await settle();
    expect(stopAlerts(user)).toHaveLength(1);
  });

  it("403 daily spend limit: paused until the next UTC day, told once, then it resumes by itself", async () => {
    // The key may spend 3 TRX a UTC day: one order of 2.145 TRX fits, a second does not.
    const { accountId, apiKey } = world.newAccount({ trx: "1000", usdt: "0" }, "purchase", "3");
    const user = world.user(5708);
    await linkKey(world, user, apiKey);
    const id = await makeAutoBuy(world, user, `energy 65k 15m ${ADDRESS_A} 3 10`, { ordersPerDay: 3 });
    energyRate(world, 30, "15m");
    await check(world, { autoBought: 1 });
    await drained(world);
    world.shiftAppClock(16 * 60_000);
    await check(world, { autoBought: 0 });
    const alert = await nextBotText(user, stopped);
    expect(alert.text).toContain("paused until the next UTC day");
    expect(alert.text).toContain("daily spend limit is reached (403)");
    expect(alert.text).toContain("resumes by itself at 00:00 UTC");
    expect(await autoBuyRow(world, id)).toMatchObject({ status: "waiting", reason: "spend_limit" });
    await drained(world);
    world.shiftAppClock(16 * 60_000);
    await check(world, { previews: 0, autoBought: 0 });
    await settle();
    expect(stopAlerts(user)).toHaveLength(1);

    // The next UTC day, for the bot and the marketplace alike: it resumes by itself and buys.
    await drained(world);
    toNextUtcDay(world);
    world.advance(24 * 3_600_000);
    await check(world, { autoBought: 1 });
    expect(await autoBuyRow(world, id)).toMatchObject({ status: "active" });
    expect(ordersOf(world, accountId)).toHaveLength(2);
  });
});
