import { describe, expect, it } from "vitest";
import { ADDRESS_A, buttonLabels, linkKey, manageWorld, nextBotText, type World } from "../kit/world";

type User = ReturnType<World["user"]>;

/** Issue 57's small things in /rules: a New rule button, and two alike rules told apart. */
describe("/rules list buttons", () => {
  let world: World;
  manageWorld((started) => (world = started));

  async function linked(id: number): Promise<{ accountId: string; apiKey: string; user: User }> {
    const account = world.newAccount({ trx: "1000", usdt: "0" });
    const user = world.user(id);
    await linkKey(world, user, account.apiKey);
    return { ...account, user };
  }

  it("offers ➕ New rule under the list, empty or not: it starts the guided /newrule, closing a question left open", async () => {
    const { apiKey, user } = await linked(5801);
    user.send("/rules");
    const empty = await user.nextMessage();
    expect(empty.text).toContain("You have no automation rules yet");
    expect(buttonLabels(empty)).toEqual(["➕ New rule"]);
    user.press("➕ New rule");
    const kind = await nextBotText(user, (text) => text.includes("Which kind of rule?"));
    expect(buttonLabels(kind).length).toBeGreaterThanOrEqual(3);
    user.send("/cancel");
    await nextBotText(user, (text) => text.includes("Cancelled"));

    await world.app.deps.marketplace(() => apiKey).createSmart({ targetAddress: ADDRESS_A });
    user.send("/rules");
    const list = await user.nextMessage();
    expect(buttonLabels(list).at(-1)).toBe("➕ New rule");
    // A question of another flow is open: New rule closes it and asks its own.
    user.send("/buy");
    await nextBotText(user, (text) => text.includes("Which resource?"));
    world.fake.pressButtonByLabel(user.user, "➕ New rule", { messageId: list.messageId });
    await nextBotText(user, (text) => text.includes("Which kind of rule?"));
    user.send(ADDRESS_A);
    expect((await user.nextMessage()).text).not.toContain("Confirm your order");
  });

  it("two rules of one kind on one address, in one state, get buttons that differ: each ends with its rule's id", async () => {
    const { apiKey, user } = await linked(5802);
    const client = world.app.deps.marketplace(() => apiKey);
    const first = await client.createRefill({
      targetAddress: ADDRESS_A,
      minimal: "30000",
      volume: "65000",
      duration: "1h",
    });
    const second = await client.createRefill({
      targetAddress: ADDRESS_A,
      minimal: "40000",
      volume: "131000",
      duration: "1h",
    });
    user.send("/rules");
    const list = await user.nextMessage();
    const rules = buttonLabels(list).filter((label) => label.includes("Auto-refill"));
    expect(rules).toHaveLength(2);
    expect(new Set(rules).size).toBe(2);
    for (const rule of [first, second]) {
      const label = rules.find((candidate) => candidate.endsWith(rule.id.slice(0, 8)))!;
      expect(label).toBeDefined();
      user.press(label);
      const card = await nextBotText(user, (text) => text.includes("TRX spent"));
      expect(card.text).toContain(rule.id.slice(0, 8));
      user.press("⬅️ Back");
      await nextBotText(user, (text) => text.includes("Your automation rules"));
    }
    // A rule alone on its address keeps the short label.
    await client.createSmart({ targetAddress: "TLa2f6VPqDgRE67v1736s7bJ8Ray5wYjU7" });
    user.send("/rules");
    const more = await user.nextMessage();
    expect(buttonLabels(more).find((label) => label.includes("Smart mode"))).toBe("🟢 Smart mode · TLa2…YjU7 · active");
  });
});
