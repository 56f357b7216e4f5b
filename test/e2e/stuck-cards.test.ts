import { describe, expect, it } from "vitest";
import { ADDRESS_A, linkKey, manageWorld, type World, nextBotText, buttonLabels } from "../kit/world";
import { createMarketplaceClient } from "#src/marketplace/index";
import { stuckCardAfterMs } from "#src/chat/card-lifetime";

/** Waits for the card to show the placed order; returns that message. */
const orderPlaced = (user: ReturnType<World["user"]>) => nextBotText(user, (text) => text.includes("Order placed"));

describe("a confirmation card a crash left on 'processing…'", () => {
  let world: World;
  manageWorld((started) => (world = started), { file: true });
  /** From the world's MARKETPLACE_TIMEOUT_MS (3 s): 3 calls × (4 attempts × 3 s + 3 waits × 30 s) + 30 s. */
  const STUCK_CARD_MS = stuckCardAfterMs(3_000);

  it("the stuck window follows the configured marketplace timeout and retries", () => {
    expect(stuckCardAfterMs(3_000)).toBe(3 * (4 * 3_000 + 3 * 30_000) + 30_000);
    expect(stuckCardAfterMs(10_000)).toBe(420_000);
    expect(stuckCardAfterMs(60_000)).toBeGreaterThan(stuckCardAfterMs(10_000));
  });

  /** Shows a /buy card, then leaves it as a crash after Confirm's first edit would: processing, buttons gone. */
  async function stuckCard(userId: number, ageMs: number) {
    const { accountId, apiKey } = world.newAccount();
    const user = world.user(userId);
    await linkKey(world, user, apiKey);
    user.send(`/buy energy 65000 1h ${ADDRESS_A}`);
    const card = await user.nextMessage();
    const row = await world.app.db
      .selectFrom("pending_actions")
      .select(["id", "idempotency_key"])
      .where("telegram_id", "=", userId)
      .executeTakeFirstOrThrow();
    await world.app.bot.api.editMessageText(userId, card.messageId, "⏳ Processing…");
    await user.nextBotEvent();
    await world.app.db
      .updateTable("pending_actions")
      .set({ state: "processing", updated_at: Date.now() - ageMs })
      .where("id", "=", row.id)
      .execute();
    return { accountId, apiKey, user, card, row };
  }

  it("gets its Confirm and Cancel back in place, and Confirm then places exactly one order", async () => {
    const { accountId, user, card, row } = await stuckCard(901, STUCK_CARD_MS + 1_000);
    expect(await world.app.push.releaseStuckCards()).toBe(1);
    // Released once: a second sweep (another replica, the next tick) finds nothing.
    expect(await world.app.push.releaseStuckCards()).toBe(0);

    const event = await user.nextBotEvent();
    expect(event.kind).toBe("edit");
    if (event.kind === "delete") throw new Error("unexpected deletion");
    expect(event.message.messageId).toBe(card.messageId);
    expect(event.message.text).toContain("could not confirm");
    expect(buttonLabels(event.message)).toEqual(["✅ Confirm", "✖️ Cancel"]);
    const state = await world.app.db
      .selectFrom("pending_actions")
      .select(["state", "result", "idempotency_key"])
      .where("id", "=", row.id)
      .executeTakeFirstOrThrow();
    expect(state.state).toBe("pending");
    expect(state.idempotency_key).toBe(row.idempotency_key);
    expect(state.result).not.toBeNull();

    user.press("✅ Confirm");
    expect((await orderPlaced(user)).messageId).toBe(card.messageId);
    expect(world.sandbox.control.listOrders(accountId)).toHaveLength(1);
  });

  it("after the marketplace already placed the order: Confirm shows that order and charges nothing more", async () => {
    const { accountId, apiKey, user, row } = await stuckCard(902, STUCK_CARD_MS + 1_000);
    // The crash came after the marketplace accepted the order under the card's key.
    const client = createMarketplaceClient({ baseUrl: world.marketplaceUrl, apiKey: () => apiKey, timeoutMs: 5_000 });
    const placed = await client.createOrder(
      { resource: "energy", targetAddress: ADDRESS_A, volume: "65000", duration: "1h" },
      row.idempotency_key,
    );
    const balanceAfterOrder = (await client.balance()).trx;

    await world.app.push.releaseStuckCards();
    await user.nextBotEvent();
    user.press("✅ Confirm");
    expect((await orderPlaced(user)).text).toContain(placed.id);
    expect(world.sandbox.control.listOrders(accountId)).toHaveLength(1);
    expect((await client.balance()).trx).toBe(balanceAfterOrder);
  });

  it("a card processing for less than the stuck window is left alone (a slow call on a live replica)", async () => {
    const { card } = await stuckCard(903, STUCK_CARD_MS - 2_000);
    expect(await world.app.push.releaseStuckCards()).toBe(0);
    const row = await world.app.db
      .selectFrom("pending_actions")
      .select("state")
      .where("telegram_id", "=", 903)
      .executeTakeFirstOrThrow();
    expect(row.state).toBe("processing");
    const message = world.fake.messages(903).find((candidate) => candidate.messageId === card.messageId);
    expect(message?.text).toContain("Processing");
  });
});
