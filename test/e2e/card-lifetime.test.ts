import { describe, expect, it } from "vitest";
import { ADDRESS_A, buttonLabels, linkKey, manageWorld, nextBotText, type World } from "../kit/world";
import { createMarketplaceClient } from "#src/marketplace/index";
import { stuckCardAfterMs } from "#src/chat/card-lifetime";
import { KEY_RESEND_WINDOW_MS } from "#src/bot/features/buy/place-order";

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
/** The world's MARKETPLACE_TIMEOUT_MS is 3 s. */
const STUCK_CARD_MS = stuckCardAfterMs(3_000);

/**
 * A confirmation card whose outcome is unknown has a bounded life: Confirm looks for the order
 * before sending the card's key again, and sends it again only within 24 hours of the attempt.
 * A Confirm still running is never overtaken by the release of stuck cards, and one that outlived
 * its claim stops without touching the card.
 */
describe("the life of a card with an unknown outcome", () => {
  let world: World;
  manageWorld((started) => (world = started));

  const orderPosts = () => world.sandboxRequests.filter((request) => request === "POST /api/v1/orders").length;
  async function until(condition: () => boolean | Promise<boolean>, timeoutMs = 8_000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (!(await condition())) {
      if (Date.now() > deadline) throw new Error("timed out waiting");
      await sleep(20);
    }
  }

  async function cardFor(userId: number) {
    const { accountId, apiKey } = world.newAccount();
    const user = world.user(userId);
    await linkKey(world, user, apiKey);
    user.send(`/buy energy 65000 1h ${ADDRESS_A}`);
    const card = await user.nextMessage();
    expect(buttonLabels(card)).toContain("✅ Confirm");
    const row = await world.app.db
      .selectFrom("pending_actions")
      .selectAll()
      .where("telegram_id", "=", userId)
      .executeTakeFirstOrThrow();
    return { accountId, apiKey, user, card, row };
  }

  /** Marks the card as attempted with an unknown outcome `ageMs` ago (as a timeout or a crash leaves it). */
  const attemptedAgo = (id: string, ageMs: number) =>
    world.app.db
      .updateTable("pending_actions")
      .set({
        state: "pending",
        result: JSON.stringify({ attempted: true, at: Date.now() - ageMs }),
        created_at: Date.now() - ageMs - 60_000,
      })
      .where("id", "=", id)
      .execute();

  it("Confirm first finds the order the lost attempt made and shows it, without sending the key again", async () => {
    const { accountId, apiKey, user, row } = await cardFor(941);
    // The lost attempt reached the marketplace; two days later its key is not sent again, yet the order is found.
    await attemptedAgo(row.id, 2 * KEY_RESEND_WINDOW_MS);
    const client = createMarketplaceClient({ baseUrl: world.marketplaceUrl, apiKey: () => apiKey, timeoutMs: 5_000 });
    const placed = await client.createOrder(
      { resource: "energy", targetAddress: ADDRESS_A, volume: "65000", duration: "1h" },
      row.idempotency_key,
    );
    await world.app.db
      .updateTable("pending_actions")
      .set({ created_at: Date.now() - 60_000 })
      .where("id", "=", row.id)
      .execute();
    const posts = orderPosts();
    user.press("✅ Confirm");
    const shown = await nextBotText(user, (text) => text.includes("Order placed"));
    expect(shown.text).toContain(placed.id.slice(0, 8));
    expect(orderPosts()).toBe(posts);
    expect(world.sandbox.control.listOrders(accountId)).toHaveLength(1);
  });

  it("within 24 hours of the attempt and with no order in the list, the same key is sent again: one order", async () => {
    const { accountId, user, row } = await cardFor(942);
    await attemptedAgo(row.id, KEY_RESEND_WINDOW_MS - 60_000);
    const posts = orderPosts();
    user.press("✅ Confirm");
    await nextBotText(user, (text) => text.includes("Order placed"));
    expect(orderPosts()).toBe(posts + 1);
    expect(world.sandbox.control.listOrders(accountId)).toHaveLength(1);
    const sent = world.sandbox.control.listOrders(accountId)[0]!;
    expect(sent.targetAddress).toBe(ADDRESS_A);
  });

  it("past 24 hours with no order in the list, the key is not sent again: the card says so, points to /orders and offers a new preview", async () => {
    const { accountId, user, card, row } = await cardFor(943);
    await attemptedAgo(row.id, KEY_RESEND_WINDOW_MS + 60_000);
    const posts = orderPosts();
    user.press("✅ Confirm");
    const refused = await nextBotText(user, (text) => text.includes("24 hours"));
    expect(refused.messageId).toBe(card.messageId);
    expect(refused.text).toContain("/orders");
    expect(buttonLabels(refused)).toEqual(["🔄 Refresh"]);
    expect(orderPosts()).toBe(posts);
    expect(world.sandbox.control.listOrders(accountId)).toHaveLength(0);
    // The new preview is a new card with a new key; Confirm on it places one order.
    user.press("🔄 Refresh");
    const fresh = await nextBotText(user, (text) => text.includes("Confirm the order") || text.includes("Total"));
    expect(fresh.messageId).not.toBe(card.messageId);
    const rows = await world.app.db
      .selectFrom("pending_actions")
      .select(["id", "idempotency_key", "state"])
      .where("telegram_id", "=", 943)
      .execute();
    expect(rows).toHaveLength(2);
    expect(new Set(rows.map((candidate) => candidate.idempotency_key)).size).toBe(2);
    user.press("✅ Confirm");
    await nextBotText(user, (text) => text.includes("Order placed"));
    expect(world.sandbox.control.listOrders(accountId)).toHaveLength(1);
  });

  it("a Confirm still running is never released as stuck: just inside the window nothing is released and one order is placed", async () => {
    const { accountId, user } = await cardFor(944);
    world.sandbox.control.injectFault({ method: "POST", pathPrefix: "/api/v1/orders", delayMs: 1_500, times: 1 });
    user.press("✅ Confirm");
    await until(() => orderPosts() === 1);
    world.shiftAppClock(STUCK_CARD_MS - 1_000);
    expect(await world.app.push.releaseStuckCards()).toBe(0);
    await nextBotText(user, (text) => text.includes("Order placed"));
    expect(world.sandbox.control.listOrders(accountId)).toHaveLength(1);
    expect(world.logs()).not.toContain("outlived its claim");
  });

  it("a Confirm that outlived the window stops when it returns; the released card's Confirm finds its order and charges once", async () => {
    const { accountId, user, card } = await cardFor(945);
    world.sandbox.control.injectFault({ method: "POST", pathPrefix: "/api/v1/orders", delayMs: 1_500, times: 1 });
    user.press("✅ Confirm");
    await until(() => orderPosts() === 1);
    world.shiftAppClock(STUCK_CARD_MS + 1_000);
    expect(await world.app.push.releaseStuckCards()).toBe(1);
    const released = await nextBotText(user, (text) => text.includes("could not confirm"));
    expect(released.messageId).toBe(card.messageId);
    // The slow call returns: its Confirm no longer holds the card and changes nothing.
    await until(() => world.logs().includes("outlived its claim"));
    expect(
      (
        await world.app.db
          .selectFrom("pending_actions")
          .select("state")
          .where("telegram_id", "=", 945)
          .executeTakeFirstOrThrow()
      ).state,
    ).toBe("pending");
    expect(world.sandbox.control.listOrders(accountId)).toHaveLength(1);
    user.press("✅ Confirm");
    await nextBotText(user, (text) => text.includes("Order placed"));
    expect(orderPosts()).toBe(1);
    expect(world.sandbox.control.listOrders(accountId)).toHaveLength(1);
  });
});
