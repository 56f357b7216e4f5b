import { describe, expect, it } from "vitest";
import { ADDRESS_A, ADDRESS_B, linkKey, type World, manageWorld, callbackAnswerText } from "../kit/world";
import type { ChatMessage } from "#src/telegram-fake/index";

type User = ReturnType<World["user"]>;

const labels = (message: ChatMessage) =>
  (message.replyMarkup?.inline_keyboard ?? []).flat().map((button) => button.text);
const callbacks = (message: ChatMessage) =>
  (message.replyMarkup?.inline_keyboard ?? []).flat().map((button) => button.callback_data ?? "");

/** The next new message or edit in the user's chat whose text passes `check`, with which of the two it was. */
async function until(
  user: User,
  check: (text: string) => boolean,
  timeoutMs = 8000,
): Promise<ChatMessage & { edited: boolean }> {
  for (;;) {
    const event = await user.nextBotEvent({ timeoutMs });
    if (event.kind !== "delete" && check(event.message.text ?? ""))
      return { ...event.message, edited: event.kind === "edit" };
  }
}

describe("the rule view: errors, bounds, edits in place and Back", () => {
  let world: World;
  manageWorld((started) => (world = started));

  /** Creates a rule through the marketplace API, as the dashboard or another client would. */
  async function createRule(
    apiKey: string,
    path: "smart" | "refill",
    body: Record<string, unknown>,
  ): Promise<{ id: string }> {
    const url = `${world.marketplaceUrl}/api/v1/automations${path === "smart" ? "/smart" : ""}`;
    const response = await fetch(url, {
      method: "POST",
      headers: { "X-Api-Key": apiKey, "Content-Type": "application/json" },
      body: JSON.stringify(body),
    });
    expect(response.status).toBe(200);
    return (await response.json()) as { id: string };
  }

  const answerTo = (callbackQueryId: string) => callbackAnswerText(world, callbackQueryId);

  /** /rules, then the rule button matching `label`: the card, edited over the list. */
  async function openRule(user: User, label: RegExp): Promise<ChatMessage> {
    user.send("/rules");
    const list = await user.nextMessage();
    expect(list.text).toContain("Your automation rules");
    user.press(label);
    const card = await until(user, (text) => text.includes("TRX spent"));
    expect(card.messageId).toBe(list.messageId);
    return card;
  }

  it("Pause with a read-only key: the card says the key is read-only and the rule stays active", async () => {
    const { accountId } = world.sandbox.control.createAccount({ trx: "100" });
    const { apiKey: purchase } = world.sandbox.control.createKey({ accountId, scope: "purchase" });
    const { apiKey: readOnly } = world.sandbox.control.createKey({ accountId, scope: "read" });
    await createRule(purchase, "smart", { targetAddress: ADDRESS_A });
    const user = world.user(601);
    await linkKey(world, user, readOnly);

    const card = await openRule(user, /Smart mode/);
    const press = user.press("⏸ Pause");
    const refused = await until(user, (text) => text.includes("read-only"));
    expect(refused.edited).toBe(true);
    expect(refused.messageId).toBe(card.messageId);
    expect(refused.text).toContain("Create a key with the purchase scope");
    expect(refused.text).toContain("active");
    expect(labels(refused)).toContain("⏸ Pause");
    expect(await answerTo(press.callbackQueryId)).toContain("refused");
    expect(world.sandbox.control.listRules(accountId)[0]).toMatchObject({ status: "active", pauseReason: null });
  });

  it("a 404 on Pause: the message says the rule no longer exists and shows the refreshed list without it", async () => {
    const { accountId, apiKey } = world.newAccount();
    const kept = await createRule(apiKey, "refill", {
      targetAddress: ADDRESS_B,
      minimal: 30000,
      volume: 65000,
      duration: "1h",
    });
    world.advance(1000);
    const removed = await createRule(apiKey, "smart", { targetAddress: ADDRESS_A });
    const user = world.user(602);
    await linkKey(world, user, apiKey);
    const card = await openRule(user, /Smart mode/);

    // The marketplace removed the rule between the list read and the action.
    world.sandbox.control.injectFault({
      method: "POST",
      pathPrefix: `/api/v1/automations/${removed.id}/pause`,
      status: 404,
      body: { title: "Not Found", status: 404, detail: "no such automation" },
    });
    const press = user.press("⏸ Pause");
    const list = await until(user, (text) => text.includes("Your automation rules"));
    expect(list.edited).toBe(true);
    expect(list.messageId).toBe(card.messageId);
    expect(list.text).toContain("This rule no longer exists");
    expect(list.text).toContain("1 in all");
    expect(labels(list).some((label) => label.includes("Auto-refill"))).toBe(true);
    expect(labels(list).some((label) => label.includes("Smart mode"))).toBe(false);
    expect(await answerTo(press.callbackQueryId)).toContain("no longer exists");
    expect(world.sandbox.control.listRules(accountId).map((rule) => [rule.id, rule.status])).toEqual([
      [removed.id, "active"],
      [kept.id, "active"],
    ]);
  });

  it("/rules with no rules says how to create one", async () => {
    const { apiKey } = world.newAccount();
    const user = world.user(603);
    await linkKey(world, user, apiKey);
    user.send("/rules");
    const list = await user.nextMessage();
    expect(list.text).toContain("0 in all");
    expect(list.text).toContain("You have no automation rules yet");
    for (const command of ["/refill", "/renewal", "/smart", "/newrule"]) expect(list.text).toContain(command);
    expect(callbacks(list).filter((data) => data.startsWith("rl:"))).toEqual([]);
  });

  it("bounds and durations come from the automation options as they are now", async () => {
    const { accountId, apiKey } = world.newAccount();
    world.sandbox.control.setAutomationOptions({ minVolume: 100_000, maxVolume: 300_000, durations: ["1h", "1d"] });
    const user = world.user(604);
    await linkKey(world, user, apiKey);

    user.send(`/refill ${ADDRESS_A} 30k 65k 1h`);
    expect((await user.nextMessage()).text).toContain("out of bounds. Allowed: 100,000 – 300,000");
    user.send(`/refill ${ADDRESS_A} 30k 400k 1h`);
    expect((await user.nextMessage()).text).toContain("Allowed: 100,000 – 300,000");

    user.send("/newrule");
    await user.nextMessage();
    user.press("Auto-refill");
    await user.nextMessage();
    user.send(ADDRESS_A);
    await user.nextMessage();
    user.send("30k");
    const volume = await user.nextMessage();
    expect(volume.text).toContain("Allowed: 100,000 – 300,000");
    expect(labels(volume)).not.toContain("65,000");
    user.send("65k");
    expect((await user.nextMessage()).text).toContain("Allowed: 100,000 – 300,000");
    user.send("150k");
    const duration = await user.nextMessage();
    expect(duration.text).toContain("how long");
    expect(labels(duration)).toEqual(expect.arrayContaining(["1h", "1d"]));
    expect(labels(duration)).not.toContain("15m");
    user.send("15m");
    expect((await user.nextMessage()).text).toContain("one of these durations: 1h, 1d");
    user.press("1d");
    expect((await user.nextMessage()).text).toContain("resume by itself");
    user.press("No");
    expect((await user.nextMessage()).text).toContain("150,000");
    user.press("✅ Confirm");
    await until(user, (text) => text.includes("Rule created"));
    const [rule] = world.sandbox.control.listRules(accountId);
    expect(rule).toMatchObject({ type: "auto-refill", duration: "1d" });
    expect(Number(rule!.volume)).toBe(150000);
  });

  it("Pause, Resume, Cancel rule and its Confirm all edit the same message, sending none", async () => {
    const { accountId, apiKey } = world.newAccount();
    await createRule(apiKey, "smart", { targetAddress: ADDRESS_A });
    const user = world.user(605);
    await linkKey(world, user, apiKey);
    const card = await openRule(user, /Smart mode/);
    const sentBefore = user.botMessages().length;

    const steps: [string, (text: string) => boolean, string][] = [
      ["⏸ Pause", (text) => text.includes("Pause reason"), "paused"],
      ["▶️ Resume", (text) => text.includes("TRX spent") && !text.includes("Pause reason"), "active"],
      ["🗑 Cancel rule", (text) => text.includes("Cancelling is final"), "active"],
      ["✅ Confirm", (text) => text.includes("cancelled for good"), "cancelled"],
    ];
    for (const [button, shown, status] of steps) {
      user.press(button);
      const view = await until(user, shown);
      expect(view.edited, button).toBe(true);
      expect(view.messageId, button).toBe(card.messageId);
      expect(world.sandbox.control.listRules(accountId)[0]!.status, button).toBe(status);
    }
    expect(user.botMessages()).toHaveLength(sentBefore);
  });

  it("a System-paused rule with auto-resume says it resumes by itself after a top-up", async () => {
    const { accountId, apiKey } = world.newAccount();
    const rule = await createRule(apiKey, "refill", {
      targetAddress: ADDRESS_A,
      minimal: 30000,
      volume: 65000,
      duration: "1h",
      autoResume: true,
    });
    world.sandbox.control.systemPauseRule({ ruleId: rule.id });
    const user = world.user(606);
    await linkKey(world, user, apiKey);
    const card = await openRule(user, /Auto-refill/);
    expect(card.text).toContain(
      "Pause reason: the marketplace paused it, because the TRX balance could not cover the next delivery.",
    );
    expect(card.text).not.toMatch(/\bSystem\b|\bUser\b/);
    expect(card.text).toContain("It resumes by itself after a top-up.");
    expect(card.text).not.toContain("does not resume by itself");
    expect(card.text).toContain("Auto-resume after a top-up: Yes");
    expect(labels(card)).toContain("▶️ Resume");
    expect(world.sandbox.control.listRules(accountId)[0]).toMatchObject({
      status: "paused",
      pauseReason: "System",
      autoResume: true,
    });
  });

  it("Back returns to the list page the rule was opened from, also after an action and Deliveries", async () => {
    const { apiKey } = world.newAccount();
    for (let i = 0; i < 10; i++) {
      // The oldest rule targets ADDRESS_B: newest first, it is on page 2.
      await createRule(apiKey, "smart", { targetAddress: i === 0 ? ADDRESS_B : ADDRESS_A });
      world.advance(1000);
    }
    const user = world.user(607);
    await linkKey(world, user, apiKey);
    user.send("/rules");
    const first = await user.nextMessage();
    expect(first.text).toContain("page 1 of 2, 10 in all");
    user.press("Next ▶️");
    await until(user, (text) => text.includes("page 2 of 2"));
    user.press(/TR7N…Lj6t/);
    const card = await until(user, (text) => text.includes("TRX spent"));
    expect(card.text).toContain(ADDRESS_B);
    for (const data of callbacks(card)) expect(Buffer.byteLength(data)).toBeLessThanOrEqual(64);

    user.press("⬅️ Back");
    const back = await until(user, (text) => text.includes("Your automation rules"));
    expect(back.text).toContain("page 2 of 2");
    expect(back.messageId).toBe(first.messageId);

    user.press(/TR7N…Lj6t/);
    await until(user, (text) => text.includes("TRX spent"));
    user.press("⏸ Pause");
    await until(user, (text) => text.includes("Pause reason"));
    user.press("📋 Deliveries");
    await until(user, (text) => text.includes("Deliveries of rule"));
    user.press("⬅️ Back");
    await until(user, (text) => text.includes("TRX spent"));
    user.press("⬅️ Back");
    const again = await until(user, (text) => text.includes("Your automation rules"));
    expect(again.text).toContain("page 2 of 2");
    expect(labels(again).some((label) => label.includes("TR7N…Lj6t") && label.includes("paused"))).toBe(true);
  });
});
