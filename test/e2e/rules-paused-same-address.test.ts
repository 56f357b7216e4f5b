import { describe, expect, it } from "vitest";
import { ADDRESS_A, linkKey, manageWorld, nextBotText, type World } from "../kit/world";
import type { ChatMessage } from "#src/telegram-fake/index";

const dataOf = (message: ChatMessage, label: string) =>
  (message.replyMarkup?.inline_keyboard ?? []).flat().find((button) => button.text === label)!.callback_data!;

/**
 * The sandbox's pause notification names the rule's kind and address, not its id: two rules on
 * one address are told apart by the kind, so each alert names, and its Resume resumes, its own rule.
 */
describe("two rules on one address paused by the System", () => {
  let world: World;
  manageWorld((started) => (world = started));

  it("each alert names its own rule, and the refill alert's Resume resumes the refill rule only", async () => {
    const { accountId, apiKey } = world.newAccount();
    const user = world.user(9501);
    await linkKey(world, user, apiKey);
    const client = world.app.deps.marketplace(() => apiKey);
    const refill = await client.createRefill({
      targetAddress: ADDRESS_A,
      minimal: "30000",
      volume: "65000",
      duration: "1h",
      autoResume: false,
    });
    world.advance(1000);
    const smart = await client.createSmart({ targetAddress: ADDRESS_A });
    world.advance(1000);
    world.sandbox.control.setBalance({ accountId, trx: "0" });
    expect(world.sandbox.control.fireRule({ ruleId: refill.id }).fired).toBe(false);
    world.advance(1000);
    expect(world.sandbox.control.fireRule({ ruleId: smart.id }).fired).toBe(false);
    await world.app.push.pollNow();
    const alerts = [
      await nextBotText(user, (text) => text.includes("paused"), 10_000),
      await nextBotText(user, (text) => text.includes("paused"), 10_000),
    ];
    const named = alerts.map((alert) => /Rule (\w{8})/.exec(alert.text ?? "")?.[1]);
    expect([...named].sort()).toEqual([refill.id.slice(0, 8), smart.id.slice(0, 8)].sort());

    const refillAlert = alerts[named.indexOf(refill.id.slice(0, 8))]!;
    world.sandbox.control.setBalance({ accountId, trx: "1000" });
    world.fake.pressButton(user.user, refillAlert.messageId, dataOf(refillAlert, "▶️ Resume"));
    await nextBotText(user, (text) => text.includes("TRX spent"));
    const rules = world.sandbox.control.listRules(accountId);
    expect(rules.find((rule) => rule.id === refill.id)!.status).toBe("active");
    expect(rules.find((rule) => rule.id === smart.id)!.status).toBe("paused");
  });
});
