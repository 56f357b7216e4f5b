import { describe, expect, it } from "vitest";
import { ADDRESS_A, cardOutcome, linkKey, manageWorld, nextBotText, type World } from "../kit/world";

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * A Confirm that timed out placed its order late, and the order settled before the next tap: the
 * tap finds it (one order) and says how it ended, not "placed, waiting for delivery".
 */
describe("/buy: the order of a timed-out Confirm settled before the next tap", () => {
  let world: World;
  manageWorld((started) => (world = started), { env: { MARKETPLACE_TIMEOUT_MS: "300" } });

  async function timedOut(id: number, fail: boolean) {
    const { accountId, apiKey } = world.newAccount({ trx: "1000", usdt: "0" });
    const user = world.user(id);
    await linkKey(world, user, apiKey);
    user.send(`/buy energy 65000 1h ${ADDRESS_A}`);
    const card = await user.nextMessage();
    if (fail) world.sandbox.control.failNextOrder({ accountId, mode: "async" });
    world.sandbox.control.injectFault({ method: "POST", pathPrefix: "/api/v1/orders", delayMs: 600, times: 20 });
    world.sandbox.control.injectFault({ method: "GET", pathPrefix: "/api/v1/orders", delayMs: 600, times: 20 });
    user.press("✅ Confirm");
    await nextBotText(user, (text) => text.includes("could not confirm"), 10_000);
    world.sandbox.control.clearFaults();
    for (let i = 0; i < 200 && world.sandbox.control.listOrders(accountId).length === 0; i++) await sleep(25);
    world.sandbox.control.settleNow({ accountId });
    user.press("✅ Confirm");
    await cardOutcome(user);
    await world.settled();
    expect(world.sandbox.control.listOrders(accountId)).toHaveLength(1);
    // The card itself (the follower may also send its alert).
    const shown = world.fake.messages(id).find((message) => message.messageId === card.messageId)?.text ?? "";
    expect(shown).toContain("Order");
    expect(shown).not.toContain("waiting for delivery");
    return shown;
  }

  it("failed and refunded: the card says so", async () => {
    const text = await timedOut(4001, true);
    expect(text).toContain("failed");
    expect(text).toContain("refunded");
  });

  it("filled: the card says so", async () => {
    expect(await timedOut(4002, false)).toContain("filled");
  });
});
