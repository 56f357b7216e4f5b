import { describe, expect, it } from "vitest";
import { ADDRESS_A, manageWorld, type World } from "../kit/world";
import { linkedUser, waitFor } from "../kit/push-helpers";
import { linkGroup, teamGroup } from "../kit/group-helpers";

/** Any figure of money: a number followed by TRX or USDT. */
const MONEY = /\d[\d,. ]*\s*(TRX|USDT)/;

/**
 * Team alerts show what happened, never the owner's money: a paused rule's copy names neither the
 * balance nor the next delivery's cost, an order's copy neither its total nor its refund, a
 * deposit's copy no amount; privately, every figure is still there. The /group card says so.
 */
describe("group copies carry no balance figures", () => {
  let world: World;
  manageWorld((started) => (world = started));
  const botMessages = (chatId: number) => world.fake.messages(chatId).filter((message) => message.from === "bot");

  it("a paused rule, a filled and a failed order and a deposit reach the group without figures; the owner sees them privately", async () => {
    const who = await linkedUser(world, 4551);
    const group = teamGroup(world, [who.user]);
    const card = await linkGroup(world, who.user, group);
    expect(card.text).toContain("never your balance or what your orders cost");

    const rule = await world.app.deps.marketplace(() => who.apiKey).createSmart({ targetAddress: ADDRESS_A });
    world.sandbox.control.systemPauseRule({ ruleId: rule.id });
    world.sandbox.control.creditDeposit({ accountId: who.accountId, currency: "TRX", amount: "125" });
    await world.app.push.pollNow();
    const short = rule.id.slice(0, 8);
    const pausedCopy = await waitFor(() => botMessages(group.id).find((message) => message.text?.includes(short)));
    const pausedPrivate = await waitFor(() => botMessages(4551).find((message) => message.text?.includes(short)));
    expect(pausedPrivate.text).toMatch(MONEY);
    expect(pausedCopy.text).toContain("not enough balance");
    expect(pausedCopy.text).not.toMatch(MONEY);

    const depositCopy = await waitFor(() =>
      botMessages(group.id).find((message) => message.text?.includes("Deposit credited")),
    );
    expect(depositCopy.text).not.toMatch(/125/);
    expect(depositCopy.text).toContain("owner's private chat");

    const order = { resource: "energy", volume: "65000", totalTrx: "4.6475", targetAddress: ADDRESS_A };
    await who.post({
      event: "order.filled",
      data: { id: "45510000-0000-4000-8000-000000000001", status: "Filled", ...order },
    });
    await who.post({
      event: "order.failed",
      data: { id: "45510000-0000-4000-8000-000000000002", status: "Failed", ...order },
    });
    await waitFor(
      () => botMessages(group.id).filter((message) => message.text?.includes("Order 45510000")).length === 2,
    );
    for (const copy of botMessages(group.id).filter((message) => message.text?.includes("Order 45510000"))) {
      expect(copy.text).not.toContain("4.6475");
      expect(copy.text).not.toMatch(MONEY);
    }
    expect(botMessages(group.id).some((message) => message.text?.includes("65,000"))).toBe(true);
    await waitFor(
      () =>
        botMessages(4551).filter(
          (message) => message.text?.includes("Order 45510000") && message.text.includes("4.6475"),
        ).length === 2,
    );
  });
});
