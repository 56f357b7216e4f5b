import { InlineKeyboard } from "grammy";
import { CARD_REFRESH } from "#src/chat/callback-data";
import { touchAddress } from "#src/db/repos/addresses";
import { markKeyBroken } from "#src/db/repos/credentials";
import { firstAttemptAt, otherOrderCardResults, wasAttempted, type PendingAction } from "#src/db/repos/pending-actions";
import { MarketplaceError, type MarketplaceClient } from "#src/marketplace/index";
import { compareTrx, parseTrx } from "#src/marketplace/money";
import { recordSpent, releaseSpend, reserveSpend } from "#src/spend-guard/index";
import type { BotContext } from "#src/bot/context";
import { trxText } from "#src/chat/format";
import { describeSpendError, userClient } from "#src/bot/marketplace-access";
import type { CardKind, CardOutcome } from "../cards";
import { doneText, orderTotal, preview, previewOf, type OrderPayload, type PlacedResult } from "./order-card";
import { askAgainForOrder, capRefusedText } from "./spend-guard";

const RETRYABLE = new Set(["timeout", "network", "server", "rate_limited", "invalid_response"]);
/** How long after an attempt with an unknown outcome the card's Idempotency-Key may be sent again. */
export const KEY_RESEND_WINDOW_MS = 24 * 60 * 60_000;
/** Pages of the order list (newest first, 100 each) read to find the order of an earlier attempt. */
const ORDER_LOOKUP_PAGES = 2;
/** Clocks of the bot and the marketplace may disagree by this much. */
const CLOCK_SKEW_MS = 5 * 60_000;

/**
 * The order an earlier attempt of a card made, if the order list shows one: same target, resource,
 * volume and duration, created after the card's first attempt (less the clocks' skew), and not an
 * order another card of the user recorded as its own (`claimed`): a second card
 * for the same order, confirmed minutes after the first, must not take the first card's order for
 * its own. Reads at most ORDER_LOOKUP_PAGES pages (which, with the order itself, is
 * CALLS_PER_CLAIM calls between two renewals of a Confirm's claim).
 */
async function findOrderOfCard(
  client: MarketplaceClient,
  order: OrderPayload,
  attemptedAt: number,
  claimed: ReadonlySet<string>,
): Promise<{ id: string; status: string; totalTrx: string } | null> {
  for (let page = 1; page <= ORDER_LOOKUP_PAGES; page++) {
    const list = await client.listOrders({ page, pageSize: 100 });
    let older = false;
    for (const candidate of list.items) {
      const createdAt = Date.parse(candidate.createdAt);
      if (createdAt < attemptedAt - CLOCK_SKEW_MS) {
        older = true;
        continue;
      }
      if (claimed.has(candidate.id)) continue;
      const same =
        candidate.targetAddress === order.address &&
        candidate.resource.toLowerCase() === order.resource.toLowerCase() &&
        String(candidate.volume) === String(order.volume) &&
        candidate.duration === order.duration;
      if (same) return { id: candidate.id, status: candidate.status, totalTrx: candidate.totalTrx };
    }
    if (older || list.items.length < 100) return null;
  }
  return null;
}

/**
 * The orders other cards of this user recorded as theirs. (The orders the bot follows are not
 * counted: this card's own earlier attempt may have placed and followed one before it lost its claim.)
 */
async function claimedOrders(ctx: BotContext, card: PendingAction): Promise<Set<string>> {
  const results = await otherOrderCardResults(ctx.deps.db, ctx.account.telegram_id, card.id);
  const claimed = new Set<string>();
  for (const result of results) {
    try {
      const orderId = (JSON.parse(result) as { orderId?: unknown }).orderId;
      if (typeof orderId === "string") claimed.add(orderId);
    } catch {
      // a result that is not JSON names no order
    }
  }
  return claimed;
}

/** The card's outcome once its order is known: the address remembered, the order followed, what it cost against what the card showed. */
async function orderPlaced(
  ctx: BotContext,
  action: PendingAction,
  order: OrderPayload,
  placed: { id: string; status: string; totalTrx: string },
): Promise<CardOutcome> {
  await touchAddress(ctx.deps.db, ctx.account.telegram_id, order.address, ctx.deps.now());
  await ctx.deps.followOrder(ctx.account.telegram_id, placed.id);
  // The daily cap counts what the order itself cost (its card's total was reserved before it went out).
  const spentSun = parseTrx(placed.totalTrx) ?? parseTrx(order.totalTrx ?? "0") ?? 0n;
  await recordSpent(ctx.deps.db, spendSource(action), spentSun, placed.id);
  const result: PlacedResult = {
    orderId: placed.id,
    status: placed.status,
    totalTrx: placed.totalTrx,
    ...(order.totalTrx === undefined ? {} : { cardTotalTrx: order.totalTrx }),
  };
  if (result.cardTotalTrx !== undefined && compareTrx(placed.totalTrx, result.cardTotalTrx) > 0) {
    ctx.deps.logger.warn(
      {
        userId: ctx.account.telegram_id,
        orderId: placed.id,
        card: action.id,
        totalTrx: placed.totalTrx,
        cardTotalTrx: result.cardTotalTrx,
      },
      "the order placed costs more than its card showed",
    );
  }
  ctx.deps.logger.info({ userId: ctx.account.telegram_id, orderId: placed.id, card: action.id }, "order placed");
  return { state: "done", text: doneText(ctx, result), result };
}

/**
 * Places the card's order with the card's key: a repeat returns the order an earlier attempt
 * made. After an attempt with an unknown outcome the order list is read first, and the key is
 * sent again only within KEY_RESEND_WINDOW_MS of that attempt: how long the marketplace keeps
 * a key is not stated, and a forgotten key would make the resend a second charge.
 */
async function placeOrder(ctx: BotContext, action: PendingAction): Promise<CardOutcome> {
  const client = await userClient(ctx);
  if (!client) return { state: "failed", text: ctx.tr("card-no-key") };
  const order = JSON.parse(action.payload) as OrderPayload;
  try {
    if (wasAttempted(action)) {
      const found = await findOrderOfCard(client, order, firstAttemptAt(action), await claimedOrders(ctx, action));
      if (found) return await orderPlaced(ctx, action, order, found);
      if (ctx.deps.now() - firstAttemptAt(action) > KEY_RESEND_WINDOW_MS) {
        ctx.deps.logger.warn(
          { userId: ctx.account.telegram_id, card: action.id },
          "an order attempt with an unknown outcome is over 24 h old and not in the order list; its key is not sent again",
        );
        return {
          state: "failed",
          text: ctx.tr("card-attempt-expired"),
          keyboard: new InlineKeyboard().text(ctx.tr("button-refresh"), CARD_REFRESH.data(action.id)),
          result: { attemptExpired: true },
        };
      }
    }
    // The daily cap, decided and recorded at once before the order goes out.
    const cap = await reserveSpend(ctx.deps.db, {
      source: spendSource(action),
      telegramId: ctx.account.telegram_id,
      totalSun: parseTrx(order.totalTrx ?? "0") ?? 0n,
      now: ctx.deps.now(),
    });
    if (!cap.allowed) {
      ctx.deps.logger.info({ userId: ctx.account.telegram_id, card: action.id }, "order not placed: daily cap reached");
      return { state: "failed", text: capRefusedText(ctx, cap, order.totalTrx ?? "0"), result: { error: "cap" } };
    }
    const placed = await client.createOrder(
      { resource: order.resource, targetAddress: order.address, volume: order.volume, duration: order.duration },
      action.idempotency_key,
    );
    return await orderPlaced(ctx, action, order, placed);
  } catch (error) {
    if (!(error instanceof MarketplaceError)) throw error;
    ctx.deps.logger.info(
      { userId: ctx.account.telegram_id, card: action.id, kind: error.kind, status: error.status },
      "order not placed",
    );
    if (RETRYABLE.has(error.kind)) return { state: "retry", text: ctx.tr("card-unknown-state") };
    // Refused (or failed and refunded at once) under the card's own key: no order was placed, so it does not count.
    await releaseSpend(ctx.deps.db, spendSource(action));
    if (error.kind === "unauthorized") await markKeyBroken(ctx.deps.db, ctx.account.telegram_id, ctx.deps.now());
    // The order call itself refused (502, the provider failed): no order, nothing charged, and
    // the same order may go through on a fresh card (a new key: this one made nothing).
    if (error.kind === "provider_failed")
      return {
        state: "failed",
        text: ctx.tr("error-provider-failed"),
        keyboard: new InlineKeyboard().text(ctx.tr("button-try-again"), CARD_REFRESH.data(action.id)).success(),
        result: { error: error.kind, tryAgain: true },
      };
    const { text, keyboard } = await describeSpendError(ctx, client, error);
    return { state: "failed", text, keyboard, result: { error: error.kind } };
  }
}

/** The daily cap's record of what a card spends: one per card, so a retry of the card finds its own. */
function spendSource(action: PendingAction): string {
  return `card:${action.id}`;
}

/** The order card: Confirm places the order, Refresh reads a new preview, a rising total is caught before the order goes out. */
export const ORDER_CARD: CardKind = {
  execute: placeOrder,
  // The same key again: the marketplace answers with the order the lost attempt made, or makes it now.
  recheck: placeOrder,
  async cancelAfterAttempt(ctx) {
    return { text: ctx.tr("card-cancelled-order-unknown") };
  },
  async refresh(ctx, action) {
    const client = await userClient(ctx);
    if (!client) return null;
    const order = JSON.parse(action.payload) as OrderPayload;
    const card = await preview(ctx, client, order);
    return card
      ? { text: card.text, payload: { ...order, totalTrx: card.totalTrx }, canConfirm: card.canConfirm }
      : null;
  },
  /**
   * The order request carries no price: a total that rose since the card was shown is caught by
   * a fresh preview just before the order goes out (a lower one is fine: less than the card said).
   * When the preview cannot be read, the order goes on as the card was confirmed within its 5 minutes.
   */
  async changedSince(ctx, action) {
    const order = JSON.parse(action.payload) as OrderPayload;
    if (order.totalTrx === undefined) return null;
    const client = await userClient(ctx);
    if (!client) return null;
    let now: string;
    try {
      now = orderTotal(await previewOf(client, order));
    } catch (error) {
      if (!(error instanceof MarketplaceError)) throw error;
      ctx.deps.logger.info(
        { userId: ctx.account.telegram_id, card: action.id, kind: error.kind },
        "the price could not be checked again before the order; it goes on as confirmed",
      );
      return null;
    }
    if (compareTrx(now, order.totalTrx) <= 0) return null;
    return ctx.tr("card-price-rose", { was: trxText(order.totalTrx, ctx.lang), now: trxText(now, ctx.lang) });
  },
  doneText(ctx, action) {
    return doneText(ctx, JSON.parse(action.result ?? "{}") as PlacedResult);
  },
  askAgain: askAgainForOrder,
};
