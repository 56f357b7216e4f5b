import { describe, expect, it } from "vitest";
import {
  ADDRESS_A,
  ADDRESS_B,
  ADDRESS_C,
  linkKey,
  type World,
  manageWorld,
  callbackAnswerText,
  nextBotText,
  buttonLabels,
} from "../kit/world";
import type { ChatMessage } from "#src/telegram-fake/index";

type User = ReturnType<World["user"]>;

const callbacks = (message: ChatMessage) =>
  (message.replyMarkup?.inline_keyboard ?? []).flat().map((button) => button.callback_data ?? "");

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe("automation rules: /rules, the rule card, and creating rules", () => {
  let world: World;
  manageWorld((started) => (world = started));

  async function linked(
    id: number,
    balance = { trx: "1000", usdt: "50" },
  ): Promise<{ accountId: string; apiKey: string; user: User }> {
    const { accountId, apiKey } = world.newAccount(balance);
    const user = world.user(id);
    await linkKey(world, user, apiKey);
    return { accountId, apiKey, user };
  }

  const answerTo = (callbackQueryId: string) => callbackAnswerText(world, callbackQueryId);

  /** Confirms the newest card and waits for the rule card. */
  async function confirm(user: User): Promise<ChatMessage> {
    user.press("✅ Confirm");
    return nextBotText(user, (text) => text.includes("Rule created"));
  }

  async function openFirstRule(user: User, label: RegExp): Promise<ChatMessage> {
    user.send("/rules");
    const list = await user.nextMessage();
    expect(list.text).toContain("Your automation rules");
    user.press(label);
    return nextBotText(user, (text) => text.includes("TRX spent"));
  }

  it("/refill one-line: bounds from the options, a preview of one firing, Confirm creates the rule and shows its card", async () => {
    const { accountId, user } = await linked(501);
    user.send(`/refill ${ADDRESS_A} 30k 65k 1h`);
    const card = await user.nextMessage();
    for (const word of [
      "Confirm the new rule",
      "Auto-refill",
      ADDRESS_A,
      "30,000",
      "65,000",
      "1h",
      "Cost of one firing",
      "TRX",
      "charged to your TRX balance",
      "falls below 30,000",
      "Auto-resume after a top-up: No",
    ]) {
      expect(card.text).toContain(word);
    }
    expect(buttonLabels(card)).toContain("✅ Confirm");
    const ruleCard = await confirm(user);
    expect(ruleCard.text).toContain(ADDRESS_A);
    expect(ruleCard.text).toContain("active");
    expect(buttonLabels(ruleCard)).toEqual(
      expect.arrayContaining(["⏸ Pause", "🗑 Cancel rule", "📋 Deliveries", "⬅️ Back"]),
    );
    expect(buttonLabels(ruleCard)).not.toContain("▶️ Resume");
    for (const data of callbacks(ruleCard)) expect(Buffer.byteLength(data)).toBeLessThanOrEqual(64);
    const rules = world.sandbox.control.listRules(accountId);
    expect(rules).toHaveLength(1);
    expect(rules[0]).toMatchObject({
      type: "auto-refill",
      targetAddress: ADDRESS_A,
      duration: "1h",
      autoResume: false,
      status: "active",
    });
    expect(Number(rules[0]!.minimal)).toBe(30000);
    expect(Number(rules[0]!.volume)).toBe(65000);
  });

  it("/newrule guided auto-refill: kind, address, threshold, volume, duration, auto-resume", async () => {
    const { accountId, user } = await linked(502);
    user.send("/newrule");
    expect((await user.nextMessage()).text).toContain("Which kind of rule");
    user.press("Auto-refill");
    expect((await user.nextMessage()).text).toContain("Which address");
    user.send("Tnotanaddress");
    expect((await user.nextMessage()).text).toContain("not a TRON address");
    user.send(ADDRESS_B);
    expect((await user.nextMessage()).text).toContain("falls below how much");
    user.send("50k");
    const volume = await user.nextMessage();
    expect(volume.text).toContain("65,000 – 2,000,000");
    user.press("131,000");
    expect((await user.nextMessage()).text).toContain("how long");
    user.press("1d");
    expect((await user.nextMessage()).text).toContain("resume by itself");
    user.press("Yes");
    const card = await user.nextMessage();
    for (const word of ["Auto-refill", ADDRESS_B, "50,000", "131,000", "1d", "Auto-resume after a top-up: Yes"])
      expect(card.text).toContain(word);
    await confirm(user);
    const [rule] = world.sandbox.control.listRules(accountId);
    expect(rule).toMatchObject({ type: "auto-refill", targetAddress: ADDRESS_B, duration: "1d", autoResume: true });
    expect(Number(rule!.volume)).toBe(131000);
  });

  it("/renewal one-line and guided; the firing cost is labelled an estimate", async () => {
    const { accountId, user } = await linked(503);
    user.send(`/renewal ${ADDRESS_A} 100k`);
    const card = await user.nextMessage();
    for (const word of ["Auto-renewal", ADDRESS_A, "100,000", "estimate", "once a day", "charged to your TRX balance"])
      expect(card.text).toContain(word);
    await confirm(user);

    user.send("/renewal");
    expect((await user.nextMessage()).text).toContain("Which address");
    user.send(ADDRESS_B);
    const ask = await user.nextMessage();
    expect(ask.text).toContain("renewed each day");
    expect(ask.text).toContain("65,000 – 5,000,000");
    user.send("3m");
    expect((await user.nextMessage()).text).toContain("resume by itself");
    user.press("No");
    const second = await user.nextMessage();
    expect(second.text).toContain("3,000,000");
    expect(second.text).toContain("estimate");
    await confirm(user);

    const rules = world.sandbox.control.listRules(accountId);
    expect(rules.map((rule) => [rule.type, rule.targetAddress, Number(rule.volume)])).toEqual(
      expect.arrayContaining([
        ["auto-renewal", ADDRESS_A, 100000],
        ["auto-renewal", ADDRESS_B, 3000000],
      ]),
    );
  });

  it("/smart one-line and /newrule guided smart mode", async () => {
    const { accountId, user } = await linked(504);
    user.send(`/smart ${ADDRESS_C}`);
    const card = await user.nextMessage();
    for (const word of ["Smart mode", ADDRESS_C, "131,000", "Cost of one firing", "provider decides"])
      expect(card.text).toContain(word);
    const ruleCard = await confirm(user);
    expect(ruleCard.text).toContain("Smart mode");

    user.send("/newrule");
    await user.nextMessage();
    user.press("Smart mode");
    expect((await user.nextMessage()).text).toContain("Which address");
    user.send(ADDRESS_A);
    expect((await user.nextMessage()).text).toContain("resume by itself");
    user.send("yes");
    expect((await user.nextMessage()).text).toContain("Auto-resume after a top-up: Yes");
    await confirm(user);

    const rules = world.sandbox.control.listRules(accountId);
    expect(rules).toHaveLength(2);
    expect(rules.every((rule) => rule.type === "smart")).toBe(true);
    expect(rules.find((rule) => rule.targetAddress === ADDRESS_A)?.autoResume).toBe(true);
  });

  it("an out-of-bounds volume is refused naming the bounds from the options", async () => {
    const { accountId, user } = await linked(505);
    user.send(`/refill ${ADDRESS_A} 30k 10k 1h`);
    expect((await user.nextMessage()).text).toContain("out of bounds. Allowed: 65,000 – 2,000,000");
    user.send(`/renewal ${ADDRESS_A} 6m`);
    expect((await user.nextMessage()).text).toContain("Allowed: 65,000 – 5,000,000");
    user.send(`/renewal ${ADDRESS_A}`);
    expect((await user.nextMessage()).text).toContain("renewed each day");
    user.send("1000");
    expect((await user.nextMessage()).text).toContain("Allowed: 65,000 – 5,000,000");
    user.send(`/refill ${ADDRESS_A} 30k 65k 7d`);
    expect((await user.nextMessage()).text).toContain("could not read");
    expect(world.sandbox.control.listRules(accountId)).toHaveLength(0);
  });

  it("a double tap on Confirm creates one rule", async () => {
    const { accountId, user } = await linked(506);
    user.send(`/smart ${ADDRESS_A}`);
    const card = await user.nextMessage();
    const data = card.replyMarkup!.inline_keyboard[0]![0]!.callback_data!;
    const first = world.fake.pressButton(user.user, card.messageId, data);
    const second = world.fake.pressButton(user.user, card.messageId, data);
    await nextBotText(user, (text) => text.includes("Rule created"));
    await answerTo(first.callbackQueryId);
    expect(await answerTo(second.callbackQueryId)).toMatch(/Already/);
    await sleep(200);
    expect(world.sandbox.control.listRules(accountId)).toHaveLength(1);
  });

  it("Pause, Resume, Resume without balance (Top up), Cancel rule asks again and is final", async () => {
    const { accountId, user } = await linked(507);
    user.send(`/refill ${ADDRESS_A} 30k 65k 1h`);
    await user.nextMessage();
    await confirm(user);
    const card = await openFirstRule(user, /Auto-refill/);
    expect(buttonLabels(card)).toContain("⏸ Pause");

    user.press("⏸ Pause");
    const paused = await nextBotText(user, (text) => text.includes("Pause reason"));
    expect(paused.text).toContain("paused");
    expect(paused.text).toContain("Pause reason: you paused it.");
    expect(buttonLabels(paused)).toContain("▶️ Resume");
    expect(buttonLabels(paused)).not.toContain("⏸ Pause");
    expect(world.sandbox.control.listRules(accountId)[0]).toMatchObject({ status: "paused", pauseReason: "User" });

    user.press("▶️ Resume");
    const active = await nextBotText(user, (text) => !text.includes("Pause reason"));
    expect(active.text).toContain("active");
    expect(buttonLabels(active)).toContain("⏸ Pause");
    expect(world.sandbox.control.listRules(accountId)[0]!.status).toBe("active");

    user.press("⏸ Pause");
    await nextBotText(user, (text) => text.includes("Pause reason"));
    world.sandbox.control.setBalance({ accountId, trx: "0" });
    user.press("▶️ Resume");
    const short = await nextBotText(user, (text) => text.includes("Not enough TRX"));
    expect(buttonLabels(short)).toContain("💳 Top up");
    // Top up is a button of the rule card's menu now (its data is the menu's): it opens /topup.
    user.press("💳 Top up");
    await nextBotText(user, (text) => text.includes("Top up your balance"));
    expect(world.sandbox.control.listRules(accountId)[0]!.status).toBe("paused");

    user.press("🗑 Cancel rule");
    const ask = await nextBotText(user, (text) => text.includes("Cancelling is final"));
    expect(buttonLabels(ask)).toEqual(["✅ Confirm", "⬅️ Back"]);
    expect(world.sandbox.control.listRules(accountId)[0]!.status).toBe("paused");
    user.press("✅ Confirm");
    const cancelled = await nextBotText(user, (text) => text.includes("cancelled for good"));
    expect(buttonLabels(cancelled)).toEqual(["📋 Deliveries", "⬅️ Back"]);
    expect(world.sandbox.control.listRules(accountId)[0]!.status).toBe("cancelled");

    user.press("⬅️ Back");
    const list = await nextBotText(user, (text) => text.includes("Your automation rules"));
    expect(buttonLabels(list).some((label) => label.includes("cancelled"))).toBe(true);
  });

  it("Deliveries lists the firings the sandbox made, newest first; none yet gives a helpful line", async () => {
    const { accountId, user } = await linked(508);
    user.send(`/refill ${ADDRESS_B} 30k 65k 1h`);
    await user.nextMessage();
    await confirm(user);
    user.press("📋 Deliveries");
    const empty = await nextBotText(user, (text) => text.includes("Deliveries of rule"));
    expect(empty.text).toContain("No deliveries yet");
    user.press("⬅️ Back");
    await nextBotText(user, (text) => text.includes("TRX spent"));

    const [rule] = world.sandbox.control.listRules(accountId);
    expect(world.sandbox.control.fireRule({ ruleId: rule!.id }).fired).toBe(true);
    world.advance(60_000);
    expect(world.sandbox.control.fireRule({ ruleId: rule!.id }).fired).toBe(true);
    // The firings changed the rule (its updatedAt and TRX spent): the card on screen is outdated,
    // so the first press only redraws it as it is now, and acts on nothing.
    const outdated = user.press("📋 Deliveries");
    const redrawn = await nextBotText(user, (text) => text.includes("TRX spent"));
    expect(await answerTo(outdated.callbackQueryId)).toContain("changed elsewhere");
    expect(redrawn.text).not.toContain("Deliveries of rule");
    user.press("📋 Deliveries");
    const list = await nextBotText(user, (text) => text.includes("Deliveries of rule"));
    expect(list.text).toContain(": 2");
    const lines = (list.text ?? "").split("\n").filter((line) => line.includes("UTC"));
    expect(lines).toHaveLength(2);
    for (const line of lines) {
      expect(line).toContain("65,000");
      expect(line).toContain("1h");
      expect(line).toMatch(/\d TRX/);
    }
    expect(lines[0]! > lines[1]!).toBe(true);
  });

  it("a rule cancelled in the sandbox meanwhile refreshes the card instead of acting", async () => {
    const { accountId, user } = await linked(509);
    user.send(`/smart ${ADDRESS_A}`);
    await user.nextMessage();
    await confirm(user);
    const card = await openFirstRule(user, /Smart mode/);
    const [rule] = world.sandbox.control.listRules(accountId);
    world.sandbox.control.cancelRule({ ruleId: rule!.id });
    const press = user.press("⏸ Pause");
    const refreshed = await nextBotText(user, (text) => text.includes("cancelled for good"));
    expect(refreshed.messageId).toBe(card.messageId);
    expect(buttonLabels(refreshed)).not.toContain("⏸ Pause");
    expect(buttonLabels(refreshed)).not.toContain("▶️ Resume");
    expect(await answerTo(press.callbackQueryId)).toContain("changed elsewhere");
    expect(world.sandbox.control.listRules(accountId)[0]!.status).toBe("cancelled");
  });

  it("a System pause shows why and whether it resumes by itself", async () => {
    const { accountId, user } = await linked(510);
    user.send(`/refill ${ADDRESS_A} 30k 65k 1h`);
    await user.nextMessage();
    await confirm(user);
    const [rule] = world.sandbox.control.listRules(accountId);
    world.sandbox.control.systemPauseRule({ ruleId: rule!.id });
    const card = await openFirstRule(user, /Auto-refill/);
    expect(card.text).toContain("Pause reason: the marketplace paused it");
    expect(card.text).toContain("does not resume by itself");
    expect(buttonLabels(card)).toContain("▶️ Resume");
  });

  it("Resume on a pushed 'rule paused' alert resumes the rule and edits that alert with the result", async () => {
    const { accountId, user } = await linked(514);
    user.send(`/refill ${ADDRESS_A} 30k 65k 1h`);
    await user.nextMessage();
    await confirm(user);
    const [rule] = world.sandbox.control.listRules(accountId);
    world.sandbox.control.systemPauseRule({ ruleId: rule!.id });
    await world.app.push.pollNow();
    const alert = await nextBotText(user, (text) => text.includes("paused"), 10_000);
    expect(callbacks(alert).some((data) => data.startsWith("rl:r:"))).toBe(true);
    user.press("▶️ Resume");
    const resumed = await nextBotText(user, (text) => text.includes("TRX spent"));
    expect(resumed.messageId).toBe(alert.messageId);
    expect(resumed.text).toContain("active");
    expect(world.sandbox.control.listRules(accountId)[0]!.status).toBe("active");
  });

  it("renewal and smart with too little balance: the card offers Top up; a 402 on Confirm says so with Top up", async () => {
    const { accountId, user } = await linked(511, { trx: "0.5", usdt: "0" });
    user.send(`/renewal ${ADDRESS_A} 65k`);
    const card = await user.nextMessage();
    expect(card.text).toContain("does not cover one firing");
    expect(buttonLabels(card)).toContain("💳 Top up");
    expect(buttonLabels(card)).not.toContain("✅ Confirm");

    world.sandbox.control.setBalance({ accountId, trx: "1000" });
    user.send(`/smart ${ADDRESS_A}`);
    const smart = await user.nextMessage();
    world.sandbox.control.setBalance({ accountId, trx: "0" });
    user.press("✅ Confirm");
    const refused = await nextBotText(user, (text) => text.includes("Not enough TRX"));
    expect(refused.messageId).toBe(smart.messageId);
    expect(buttonLabels(refused)).toContain("💳 Top up");
    expect(world.sandbox.control.listRules(accountId)).toHaveLength(0);
  });

  it("a 402 on a smart rule's Confirm shows the current TRX balance beside Top up", async () => {
    const { accountId, user } = await linked(514);
    user.send(`/smart ${ADDRESS_A}`);
    const card = await user.nextMessage();
    world.sandbox.control.setBalance({ accountId, trx: "0.5" });
    user.press("✅ Confirm");
    const refused = await nextBotText(user, (text) => text.includes("Not enough TRX"));
    expect(refused.messageId).toBe(card.messageId);
    expect(refused.text).toContain("Balance: 0.5 TRX");
    expect(buttonLabels(refused)).toContain("💳 Top up");
    expect(world.sandbox.control.listRules(accountId)).toHaveLength(0);
  });

  it("one-line /refill: the auto-resume toggle edits the card in place and the rule is created with autoResume on", async () => {
    const { accountId, user } = await linked(515);
    user.send(`/refill ${ADDRESS_A} 30k 65k 1h`);
    const card = await user.nextMessage();
    expect(card.text).toContain("Auto-resume after a top-up: No");
    expect(buttonLabels(card)).toContain("🔁 Auto-resume: No");
    for (const data of callbacks(card)) expect(Buffer.byteLength(data)).toBeLessThanOrEqual(64);
    user.press("🔁 Auto-resume: No");
    const toggled = await nextBotText(user, (text) => text.includes("Auto-resume after a top-up: Yes"));
    expect(toggled.messageId).toBe(card.messageId);
    expect(buttonLabels(toggled)).toEqual(["✅ Confirm", "✖️ Cancel", "🔁 Auto-resume: Yes"]);
    await confirm(user);
    const rules = world.sandbox.control.listRules(accountId);
    expect(rules).toHaveLength(1);
    expect(rules[0]).toMatchObject({ type: "auto-refill", targetAddress: ADDRESS_A, autoResume: true });
  });

  it("a creation that timed out is found in the list instead of being sent again", async () => {
    const { accountId, user } = await linked(512);
    user.send(`/refill ${ADDRESS_C} 30k 65k 15m`);
    await user.nextMessage();
    // The marketplace answers after the bot's 3 s timeout, but still creates the rule.
    world.sandbox.control.injectFault({ method: "POST", pathPrefix: "/api/v1/automations", delayMs: 3600, times: 1 });
    user.press("✅ Confirm");
    const unknown = await nextBotText(user, (text) => text.includes("could not confirm"), 10_000);
    expect(buttonLabels(unknown)).toContain("✅ Confirm");
    for (let i = 0; i < 100 && world.sandbox.control.listRules(accountId).length === 0; i++) await sleep(50);
    user.press("✅ Confirm");
    await nextBotText(user, (text) => text.includes("Rule created"));
    expect(world.sandbox.control.listRules(accountId)).toHaveLength(1);
  });

  it("the list pages 8 rules at a time, newest first, and the main menu opens it", async () => {
    const { accountId, apiKey, user } = await linked(513);
    for (let i = 0; i < 9; i++) {
      const response = await fetch(`${world.marketplaceUrl}/api/v1/automations/smart`, {
        method: "POST",
        headers: { "X-Api-Key": apiKey, "Content-Type": "application/json" },
        body: JSON.stringify({ targetAddress: i === 8 ? ADDRESS_B : ADDRESS_A }),
      });
      expect(response.status).toBe(200);
      world.advance(1000);
    }
    expect(world.sandbox.control.listRules(accountId)).toHaveLength(9);
    user.send("/start");
    await user.nextMessage();
    user.press("🤖 Rules");
    const list = await user.nextMessage();
    expect(list.text).toContain("page 1 of 2, 9 in all");
    const ruleButtons = buttonLabels(list).filter((label) => label.includes("Smart mode"));
    expect(ruleButtons).toHaveLength(8);
    expect(ruleButtons[0]).toContain("TR7N…Lj6t");
    expect(buttonLabels(list)).toContain("Next ▶️");
    user.press("Next ▶️");
    const second = await nextBotText(user, (text) => text.includes("page 2 of 2"));
    expect(buttonLabels(second).filter((label) => label.includes("Smart mode"))).toHaveLength(1);
    expect(buttonLabels(second)).toContain("◀️ Prev");
  });
});
