import { describe, expect, it } from "vitest";
import { ADDRESS_A, manageWorld, type World } from "../kit/world";
import { botTexts, linkedUser, outboxOf, pause, waitFor } from "../kit/push-helpers";

/**
 * A user who blocks the bot stops getting alerts (its first 403 marks them inactive and drops
 * their queue). Back with /start, they get what happens from then on, not a burst of everything
 * the marketplace raised while they had blocked it.
 */
describe("a user who blocked the bot and came back", () => {
  let world: World;
  // The alert that meets the block is refused with 403, as Telegram would.
  manageWorld((started) => (world = started), { allowRejectedCalls: true });

  const isActive = async (id: number) =>
    (await world.app.db.selectFrom("users").select("active").where("telegram_id", "=", id).executeTakeFirst())?.active;

  it("gets the alerts raised after /start, none of those raised while blocked", async () => {
    const who = await linkedUser(world, 7101);
    world.fake.blockUser(7101);
    world.sandbox.control.addNotification({ accountId: who.accountId, title: "First while blocked", body: "b" });
    await world.app.push.pollNow();
    await waitFor(async () => (await isActive(7101)) === 0);
    for (let i = 0; i < 5; i++)
      world.sandbox.control.addNotification({ accountId: who.accountId, title: `Blocked note ${i}`, body: "b" });
    world.sandbox.control.creditDeposit({ accountId: who.accountId, currency: "TRX", amount: "5" });
    await who.post({
      event: "order.filled",
      data: {
        id: "33333333-0000-4000-8000-000000000001",
        resource: "energy",
        volume: "65000",
        targetAddress: ADDRESS_A,
        totalTrx: "4",
        status: "Filled",
      },
    });
    await world.app.push.pollNow();
    await pause(300);
    expect((await outboxOf(world, 7101)).filter((row) => row.status === "queued")).toHaveLength(0);

    who.user.send("/start");
    await who.user.nextMessage();
    expect(await isActive(7101)).toBe(1);
    const before = botTexts(world, 7101).length;
    world.sandbox.control.addNotification({ accountId: who.accountId, title: "After return", body: "b" });
    await world.app.push.pollNow();
    await waitFor(() => botTexts(world, 7101).some((text) => text.includes("After return")));
    await pause(500);
    expect(
      botTexts(world, 7101)
        .slice(before)
        .filter((text) => /Blocked note|Deposit credited|First while blocked|33333333/.test(text)),
    ).toEqual([]);
  });
});
