import { describe, expect, it } from "vitest";
import { stuckCardAfterMs } from "#src/chat/card-lifetime";
import {
  ADDRESS_A,
  linkKey,
  manageWorld,
  type World,
  callbackAnswerText,
  cardOutcome,
  buttonLabels,
  nextBotText,
} from "../kit/world";

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe("/buy Confirm: a restart mid-call, refusals and a provider failure", () => {
  let world: World;
  // A file database: the card must survive the restart.
  manageWorld((started) => (world = started), { file: true });

  async function linked(id: number) {
    const { accountId, apiKey } = world.newAccount();
    const user = world.user(id);
    await linkKey(world, user, apiKey);
    return { accountId, apiKey, user };
  }

  const ledgerOf = (accountId: string, type: string) =>
    world.sandbox.control.ledger(accountId).filter((entry) => entry.type === type);
  const orderPosts = () => world.sandboxRequests.filter((request) => request === "POST /api/v1/orders").length;

  const answerTo = (callbackQueryId: string) => callbackAnswerText(world, callbackQueryId);

  /**
   * Leaves the newest card as a crash right after Confirm's compare-and-set would: "processing",
   * last changed `ageMs` ago, its message not yet swapped for "processing…".
   */
  async function stuckInProcessing(ageMs: number): Promise<{ id: string; idempotencyKey: string }> {
    const card = await world.app.db
      .selectFrom("pending_actions")
      .select(["id", "idempotency_key"])
      .orderBy("created_at", "desc")
      .executeTakeFirstOrThrow();
    await world.app.db
      .updateTable("pending_actions")
      .set({ state: "processing", updated_at: Date.now() - ageMs })
      .where("id", "=", card.id)
      .execute();
    return { id: card.id, idempotencyKey: card.idempotency_key };
  }

  it("a card left processing by a crash before the call: a tap right away is refused, after the restart Confirm places one order", async () => {
    const { accountId, user } = await linked(801);
    user.send(`/buy energy 65000 1h ${ADDRESS_A}`);
    const card = await user.nextMessage();
    await stuckInProcessing(0);
    // Still within the window of a live call on another replica: not taken over.
    const early = user.press("✅ Confirm");
    expect(await answerTo(early.callbackQueryId)).toContain("Already processing");
    expect(orderPosts()).toBe(0);

    await stuckInProcessing(stuckCardAfterMs(3_000) + 1_000);
    await world.restart();
    // Abandoned past the stuck window: the restarted bot gives the card its buttons back at once.
    expect((await nextBotText(user, (text) => text.includes("could not confirm"))).messageId).toBe(card.messageId);
    user.press("✅ Confirm");
    const placed = await cardOutcome(user);
    expect(placed.messageId).toBe(card.messageId);
    expect(placed.text).toContain("Order placed");
    const orders = world.sandbox.control.listOrders(accountId);
    expect(orders).toHaveLength(1);
    expect(placed.text).toContain(orders[0]!.id);
    expect(ledgerOf(accountId, "OrderPayment")).toHaveLength(1);
    // The card ends done (set just after its last edit), so a later tap only says so.
    const cardState = async () =>
      (await world.app.db.selectFrom("pending_actions").select("state").executeTakeFirstOrThrow()).state;
    for (let i = 0; i < 100 && (await cardState()) !== "done"; i++) await sleep(20);
    expect(await cardState()).toBe("done");
  });

  it("a card left processing by a crash after the marketplace placed the order: Confirm after the restart shows that order, charged once", async () => {
    const { accountId, apiKey, user } = await linked(802);
    user.send(`/buy energy 65000 1h ${ADDRESS_A}`);
    const card = await user.nextMessage();
    const { idempotencyKey } = await stuckInProcessing(stuckCardAfterMs(3_000) + 1_000);
    // The call the crash interrupted: it reached the marketplace with the card's key.
    const client = world.app.deps.marketplace(() => apiKey);
    const earlier = await client.createOrder(
      { resource: "energy", targetAddress: ADDRESS_A, volume: "65000", duration: "1h" },
      idempotencyKey,
    );
    const balanceAfterCharge = world.sandbox.control.getBalance(accountId).trx;

    await world.restart();
    // Abandoned past the stuck window: the restarted bot gives the card its buttons back at once.
    expect((await nextBotText(user, (text) => text.includes("could not confirm"))).messageId).toBe(card.messageId);
    user.press("✅ Confirm");
    const placed = await cardOutcome(user);
    expect(placed.messageId).toBe(card.messageId);
    expect(placed.text).toContain("Order placed");
    expect(placed.text).toContain(earlier.id);
    expect(world.sandbox.control.listOrders(accountId).map((order) => order.id)).toEqual([earlier.id]);
    expect(ledgerOf(accountId, "OrderPayment")).toHaveLength(1);
    expect(world.sandbox.control.getBalance(accountId).trx).toBe(balanceAfterCharge);
  });

  for (const [index, status] of ([400, 422] as const).entries()) {
    it(`a ${status} on Confirm shows the marketplace's reason and charges nothing`, async () => {
      const { accountId, user } = await linked(811 + index);
      user.send(`/buy energy 65000 1h ${ADDRESS_A}`);
      const card = await user.nextMessage();
      const balanceBefore = world.sandbox.control.getBalance(accountId).trx;
      const detail = `target <${status}> is not accepted & was refused`;
      world.sandbox.control.injectFault({
        method: "POST",
        pathPrefix: "/api/v1/orders",
        status,
        body: { type: "about:blank", title: "Rejected", status, detail },
      });
      user.press("✅ Confirm");
      const refused = await cardOutcome(user);
      expect(refused.messageId).toBe(card.messageId);
      expect(refused.text).toContain("The marketplace refused the request");
      // The marketplace's words, escaped: they arrive as text, not markup.
      expect(refused.text).toContain(detail);
      expect(refused.html).toContain("&lt;");
      expect(buttonLabels(refused)).not.toContain("✅ Confirm");
      // Refused for good: sent once, never retried.
      expect(orderPosts()).toBe(1);
      expect(world.sandbox.control.listOrders(accountId)).toHaveLength(0);
      expect(ledgerOf(accountId, "OrderPayment")).toHaveLength(0);
      expect(world.sandbox.control.getBalance(accountId).trx).toBe(balanceBefore);
    });
  }

  it("a 502 on Confirm (the provider refused the order at once) says nothing was charged and offers Try again: one fresh card, which places the order", async () => {
    const { accountId, user } = await linked(820);
    user.send(`/buy energy 65000 1h ${ADDRESS_A}`);
    const card = await user.nextMessage();
    const balanceBefore = world.sandbox.control.getBalance(accountId).trx;
    world.sandbox.control.failNextOrder({ accountId, mode: "sync" });
    user.press("✅ Confirm");
    const failed = await cardOutcome(user);
    expect(failed.messageId).toBe(card.messageId);
    expect(failed.text).toContain("The provider turned this order down at once");
    expect(failed.text).toContain("nothing was charged");
    expect(failed.text).not.toContain("refunded");
    expect(buttonLabels(failed)).toEqual(["🔁 Try again"]);
    expect(failed.replyMarkup?.inline_keyboard[0]![0]!.style).toBe("success");
    // The sandbox charged and refunded the same amount; nothing was sent again.
    const [payment] = ledgerOf(accountId, "OrderPayment");
    const [refund] = ledgerOf(accountId, "OrderRefund");
    expect(ledgerOf(accountId, "OrderPayment")).toHaveLength(1);
    expect(refund!.amount.replace("-", "")).toBe(payment!.amount.replace("-", ""));
    expect(orderPosts()).toBe(1);
    expect(world.sandbox.control.listOrders(accountId)).toHaveLength(0);
    expect(world.sandbox.control.getBalance(accountId).trx).toBe(balanceBefore);

    // Try again, tapped twice: the refused card keeps its words and loses its button; one fresh card comes below.
    const tryData = failed.replyMarkup!.inline_keyboard[0]![0]!.callback_data!;
    const first = user.press("🔁 Try again");
    const second = world.fake.pressButton(user.user, card.messageId, tryData);
    const fresh = await nextBotText(user, (text) => text.includes("Confirm your order"));
    expect(fresh.messageId).not.toBe(card.messageId);
    expect(buttonLabels(fresh)).toContain("✅ Confirm");
    expect(await answerTo(first.callbackQueryId)).toBe("");
    expect(await answerTo(second.callbackQueryId)).toBe("This confirmation is no longer valid.");
    const refused = world.fake.messages(820).find((message) => message.messageId === card.messageId)!;
    expect(refused.text).toContain("nothing was charged");
    expect(buttonLabels(refused)).toEqual([]);
    await world.settled();
    // The refused card now says what happened: the fresh card is the only one to confirm.
    expect(world.fake.messages(820).filter((message) => message.text?.includes("Confirm your order"))).toHaveLength(1);

    user.press("✅ Confirm");
    const placed = await cardOutcome(user);
    expect(placed.messageId).toBe(fresh.messageId);
    expect(placed.text).toContain("Order placed");
    expect(world.sandbox.control.listOrders(accountId)).toHaveLength(1);
    expect(orderPosts()).toBe(2);
  });
});
