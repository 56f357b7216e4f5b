import { describe, expect, it } from "vitest";
import { ADDRESS_A, linkKey, manageWorld, nextBotText, type World } from "../kit/world";
import { outboxOf, outboxSwept } from "../kit/push-helpers";

const MINUTE = 60_000;

/**
 * Rule delivery alerts (opt-in in /settings, off by default): one alert per firing of the user's
 * active rules ("delivered 100,000 energy to T… for 9.35 TRX"), read from the fires endpoint only
 * for users who asked, at their polling pace; one per firing across a restart and two replicas.
 */
describe("rule delivery alerts", () => {
  let world: World;
  // A file database: the marks must survive the restart, and a replica shares it.
  manageWorld((started) => (world = started), { file: true });

  const isDelivered = (text: string) => text.includes("delivered");
  const deliveredAlerts = async (telegramId: number) =>
    (await outboxOf(world, telegramId)).filter((row) => row.dedupe_key.startsWith("delivered:"));
  const firesReads = () => world.sandboxRequests.filter((request) => request.endsWith("/fires"));

  /** A user whose account has a daily renewal of 100,000 energy (9.35 TRX a delivery), linked after it was made. */
  async function userWithRule(id: number) {
    const account = world.newAccount({ trx: "500", usdt: "0" });
    const response = await fetch(`${world.marketplaceUrl}/api/v1/automations/renewal`, {
      method: "POST",
      headers: { "x-api-key": account.apiKey, "content-type": "application/json" },
      body: JSON.stringify({ targetAddress: ADDRESS_A, volume: 100_000 }),
    });
    const ruleId = ((await response.json()) as { id: string }).id;
    const user = world.user(id);
    await linkKey(world, user, account.apiKey);
    await world.settled();
    const fire = (times = 1) => {
      for (let index = 0; index < times; index++) {
        // A minute apart on the marketplace's clock: each firing is its own event.
        world.advance(MINUTE);
        expect(world.sandbox.control.fireRule({ ruleId }).fired).toBe(true);
      }
    };
    return { ...account, ruleId, user, fire };
  }

  async function switchOn(user: ReturnType<World["user"]>) {
    user.send("/settings");
    const card = await nextBotText(user, (text) => text.includes("Spend guard"));
    world.fake.pressButtonByLabel(user.user, "🔕 Rule deliveries", { messageId: card.messageId });
    await nextBotText(user, (text) => text.includes("🔔 Rule deliveries: on"));
  }

  it("off by default: firings are not read at each poll and nothing is alerted", async () => {
    const who = await userWithRule(5681);
    who.fire(2);
    world.sandboxRequests.length = 0;
    for (let poll = 0; poll < 3; poll++) await world.app.push.pollNow();
    expect(firesReads()).toEqual([]);
    await outboxSwept(world, 5681);
    expect(await deliveredAlerts(5681)).toEqual([]);
  });

  it("on: one alert per firing (none for those before the switch), at every poll, one per firing across a restart and two replicas", async () => {
    const who = await userWithRule(5682);
    who.fire();
    // Past the clocks' slack: the firing above is from before the alerts were switched on.
    world.shiftAppClock(10 * MINUTE);
    world.advance(10 * MINUTE);
    await switchOn(who.user);
    who.fire(2);
    world.sandboxRequests.length = 0;
    await world.app.push.pollNow();
    expect(firesReads()).toEqual([`GET /api/v1/automations/${who.ruleId}/fires`]);
    const first = await nextBotText(who.user, isDelivered);
    expect(first.text).toContain(`Rule ${who.ruleId.slice(0, 8)}`);
    expect(first.text).toContain(`delivered 100,000 energy to ${ADDRESS_A} for 9.35 TRX`);
    expect(first.text).toContain("1d");
    await nextBotText(who.user, isDelivered);
    await outboxSwept(world, 5682);
    expect(await deliveredAlerts(5682)).toHaveLength(2);

    // The next polls read the firings again and find nothing new; nor after a restart.
    await world.app.push.pollNow();
    await world.restart();
    await world.app.push.pollNow();
    await outboxSwept(world, 5682);
    expect(await deliveredAlerts(5682)).toHaveLength(2);

    // Two replicas polling at once: the new firing is told once.
    who.fire();
    const replica = await world.startReplica();
    await Promise.all([world.app.push.pollNow(), replica.push.pollNow()]);
    await nextBotText(who.user, isDelivered);
    await outboxSwept(world, 5682);
    expect(await deliveredAlerts(5682)).toHaveLength(3);
    expect(who.user.botMessages().filter((message) => isDelivered(message.text ?? ""))).toHaveLength(3);
  });

  it("switched off again: the firings are no longer read at each poll, and nothing is told", async () => {
    const who = await userWithRule(5684);
    await switchOn(who.user);
    world.sandboxRequests.length = 0;
    await world.app.push.pollNow();
    expect(firesReads()).toHaveLength(1);
    who.user.send("/settings");
    const card = await nextBotText(who.user, (text) => text.includes("🔔 Rule deliveries: on"));
    world.fake.pressButtonByLabel(who.user.user, "🔔 Rule deliveries", { messageId: card.messageId });
    await nextBotText(who.user, (text) => text.includes("🔕 Rule deliveries: off"));
    who.fire();
    world.sandboxRequests.length = 0;
    await world.app.push.pollNow();
    await world.app.push.pollNow();
    expect(firesReads()).toEqual([]);
    await outboxSwept(world, 5684);
    expect(await deliveredAlerts(5684)).toEqual([]);
  });

  it("a paused rule's firings are not read", async () => {
    const who = await userWithRule(5683);
    await switchOn(who.user);
    await fetch(`${world.marketplaceUrl}/api/v1/automations/${who.ruleId}/pause`, {
      method: "POST",
      headers: { "x-api-key": who.apiKey },
    });
    // The pause is the user's own at the marketplace: the daily read of the rule list finds it.
    await world.app.db.updateTable("poll_state").set({ rules_checked_at: 0 }).where("telegram_id", "=", 5683).execute();
    world.sandboxRequests.length = 0;
    await world.app.push.pollNow();
    await world.app.push.pollNow();
    expect(firesReads()).toEqual([]);
  });
});
