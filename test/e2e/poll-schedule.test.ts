import { describe, expect, it } from "vitest";
import { ADDRESS_A, manageWorld, nextBotText, type World } from "../kit/world";
import { botTexts, linkedUser, outboxOf, pause, waitFor } from "../kit/push-helpers";

/**
 * The notification poll follows activity: users with something in motion are polled on every
 * tick, everyone else every POLL_IDLE_INTERVAL. Ticks are run with pollTick() (the cron task of
 * the world never fires) and time passes with shiftAppClock.
 */

const MINUTE = 60_000;

const stateOf = (world: World, id: number) =>
  world.app.db.selectFrom("poll_state").selectAll().where("telegram_id", "=", id).executeTakeFirstOrThrow();

/** Runs one tick; true when it polled the user (their last cycle moved). */
async function tickPolls(world: World, id: number): Promise<boolean> {
  const before = Number((await stateOf(world, id)).last_cycle);
  await world.app.push.pollTick();
  return Number((await stateOf(world, id)).last_cycle) > before;
}

/** The poll_schedule_users series of /metrics, as "schedule/reason" → count. */
async function scheduleMetrics(world: World): Promise<Record<string, number>> {
  const text = await (await fetch(`${world.app.url}/metrics`)).text();
  const series: Record<string, number> = {};
  for (const match of text.matchAll(/^poll_schedule_users\{schedule="(\w+)",reason="(\w+)"\} (\d+)$/gm))
    series[`${match[1]}/${match[2]}`] = Number(match[3]);
  return series;
}

describe("the poll schedule", () => {
  let world: World;
  manageWorld((started) => (world = started), { env: { POLL_IDLE_INTERVAL: "10m" } });

  it("an idle user is polled every POLL_IDLE_INTERVAL; /topup moves them to every tick at once, and back to idle when the hour is over", async () => {
    const idle = await linkedUser(world, 5101);
    const other = await linkedUser(world, 5102);
    expect((await stateOf(world, 5101)).motion).toBeNull();
    expect(await scheduleMetrics(world)).toEqual({
      "idle/none": 2,
      "fast/rule": 0,
      "fast/order": 0,
      "fast/deposit": 0,
    });

    // Nothing in motion: a tick does not poll them, so a new notification waits.
    world.sandbox.control.addNotification({
      accountId: idle.accountId,
      title: "Maintenance tonight",
      body: "03:00 UTC",
    });
    expect(await tickPolls(world, 5101)).toBe(false);
    await pause(300);
    expect(botTexts(world, 5101).some((text) => text.includes("Maintenance tonight"))).toBe(false);

    // /topup: a deposit is expected, polled from the next tick on.
    idle.user.send("/topup");
    await waitFor(async () => (await stateOf(world, 5101)).motion === "deposit");
    expect((await stateOf(world, 5101)).motion).toBe("deposit");
    expect(await scheduleMetrics(world)).toMatchObject({ "idle/none": 1, "fast/deposit": 1 });
    expect(await tickPolls(world, 5101)).toBe(true);
    await waitFor(() => botTexts(world, 5101).some((text) => text.includes("Maintenance tonight")));
    expect(await tickPolls(world, 5101)).toBe(true);
    // The other user is still idle, and not polled on these ticks.
    expect(Number((await stateOf(world, 5102)).last_cycle)).toBe(0);

    // An hour after /topup nothing holds any more: the next poll moves them back to idle.
    world.shiftAppClock(61 * MINUTE);
    expect(await tickPolls(world, 5101)).toBe(true);
    expect((await stateOf(world, 5101)).motion).toBeNull();
    expect(await tickPolls(world, 5101)).toBe(false);
    // The other user's idle interval has passed: polled once, then idle again.
    expect(Number((await stateOf(world, 5102)).last_cycle)).toBeGreaterThan(0);
    world.shiftAppClock(5 * MINUTE);
    expect(await tickPolls(world, 5101)).toBe(false);
    world.shiftAppClock(5 * MINUTE + 1000);
    expect(await tickPolls(world, 5101)).toBe(true);
    expect(await scheduleMetrics(world)).toMatchObject({ "idle/none": 2, "fast/deposit": 0 });
    expect(other.accountId).toBeTruthy();
  });

  it("Confirm on an order card moves the user to every tick with reason order, until the order settles and the grace is over", async () => {
    const buyer = await linkedUser(world, 5103);
    buyer.user.send(`/buy energy 65000 1h ${ADDRESS_A}`);
    await buyer.user.nextMessage();
    buyer.user.press("✅ Confirm");
    await waitFor(() => botTexts(world, 5103).some((text) => text.includes("Order placed")));
    expect((await stateOf(world, 5103)).motion).toBe("order");
    expect(await tickPolls(world, 5103)).toBe(true);
    expect(await tickPolls(world, 5103)).toBe(true);
    // The order is followed until it settles: still in motion past the grace after Confirm.
    world.shiftAppClock(20 * MINUTE);
    expect(await tickPolls(world, 5103)).toBe(true);
    expect((await stateOf(world, 5103)).motion).toBe("order");
    world.sandbox.control.settleNow({ accountId: buyer.accountId });
    await world.app.push.checkOrdersNow(5103);
    await waitFor(() => botTexts(world, 5103).some((text) => text.includes("filled")));
    expect(await tickPolls(world, 5103)).toBe(true);
    expect((await stateOf(world, 5103)).motion).toBeNull();
    expect(await tickPolls(world, 5103)).toBe(false);
  });

  it("a webhook for one of their orders moves the user to every tick", async () => {
    const user = await linkedUser(world, 5104);
    expect(await tickPolls(world, 5104)).toBe(false);
    const response = await user.post({
      event: "order.filled",
      data: {
        id: "51040000-0000-4000-8000-000000000001",
        status: "Filled",
        resource: "energy",
        volume: 65000,
        targetAddress: ADDRESS_A,
        totalTrx: "4.6",
      },
    });
    expect(response.status).toBe(200);
    expect((await stateOf(world, 5104)).motion).toBe("order");
    expect(await tickPolls(world, 5104)).toBe(true);
  });

  it("pollNow polls every linked user whatever their schedule", async () => {
    await linkedUser(world, 5105);
    expect(await tickPolls(world, 5105)).toBe(false);
    const before = Number((await stateOf(world, 5105)).last_cycle);
    await world.app.push.pollNow();
    expect(Number((await stateOf(world, 5105)).last_cycle)).toBeGreaterThan(before);
  });
});

describe("an active rule keeps the auto-pause alert prompt, even with POLL_IDLE_INTERVAL at an hour", () => {
  let world: World;
  manageWorld((started) => (world = started), { env: { POLL_IDLE_INTERVAL: "1h" } });

  it("a rule created through the bot: the System auto-pause alert comes at the next tick; an idle user's notification waits; with no active rule left the user is idle again; Resume makes them fast again", async () => {
    const owner = await linkedUser(world, 5201);
    const bystander = await linkedUser(world, 5202);
    owner.user.send(`/smart ${ADDRESS_A}`);
    await owner.user.nextMessage();
    owner.user.press("✅ Confirm");
    await nextBotText(owner.user, (text) => text.includes("Rule created"));
    const [rule] = world.sandbox.control.listRules(owner.accountId);
    expect((await stateOf(world, 5201)).motion).toBe("rule");
    expect(await scheduleMetrics(world)).toMatchObject({ "fast/rule": 1, "idle/none": 1 });

    // A few ticks pass with nothing new; then the balance runs out and the rule is paused.
    for (let i = 0; i < 3; i++) {
      world.shiftAppClock(30_000);
      expect(await tickPolls(world, 5201)).toBe(true);
    }
    world.sandbox.control.addNotification({
      accountId: bystander.accountId,
      title: "Scheduled maintenance",
      body: "03:00 UTC",
    });
    world.sandbox.control.setBalance({ accountId: owner.accountId, trx: "0" });
    world.sandbox.control.fireRule({ ruleId: rule!.id });
    world.shiftAppClock(30_000);
    expect(await tickPolls(world, 5201)).toBe(true);
    const alert = await waitFor(() =>
      world.fake.messages(5201).find((message) => message.from === "bot" && message.text?.includes("paused")),
    );
    expect(alert.text).toContain(rule!.id.slice(0, 8));
    expect((await outboxOf(world, 5201)).filter((row) => row.dedupe_key.startsWith("notification:"))).toHaveLength(1);
    await pause(300);
    expect(botTexts(world, 5202).some((text) => text.includes("Scheduled maintenance"))).toBe(false);

    // The pause notification made the poll read the rule list: no active rule is left, so the
    // user is idle again (the Resume button would move them back).
    expect((await stateOf(world, 5201)).motion).toBeNull();
    expect(await tickPolls(world, 5201)).toBe(false);

    // Topped up, Resume on the alert: polled on every tick again, at once.
    world.sandbox.control.creditDeposit({ accountId: owner.accountId, currency: "TRX", amount: "500" });
    owner.user.press(/Resume/);
    await waitFor(
      () =>
        world.sandbox.control
          .listRules(owner.accountId)
          .find((candidate: { id: string; status: string }) => candidate.id === rule!.id)?.status === "active",
    );
    await waitFor(async () => (await stateOf(world, 5201)).motion === "rule");
    expect(await tickPolls(world, 5201)).toBe(true);
  });

  it("a rule made outside the bot before linking is found at link time", async () => {
    const account = world.newAccount();
    await world.app.deps.marketplace(() => account.apiKey).createSmart({ targetAddress: ADDRESS_A });
    const user = world.user(5203);
    user.send(`/connect ${account.apiKey}`);
    await user.nextMessage();
    await waitFor(
      async () =>
        (
          await world.app.db
            .selectFrom("poll_state")
            .select("motion")
            .where("telegram_id", "=", 5203)
            .executeTakeFirst()
        )?.motion === "rule",
    );
    expect(await tickPolls(world, 5203)).toBe(true);
  });

  it("a rule made outside the bot after linking is found by the daily look at the rule list", async () => {
    const user = await linkedUser(world, 5204);
    await world.app.deps.marketplace(() => user.apiKey).createSmart({ targetAddress: ADDRESS_A });
    world.shiftAppClock(61 * MINUTE);
    expect(await tickPolls(world, 5204)).toBe(true);
    expect((await stateOf(world, 5204)).motion).toBeNull();
    world.shiftAppClock(24 * 60 * MINUTE);
    expect(await tickPolls(world, 5204)).toBe(true);
    expect((await stateOf(world, 5204)).motion).toBe("rule");
    expect(await tickPolls(world, 5204)).toBe(true);
  });
});

describe("the auto-pause alert on the app's own cron ticks (every second), POLL_IDLE_INTERVAL at an hour", () => {
  let world: World;
  manageWorld((started) => (world = started), { env: { POLL_IDLE_INTERVAL: "1h", NOTIFICATIONS_POLL: "* * * * * *" } });

  it("arrives within a few ticks of the pause, while an idle user's notification is not read", async () => {
    const owner = await linkedUser(world, 5301);
    const bystander = await linkedUser(world, 5302);
    owner.user.send(`/smart ${ADDRESS_A}`);
    await owner.user.nextMessage();
    owner.user.press("✅ Confirm");
    await nextBotText(owner.user, (text) => text.includes("Rule created"));
    const [rule] = world.sandbox.control.listRules(owner.accountId);
    // The cron ticks poll the rule's owner from now on.
    const polled = Number((await stateOf(world, 5301)).last_cycle);
    await waitFor(async () => Number((await stateOf(world, 5301)).last_cycle) > polled);
    world.sandbox.control.addNotification({
      accountId: bystander.accountId,
      title: "Scheduled maintenance",
      body: "03:00 UTC",
    });
    world.sandbox.control.setBalance({ accountId: owner.accountId, trx: "0" });
    world.sandbox.control.fireRule({ ruleId: rule!.id });
    const alert = await waitFor(
      () => world.fake.messages(5301).find((message) => message.from === "bot" && message.text?.includes("paused")),
      6000,
    );
    expect(alert.text).toContain(rule!.id.slice(0, 8));
    expect(botTexts(world, 5302).some((text) => text.includes("Scheduled maintenance"))).toBe(false);
    expect(Number((await stateOf(world, 5302)).last_cycle)).toBe(0);
  }, 30_000);
});
