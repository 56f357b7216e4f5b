import { describe, expect, it } from "vitest";
import { ADDRESS_A, ADDRESS_C, linkKey, manageWorld, type World } from "../kit/world";
import type { ChatMessage } from "#src/telegram-fake/index";

type User = ReturnType<World["user"]>;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const labels = (message: ChatMessage) =>
  (message.replyMarkup?.inline_keyboard ?? []).flat().map((button) => button.text);

/**
 * Confirmation cards whose Confirm reached the marketplace without a known outcome (timeouts,
 * 5xx): they must never charge twice, create a second rule, or claim that nothing happened.
 * The bot's marketplace timeout is 300 ms here, so a 600 ms delay in the sandbox is a timeout
 * whose request still goes through.
 */
describe("confirmation cards after an unknown outcome", () => {
  let world: World;
  manageWorld((started) => (world = started), { env: { MARKETPLACE_TIMEOUT_MS: "300" } });

  /** Every bot message or edit in the user's chat until one passes `check`; returns them all. */
  async function until(user: User, check: (text: string) => boolean, timeoutMs = 10_000): Promise<ChatMessage[]> {
    const seen: ChatMessage[] = [];
    for (;;) {
      const event = await user.nextBotEvent({ timeoutMs });
      if (event.kind === "delete") continue;
      seen.push(event.message);
      if (check(event.message.text ?? "")) return seen;
    }
  }

  async function waitFor(condition: () => boolean): Promise<void> {
    for (let i = 0; i < 200 && !condition(); i++) await sleep(25);
    expect(condition()).toBe(true);
  }

  async function linked(id: number): Promise<{ accountId: string; user: User }> {
    const { accountId, apiKey } = world.newAccount();
    const user = world.user(id);
    await linkKey(world, user, apiKey);
    return { accountId, user };
  }

  const orderPayments = (accountId: string) =>
    world.sandbox.control.ledger(accountId).filter((entry) => entry.type === "OrderPayment").length;
  /** Makes every card look older than the 5-minute preview window. */
  const ageCards = () =>
    world.app.db
      .updateTable("pending_actions")
      .set({ created_at: Date.now() - 6 * 60_000 })
      .execute();
  const cardId = async () =>
    (
      await world.app.db
        .selectFrom("pending_actions")
        .select("id")
        .orderBy("created_at", "desc")
        .executeTakeFirstOrThrow()
    ).id;

  /**
   * Presses Refresh on a card as a stale prompt drawn before the Confirm attempt (or by an older
   * release) would let the user: the current card no longer shows that button.
   */
  async function pressRefresh(user: User, card: ChatMessage): Promise<void> {
    world.fake.injectUpdate({
      callback_query: {
        id: `forged-${card.messageId}`,
        from: { id: user.user.id, is_bot: false, first_name: user.user.firstName, language_code: "en" },
        message: {
          message_id: card.messageId,
          from: { id: 123456789, is_bot: true, first_name: "Energy Sandbox" },
          chat: { id: user.user.id, type: "private", first_name: user.user.firstName },
          date: card.date,
          text: card.text,
        },
        chat_instance: "1",
        data: `rf:${await cardId()}`,
      },
    });
  }

  /** /buy, then Confirm while every order request answers too late: the card ends on "could not confirm". */
  async function orderTimedOut(user: User, accountId: string): Promise<ChatMessage> {
    user.send(`/buy energy 65000 1h ${ADDRESS_A}`);
    const card = await user.nextMessage();
    world.sandbox.control.injectFault({ method: "POST", pathPrefix: "/api/v1/orders", delayMs: 600, times: 20 });
    // The automatic check reads the order list first (a late order would be found there): it answers too late as well.
    world.sandbox.control.injectFault({ method: "GET", pathPrefix: "/api/v1/orders", delayMs: 600, times: 20 });
    user.press("✅ Confirm");
    const seen = await until(user, (text) => text.includes("could not confirm"));
    // "checking…" came first: the bot looked once more by itself before giving up.
    expect(seen.some((message) => message.text?.includes("checking whether it went through"))).toBe(true);
    expect(seen.at(-1)!.messageId).toBe(card.messageId);
    expect(labels(seen.at(-1)!)).toEqual(["✅ Confirm", "✖️ Cancel"]);
    world.sandbox.control.clearFaults();
    // The first, late request did charge.
    await waitFor(() => world.sandbox.control.listOrders(accountId).length === 1);
    return card;
  }

  it("order: timeout, then a stale card: Confirm resends the same key instead of asking to Refresh; one order, one charge", async () => {
    const { accountId, user } = await linked(901);
    await orderTimedOut(user, accountId);
    await ageCards();
    user.press("✅ Confirm");
    const seen = await until(user, (text) => text.includes("Order placed"));
    expect(seen.some((message) => message.text?.includes("5 minutes"))).toBe(false);
    expect(world.sandbox.control.listOrders(accountId)).toHaveLength(1);
    expect(orderPayments(accountId)).toBe(1);
    expect(seen.at(-1)!.text).toContain(world.sandbox.control.listOrders(accountId)[0]!.id);
  });

  it("order: timeout, stale card, Refresh, Confirm: the refreshed card keeps the key; one order, one charge", async () => {
    const { accountId, user } = await linked(902);
    const card = await orderTimedOut(user, accountId);
    await ageCards();
    await pressRefresh(user, card);
    const refreshed = (await until(user, (text) => text.includes("Total"))).at(-1)!;
    // The same card, redrawn: no second card with a key of its own.
    expect(refreshed.messageId).toBe(card.messageId);
    expect(labels(refreshed)).toContain("✅ Confirm");
    user.press("✅ Confirm");
    await until(user, (text) => text.includes("Order placed"));
    expect(world.sandbox.control.listOrders(accountId)).toHaveLength(1);
    expect(orderPayments(accountId)).toBe(1);
  });

  it("order: timeout, then Cancel does not claim that nothing was charged and points to /orders", async () => {
    const { accountId, user } = await linked(903);
    await orderTimedOut(user, accountId);
    user.press("✖️ Cancel");
    const cancelled = (await until(user, (text) => text.includes("Cancelled"))).at(-1)!;
    expect(cancelled.text).not.toContain("Nothing was charged");
    expect(cancelled.text).toContain("may still have placed the order");
    expect(cancelled.text).toContain("/orders");
    expect(orderPayments(accountId)).toBe(1);
  });

  it("order: POSTs that fail with 503 and then recover end on 'Order placed' with no second tap", async () => {
    const { accountId, user } = await linked(904);
    user.send(`/buy energy 65000 1h ${ADDRESS_A}`);
    const card = await user.nextMessage();
    // The client tries 4 times per Confirm; the fifth request (the automatic check) gets through.
    world.sandbox.control.injectFault({
      method: "POST",
      pathPrefix: "/api/v1/orders",
      status: 503,
      body: { title: "Unavailable", status: 503 },
      times: 4,
    });
    user.press("✅ Confirm");
    const seen = await until(user, (text) => text.includes("Order placed"));
    expect(seen.some((message) => message.text?.includes("checking whether it went through"))).toBe(true);
    expect(seen.some((message) => message.text?.includes("could not confirm"))).toBe(false);
    expect(seen.at(-1)!.messageId).toBe(card.messageId);
    expect(world.sandbox.control.listOrders(accountId)).toHaveLength(1);
    expect(orderPayments(accountId)).toBe(1);
  });

  /** /refill, then Confirm while the creation answers after the timeout (the rule appears 1.5 s later). */
  async function ruleTimedOut(user: User, accountId: string): Promise<ChatMessage> {
    user.send(`/refill ${ADDRESS_C} 30k 65k 15m`);
    const card = await user.nextMessage();
    world.sandbox.control.injectFault({ method: "POST", pathPrefix: "/api/v1/automations", delayMs: 1500, times: 1 });
    user.press("✅ Confirm");
    const seen = await until(user, (text) => text.includes("could not confirm"));
    expect(seen.some((message) => message.text?.includes("checking whether it went through"))).toBe(true);
    expect(world.sandbox.control.listRules(accountId)).toHaveLength(0);
    await waitFor(() => world.sandbox.control.listRules(accountId).length === 1);
    return card;
  }

  it("rule: timeout, stale card, Refresh, Confirm: the rule the lost attempt made is found, never a second one", async () => {
    const { accountId, user } = await linked(905);
    const card = await ruleTimedOut(user, accountId);
    await ageCards();
    await pressRefresh(user, card);
    const refreshed = (await until(user, (text) => text.includes("Confirm the new rule"))).at(-1)!;
    expect(refreshed.messageId).toBe(card.messageId);
    user.press("✅ Confirm");
    const created = (await until(user, (text) => text.includes("Rule created"))).at(-1)!;
    const rules = world.sandbox.control.listRules(accountId);
    expect(rules).toHaveLength(1);
    expect(created.text).toContain(rules[0]!.id.slice(0, 8));
  });

  it("rule: timeout, then a stale card: Confirm looks the rule up instead of asking to Refresh; one rule", async () => {
    const { accountId, user } = await linked(906);
    await ruleTimedOut(user, accountId);
    await ageCards();
    user.press("✅ Confirm");
    const seen = await until(user, (text) => text.includes("Rule created"));
    expect(seen.some((message) => message.text?.includes("5 minutes"))).toBe(false);
    expect(world.sandbox.control.listRules(accountId)).toHaveLength(1);
  });

  it("rule: timeout, then Cancel shows the rule the attempt did create", async () => {
    const { accountId, user } = await linked(907);
    await ruleTimedOut(user, accountId);
    user.press("✖️ Cancel");
    const shown = (await until(user, (text) => text.includes("did create this rule"))).at(-1)!;
    expect(shown.text).not.toContain("Nothing was charged");
    expect(shown.text).toContain(world.sandbox.control.listRules(accountId)[0]!.id.slice(0, 8));
    expect(labels(shown)).toContain("🗑 Cancel rule");
    expect(world.sandbox.control.listRules(accountId)).toHaveLength(1);
  });
});
