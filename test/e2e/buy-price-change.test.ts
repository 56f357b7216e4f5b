import { describe, expect, it } from "vitest";
import { ADDRESS_A, buttonLabels, cardOutcome, linkKey, manageWorld, nextBotText, type World } from "../kit/world";

/**
 * The order request carries no price, so Confirm previews the order again first: a total that
 * rose since the card was shown is not charged, and the card offers a fresh one at the new price.
 */
describe("/buy Confirm after the price moved", () => {
  let world: World;
  manageWorld((started) => (world = started));

  async function cardFor(id: number) {
    const { accountId, apiKey } = world.newAccount();
    const user = world.user(id);
    await linkKey(world, user, apiKey);
    user.send(`/buy energy 65000 1h ${ADDRESS_A}`);
    const card = await user.nextMessage();
    expect(card.text).toContain("Total: 4.6475 TRX");
    return { accountId, user };
  }

  it("a price that rose: nothing is charged, the card says both totals and offers Refresh; the fresh card's Confirm orders at the new price", async () => {
    const { accountId, user } = await cardFor(1001);
    world.sandbox.control.setPrice({ resource: "energy", duration: "1h", sunPerUnit: 200 });
    user.press("✅ Confirm");
    const changed = await nextBotText(user, (text) => text.includes("price rose"));
    expect(changed.text).toContain("4.6475 TRX");
    expect(changed.text).toContain("Nothing was charged");
    expect(buttonLabels(changed)).toEqual(expect.arrayContaining(["🔄 Refresh"]));
    expect(world.sandbox.control.listOrders(accountId)).toHaveLength(0);

    user.press("🔄 Refresh");
    const fresh = await nextBotText(user, (text) => text.includes("Total:") && !text.includes("4.6475"));
    const total = /Total: ([\d.,]+) TRX/.exec(fresh.text ?? "")?.[1];
    user.press("✅ Confirm");
    expect((await cardOutcome(user)).text).toContain("Order placed");
    const orders = world.sandbox.control.listOrders(accountId);
    expect(orders).toHaveLength(1);
    expect(String(orders[0]!.totalTrx)).toBe(total!.replace(/,/g, ""));
  });

  it("a price that fell: the order goes through at the lower total", async () => {
    const { accountId, user } = await cardFor(1002);
    world.sandbox.control.setPrice({ resource: "energy", duration: "1h", sunPerUnit: 30 });
    user.press("✅ Confirm");
    expect((await cardOutcome(user)).text).toContain("Order placed");
    const orders = world.sandbox.control.listOrders(accountId);
    expect(orders).toHaveLength(1);
    expect(Number(orders[0]!.totalTrx)).toBeLessThan(4.6475);
  });
});
