import { describe, expect, it } from "vitest";
import { ADDRESS_A, buttonLabels, linkKey, manageWorld, nextBotText, type World } from "../kit/world";

/**
 * Durations read as each language writes them (ru "1 ч", zh "1 小时") on the order card, the quote,
 * the guided step's buttons and the price alert, and are accepted typed either way.
 */
describe("durations in the reader's language", () => {
  let world: World;
  manageWorld((started) => (world = started));

  it("Russian: the order card and the quote say 1 ч, never 1h", async () => {
    const user = world.user(7301, { languageCode: "ru" });
    await linkKey(world, user, world.newAccount().apiKey);
    user.send(`/buy energy 65k 1h ${ADDRESS_A}`);
    const card = await user.nextMessage();
    expect(card.text).toContain("Срок: 1 ч");
    expect(card.text).not.toMatch(/\b1h\b/);
    user.send("/quote energy 65k 15m");
    const quote = await user.nextMessage();
    expect(quote.text).toContain("на 15 мин");
    expect(quote.text).not.toMatch(/\b15m\b/);
  });

  it("Chinese: the guided step's duration buttons are written 小时 and 天, and a typed “1 小时” is taken as 1h", async () => {
    const user = world.user(7302, { languageCode: "zh" });
    user.send("/quote energy 65k");
    const step = await user.nextMessage();
    const labels = buttonLabels(step);
    expect(labels).toContain("1 小时");
    expect(labels).toContain("1 天");
    expect(labels.some((label) => /^\d+[mhd]$/.test(label))).toBe(false);
    user.send("1 小时");
    const quote = await user.nextMessage();
    expect(quote.text).toContain("时长 1 小时");
  });

  it("Russian: a typed “1 ч” answers the duration step, and the price alert says 1 ч", async () => {
    const user = world.user(7303, { languageCode: "ru" });
    user.send("/watch energy 65k");
    await user.nextMessage();
    user.send("1 ч");
    const limitStep = await user.nextMessage();
    expect(limitStep.text).not.toMatch(/\b1h\b/);
    user.send("2.5");
    const card = await user.nextMessage();
    expect(card.text).toContain("1 ч");
    world.sandbox.control.setPrice({ resource: "energy", duration: "1h", sunPerUnit: 30 });
    expect(await world.app.push.checkPriceWatches()).toMatchObject({ fired: 1 });
    const alert = await nextBotText(user, (text) => text.includes("2,5 TRX") || text.includes("2.5 TRX"));
    expect(alert.text).toContain("на 1 ч");
    expect(alert.text).not.toMatch(/\b1h\b/);
  });
});
