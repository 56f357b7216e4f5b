import { describe, expect, it } from "vitest";
import { ADDRESS_A, ADDRESS_B, buttonLabels, linkKey, manageWorld, nextBotText, type World } from "../kit/world";

const THRESHOLD_BAD = "The threshold must be a whole number above zero";

/** Values a rule takes or shows that no option bounds: an int64 the marketplace accepts, strings it may send at any length. */
describe("rules: a threshold beyond int64, and long strings from the marketplace", () => {
  let world: World;
  manageWorld((started) => (world = started));

  async function linked(id: number) {
    const { accountId, apiKey } = world.newAccount();
    const user = world.user(id);
    await linkKey(world, user, apiKey);
    return { accountId, apiKey, user };
  }

  it("a threshold beyond int64 is refused where it is given, one-line and guided; no card, no rule", async () => {
    const { accountId, user } = await linked(9302);
    user.send(`/refill ${ADDRESS_A} 99999999999999999999 65k 1h`);
    const refused = await user.nextMessage();
    expect(refused.text).toContain(THRESHOLD_BAD);
    expect(buttonLabels(refused)).not.toContain("✅ Confirm");

    user.send(`/refill ${ADDRESS_A}`);
    expect((await user.nextMessage()).text).toContain("falls below");
    user.send("99999999999999999999");
    expect((await user.nextMessage()).text).toContain(THRESHOLD_BAD);
    // The question stays open: a threshold in range goes on to the next step.
    user.send("30k");
    expect((await user.nextMessage()).text).toContain("per delivery");
    expect(world.sandbox.control.listRules(accountId)).toHaveLength(0);
  });

  it("one-line volumes written with space-separated thousands are read as one volume each", async () => {
    const { user } = await linked(9303);
    user.send(`/refill ${ADDRESS_A} 30 000 65 000 1h`);
    const card = await user.nextMessage();
    expect(buttonLabels(card)).toContain("✅ Confirm");
    expect(card.text).toContain("30,000");
    expect(card.text).toContain("65,000");
    user.send(`/renewal ${ADDRESS_A} 1 500 000`);
    expect((await user.nextMessage()).text).toContain("1,500,000");
  });

  it("a rule whose type, status or pause reason runs to 5,000 characters: its card is cut to fit one message", async () => {
    const { apiKey, user } = await linked(9403);
    const response = await fetch(`${world.marketplaceUrl}/api/v1/automations/smart`, {
      method: "POST",
      headers: { "X-Api-Key": apiKey, "Content-Type": "application/json" },
      body: JSON.stringify({ targetAddress: ADDRESS_B }),
    });
    const rule = (await response.json()) as Record<string, unknown>;
    world.sandbox.control.injectFault({
      method: "GET",
      pathPrefix: "/api/v1/automations",
      status: 200,
      body: [{ ...rule, type: "x".repeat(5000), status: "s".repeat(5000), pauseReason: "r".repeat(5000) }],
      times: 20,
    });
    user.send("/rules");
    await user.nextMessage();
    user.press(/xxx/);
    const card = await nextBotText(user, (text) => text.includes("TRX spent"));
    expect(card.text!.length).toBeLessThanOrEqual(4096);
    expect(card.text).toContain("xxx…");
  });
});
