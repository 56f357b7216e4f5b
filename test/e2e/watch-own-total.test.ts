import { describe, expect, it } from "vitest";
import { ADDRESS_A, buttonLabels, linkKey, manageWorld, nextBotText, type World } from "../kit/world";

const reached = (text: string) => text.includes("the price reached your threshold");
const totalOf = (text: string) => /Total: ([\d.,]+ TRX)/.exec(text)?.[1];

/**
 * Issue 57: a watch compares what the user would pay. A watch at 4.013 TRX alerted at a public
 * 3.9 TRX, and Buy now's card then showed 4.29 with the commission: more than the user said they
 * would pay. With a key linked the watch compares the user's own order preview, and its alert and
 * Buy now's card show the same total; without a key the alert says it compared the public price.
 */
describe("a price watch compares what the user would pay", () => {
  let world: World;
  manageWorld((started) => (world = started));

  const energyRate = (sunPerUnit: number) =>
    world.sandbox.control.setPrice({ resource: "energy", duration: "1h", sunPerUnit });

  it("with a key: no alert while the public price is under the threshold but the user's total is not; then the alert's total is Buy now's card's", async () => {
    const { apiKey } = world.newAccount({ trx: "1000", usdt: "0" });
    const user = world.user(5901);
    await linkKey(world, user, apiKey);
    user.send(`/watch energy 65k 1h 4.013 ${ADDRESS_A}`);
    const card = await user.nextMessage();
    expect(card.text).toContain("your own order, commission included");
    // 60 sun a unit: 3.9 TRX public, 4.29 TRX with the commission.
    energyRate(60);
    expect(await world.app.push.checkPriceWatches()).toMatchObject({ quoted: 1, fired: 0 });
    expect(user.botMessages().filter((message) => reached(message.text ?? ""))).toEqual([]);

    // 55 sun a unit: 3.575 TRX public, 3.9325 TRX for the user: at or under 4.013.
    energyRate(55);
    expect(await world.app.push.checkPriceWatches()).toMatchObject({ fired: 1 });
    const alert = await nextBotText(user, reached);
    expect(alert.text).toContain("Your order would cost 3.9325 TRX in all (your threshold: 4.013 TRX)");
    expect(alert.text).not.toContain("3.575");
    user.press("🛒 Buy now");
    const buy = await nextBotText(user, (text) => text.includes("Confirm your order"));
    expect(totalOf(buy.text!)).toBe("3.9325 TRX");
    expect(buttonLabels(buy)).toContain("✅ Confirm");
  });

  it("without a key: the alert says it compared the public price, without the commission, and how to compare the user's own", async () => {
    const user = world.user(5902);
    user.send("/watch energy 65k 1h 4.013");
    await user.nextMessage();
    energyRate(60);
    expect(await world.app.push.checkPriceWatches()).toMatchObject({ fired: 1 });
    const alert = await nextBotText(user, reached);
    expect(alert.text).toContain("Price: 3.9 TRX (your threshold: 4.013 TRX)");
    expect(alert.text).toContain("This is the public price, without the marketplace's commission");
    expect(alert.text).toContain("/connect");
  });
});
