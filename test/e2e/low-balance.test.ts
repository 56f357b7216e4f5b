import { describe, expect, it } from "vitest";
import { ADDRESS_A, buttonLabels, linkKey, manageWorld, nextBotText, type World } from "../kit/world";
import { outboxOf, outboxSwept } from "../kit/push-helpers";
import { findGuardSettings } from "#src/db/repos/guard-settings";

const DAY = 86_400_000;
const MINUTE = 60_000;

/**
 * The low-balance alert: when the balance no longer covers an active rule's next delivery, or
 * lasts less than the user's warning time at the week's pace, the bot says so once per crossing
 * (the word "balance", with Top up); a top-up arms it again. Read at the user's polling pace, at
 * most every 10 minutes, only for users with an active rule.
 */
describe("the low-balance alert", () => {
  let world: World;
  // A file database: the alert's state must survive the restart, and a replica shares it.
  manageWorld((started) => (world = started), { file: true });

  const isLow = (text: string) => text.includes("Low balance");
  const lowAlerts = async (telegramId: number) =>
    (await outboxOf(world, telegramId)).filter((row) => row.dedupe_key.startsWith("balance:"));
  const balanceReads = () => world.sandboxRequests.filter((request) => request === "GET /api/v1/wallet/balance");

  /** An account with a daily renewal of 100,000 energy (9.35 TRX a delivery), made at the marketplace. */
  async function accountWithRule(trx: string) {
    const account = world.newAccount({ trx, usdt: "0" });
    const response = await fetch(`${world.marketplaceUrl}/api/v1/automations/renewal`, {
      method: "POST",
      headers: { "x-api-key": account.apiKey, "content-type": "application/json" },
      body: JSON.stringify({ targetAddress: ADDRESS_A, volume: 100_000 }),
    });
    expect(response.status).toBe(200);
    const ruleId = ((await response.json()) as { id: string }).id;
    const fire = (times = 1) => {
      for (let index = 0; index < times; index++) expect(world.sandbox.control.fireRule({ ruleId }).fired).toBe(true);
    };
    return { ...account, ruleId, fire };
  }

  /** Links the key (its first poll reads the rule list and checks the balance). */
  async function link(id: number, account: { apiKey: string }) {
    const user = world.user(id);
    await linkKey(world, user, account.apiKey);
    await world.settled();
    return user;
  }

  /** Moves both clocks on (the bot's and the marketplace's) and polls everyone. */
  async function later(ms: number) {
    world.shiftAppClock(ms);
    world.advance(ms);
    await world.app.push.pollNow();
  }

  it("not covering an active rule's next delivery: one alert with Top up; none again until a top-up arms it; a restart changes nothing", async () => {
    const account = await accountWithRule("40");
    const user = await link(5661, account);
    expect(await lowAlerts(5661)).toEqual([]);
    // Four deliveries: 2.6 TRX left, the next one costs 9.35.
    account.fire(4);
    await later(10 * MINUTE + 1_000);
    const alert = await nextBotText(user, isLow);
    expect(alert.text).toContain("Low balance: 2.6 TRX left");
    expect(alert.text).toContain(`rule ${account.ruleId.slice(0, 8)}`);
    expect(alert.text).toContain("9.35 TRX");
    expect(buttonLabels(alert)).toEqual(["💳 Top up"]);
    // Sent and recorded before the clocks move on (a send in flight past its lease would go again).
    await outboxSwept(world, 5661);

    await later(10 * MINUTE + 1_000);
    await outboxSwept(world, 5661);
    await world.restart();
    await later(10 * MINUTE + 1_000);
    await outboxSwept(world, 5661);
    expect(await lowAlerts(5661)).toHaveLength(1);

    // A top-up (the deposit's notification brings the check forward) arms it; the next crossing alerts again.
    world.sandbox.control.creditDeposit({ accountId: account.accountId, currency: "TRX", amount: "50" });
    await later(1_000);
    account.fire(5);
    // While the balance lasted days beyond the warning, it is read hourly.
    await later(60 * MINUTE + 1_000);
    const again = await nextBotText(user, isLow);
    expect(again.text).toContain("Low balance: 5.85 TRX left");
    expect((await lowAlerts(5661)).map((row) => row.dedupe_key)).toEqual(["balance:1", "balance:2"]);
  });

  it("lasting less than the warning time at the week's pace: silent at 24 h, alerted once the warning is 3 days; off reads nothing", async () => {
    // Seven deliveries a day apart leave 20 TRX: 9.35 TRX a day, about 2 days.
    const account = await accountWithRule("85.45");
    for (let day = 0; day < 7; day++) {
      if (day > 0) world.advance(DAY);
      account.fire();
    }
    world.advance(MINUTE);
    world.shiftAppClock(6 * DAY + MINUTE);
    expect(world.sandbox.control.getBalance(account.accountId).trx).toBe("20");
    const user = await link(5662, account);
    await later(2 * 60 * MINUTE);
    expect(await lowAlerts(5662)).toEqual([]);

    user.send("/settings");
    const card = await nextBotText(user, (text) => text.includes("Spend guard"));
    world.fake.pressButtonByLabel(user.user, "3 days", { messageId: card.messageId });
    await nextBotText(user, (text) => text.includes("Low balance warning: 3 days"));
    await world.app.push.pollNow();
    const alert = await nextBotText(user, isLow);
    expect(alert.text).toContain("Low balance: 20 TRX left");
    expect(alert.text).toContain("about 9.4 TRX a day");
    expect(alert.text).toContain("lasts about 2 days");
    expect(alert.text).toContain("under the 3 days");
    expect(alert.text).not.toContain("next delivery");

    world.fake.pressButtonByLabel(user.user, "off", { messageId: card.messageId });
    await nextBotText(user, (text) => text.includes("Low balance warning: off"));
    expect((await findGuardSettings(world.app.db, 5662)).warningHours).toBe(0);
    const reads = balanceReads().length;
    await later(2 * 60 * MINUTE);
    expect(balanceReads().length).toBe(reads);
  });

  it("reads the balance at most every 10 minutes, only for users with an active rule", async () => {
    const ruled = await accountWithRule("500");
    await link(5663, ruled);
    const plain = world.newAccount({ trx: "500", usdt: "0" });
    await link(5664, plain);
    world.sandboxRequests.length = 0;
    await later(MINUTE);
    await later(MINUTE);
    // Two polls within 10 minutes of the first check: no balance read, no firings read.
    expect(balanceReads()).toEqual([]);
    expect(world.sandboxRequests.filter((request) => request.endsWith("/fires"))).toEqual([]);
    await later(10 * MINUTE);
    expect(balanceReads()).toHaveLength(1);
  });

  it("two replicas polling at once: one alert for the crossing", async () => {
    const account = await accountWithRule("40");
    const user = await link(5665, account);
    account.fire(4);
    const replica = await world.startReplica();
    world.shiftAppClock(10 * MINUTE + 1_000);
    world.advance(10 * MINUTE + 1_000);
    await Promise.all([world.app.push.pollNow(), replica.push.pollNow(), world.app.push.pollNow()]);
    await nextBotText(user, isLow);
    await outboxSwept(world, 5665);
    expect(await lowAlerts(5665)).toHaveLength(1);
    expect(user.botMessages().filter((message) => isLow(message.text ?? ""))).toHaveLength(1);
  });
});
