import { describe, expect, it } from "vitest";
import { ADDRESS_A, linkKey, manageWorld, type World } from "../kit/world";

/** /stats words its counts by the language's plural rules and says what each energy total counts. */
describe("/stats in words", () => {
  let world: World;
  manageWorld((started) => (world = started));

  it("one order is “1 order in all”; the two energy totals each say what they count", async () => {
    const account = world.newAccount({ trx: "2000", usdt: "0" });
    const user = world.user(7501);
    await linkKey(world, user, account.apiKey);
    user.send(`/buy energy 65k 1h ${ADDRESS_A}`);
    await user.nextMessage();
    user.press(/Confirm/);
    await user.nextBotEvent();
    user.send("/stats");
    const chart = await user.nextMessage({ timeoutMs: 15_000 });
    const caption = chart.caption ?? chart.text ?? "";
    expect(caption).toContain(" 1 order in all");
    expect(caption).not.toContain("1 orders");
    expect(caption).toMatch(/Delivered in this period \(your orders and rule firings\): [\d,]+ energy/);
    expect(caption).toContain("energy delivered this calendar month");
  });
});
