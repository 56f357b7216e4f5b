import { type Composer, type Context, InlineKeyboard } from "grammy";
import { FlatComposer } from "../../middleware/flat-composer";
import { CARD_REFRESH, QUOTE_BUY } from "../../../chat/callback-data";
import { touchAddress } from "../../../db/repos/addresses";
import { markKeyBroken } from "../../../db/repos/credentials";
import { firstAttemptAt, otherOrderCardResults, wasAttempted, type PendingAction } from "../../../db/repos/pending-actions";
import { MarketplaceError, type MarketplaceClient, type OrderPreview } from "../../../marketplace";
import { addTrx, compareTrx, sunToTrx, trxToSun } from "../../../marketplace/money";
import type { BotContext } from "../../context";
import { endFlow } from "../../flows";
import type { Guided } from "../../guided/steps";
import { amountText, knownTrxText, resourceText, trxText, volumeText } from "../../../chat/format";
import { code, marketWord } from "../../../chat/html";
import { finalState } from "../../../chat/alerts";
import { describeSpendError, replyMarketplaceError, userClient } from "../../marketplace-access";
import { pressedButtonExists } from "../../pressed-button";
import { splitArguments } from "../../../input/arguments";
import { badAddressArgument } from "../addresses";
import { sendCard, type CardKinds, type CardOutcome } from "../cards";
import { collectOrder, draftFromCommand, firstOrderQuestion, missingOrderField, orderLimits, startOrderFlow, type DraftField, type OrderDraft, type OrderLimits } from "../order-params";
import type { MenuActions } from "../../context";
import { addressFromStrangeLink, shareLine } from "../deep-links";

const FIELDS: DraftField[] = ["resource", "volume", "duration", "address"];
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
async function findOrderOfCard(client: MarketplaceClient, order: OrderPayload, attemptedAt: number, claimed: ReadonlySet<string>): Promise<{ id: string; status: string; totalTrx: string } | null> {
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

interface OrderPayload {
  resource: string;
  volume: string;
  duration: string;
  address: string;
  /** The total the card showed (absent on cards made before it was kept). */
  totalTrx?: string;
  /** The address came from a deep link and was not one of the user's: the card says so. */
  fromLink?: true;
}

/** The order's card; with the balance unknown (left out by the marketplace), Confirm is offered and the marketplace decides. */
function cardText(ctx: BotContext, order: OrderPayload, preview: OrderPreview, balanceTrx: string | null): { text: string; canConfirm: boolean; totalTrx: string } {
  const activationTrx = preview.activationTrx ?? "0";
  const total = orderTotal(preview);
  const lines = [
    ctx.tr("card-order-title"),
    "",
    ctx.tr("card-resource", { value: resourceText(ctx, order.resource) }),
    ctx.tr("card-volume", { value: volumeText(order.volume, ctx.lang) }),
    ctx.tr("card-duration", { value: order.duration }),
    ctx.tr("card-target", {}, { value: code(order.address) }),
    ctx.tr("card-price", { price: trxText(preview.priceTrx, ctx.lang), commission: knownTrxText(preview.commissionTrx, ctx.lang) }),
  ];
  if (trxToSun(activationTrx) > 0n) lines.push(ctx.tr("card-activation", { value: trxText(activationTrx, ctx.lang) }));
  if (order.resource === "energy" && preview.savingsPercent && preview.burnCostTrx) lines.push(ctx.tr("card-savings", { percent: amountText(preview.savingsPercent, ctx.lang), burn: trxText(preview.burnCostTrx, ctx.lang) }));
  lines.push(ctx.tr("card-total", { value: trxText(total, ctx.lang) }), ctx.tr("card-balance", { value: knownTrxText(balanceTrx, ctx.lang) }));
  const canConfirm = balanceTrx === null || compareTrx(balanceTrx, total) >= 0;
  if (!canConfirm) lines.push("", ctx.tr("card-short", { value: trxText(sunToTrx(trxToSun(total) - trxToSun(balanceTrx)), ctx.lang) }));
  lines.push(shareLine(ctx, "buy", order));
  // Last, so it sits just above Confirm: a link anyone can post may carry someone else's address.
  if (order.fromLink) lines.push("", ctx.tr("card-address-from-link"));
  return { text: lines.join("\n"), canConfirm, totalTrx: total };
}

/** What an order costs: its price and the activation fee, if the target needs one. */
function orderTotal(preview: OrderPreview): string {
  return addTrx(preview.priceTrx, preview.activationTrx ?? "0");
}

/** The marketplace's preview of the card's order (charges nothing). */
function previewOf(client: MarketplaceClient, order: OrderPayload): Promise<OrderPreview> {
  return client.previewOrder({ volume: order.volume, days: order.duration, resource: order.resource, target: order.address });
}

async function preview(ctx: BotContext, client: MarketplaceClient, order: OrderPayload): Promise<{ text: string; canConfirm: boolean; totalTrx: string } | null> {
  try {
    const result = await previewOf(client, order);
    // The preview normally carries the balance; read it when it does not.
    const balanceTrx = result.balanceTrx ?? (await client.balance()).trx;
    return cardText(ctx, order, result, balanceTrx);
  } catch (error) {
    await replyMarketplaceError(ctx, error, { read: true });
    return null;
  }
}

/**
 * The card's text once its order is known: placed and on its way, or, for an order an earlier
 * attempt made that has settled since (found after an unknown outcome), filled or failed and refunded.
 */
function doneText(ctx: BotContext, result: PlacedResult): string {
  const idLine = ctx.tr("order-id-line", {}, { id: code(result.orderId) });
  const settled = finalState(result.status);
  if (settled === "failed") return [ctx.tr("alert-order-failed", { id: result.orderId.slice(0, 8) }), ctx.tr("alert-refunded"), idLine].join("\n");
  const charged = chargedLines(ctx, result);
  if (settled === "filled") return [ctx.tr("alert-order-filled", { id: result.orderId.slice(0, 8) }), idLine, ...charged].join("\n");
  return [ctx.tr("order-placed", { status: marketWord(result.status) }), idLine, ...charged, "", ctx.tr("order-placed-followup")].join("\n");
}

/** What the card records of its order: the order, and what the marketplace says it cost against what the card showed. */
interface PlacedResult {
  orderId: string;
  status: string;
  /** The order's total as the marketplace gives it (absent on cards recorded before it was kept). */
  totalTrx?: string;
  /** The total the card showed when confirmed. */
  cardTotalTrx?: string;
}

/**
 * The order's own total, and a warning when it is above the total the card showed: the order
 * request carries no price, so the amount the marketplace took is read back from the order.
 */
function chargedLines(ctx: BotContext, result: PlacedResult): string[] {
  if (result.totalTrx === undefined) return [];
  const lines = [ctx.tr("order-charged", { value: trxText(result.totalTrx, ctx.lang) })];
  if (result.cardTotalTrx !== undefined && compareTrx(result.totalTrx, result.cardTotalTrx) > 0) {
    lines.push(ctx.tr("order-charged-more", { shown: trxText(result.cardTotalTrx, ctx.lang) }));
  }
  return lines;
}

/** /buy: one-line or guided, then the confirmation card from the order preview; Confirm places the order with the card's key. */
/** Bounds and durations for an order, from the options endpoint (a key is needed); null after telling the user why not. */
async function buyLimits(ctx: BotContext): Promise<OrderLimits | null> {
  const client = await userClient(ctx);
  if (!client) return null;
  try {
    return await orderLimits(ctx, client);
  } catch (error) {
    await replyMarketplaceError(ctx, error, { read: true });
    return null;
  }
}

/** The confirmation card of a complete draft, from the order preview. Creating it is all a flow does: Confirm places the order. */
async function sendOrderCard(ctx: BotContext, draft: OrderDraft): Promise<void> {
  const client = await userClient(ctx);
  if (!client) return;
  const order: OrderPayload = { resource: draft.resource!, volume: draft.volume!, duration: draft.duration!, address: draft.address! };
  if (await addressFromStrangeLink(ctx, order.address)) order.fromLink = true;
  const card = await preview(ctx, client, order);
  if (card) await sendCard(ctx, "order", { ...order, totalTrx: card.totalTrx }, card.text, card.canConfirm);
}

/** /buy, guided: asks what the command did not give, then the confirmation card. */
export async function buyConversation(conversation: Guided, ctx: Context, start: OrderDraft, asked?: unknown): Promise<void> {
  const question = firstOrderQuestion(asked);
  const draft = await collectOrder(conversation, "buy", start, FIELDS, buyLimits, question && { entering: ctx, question });
  await conversation.external((ctx) => sendOrderCard(ctx, draft));
}

/** /buy: one-line or guided, then the confirmation card from the order preview; Confirm places the order with the card's key. */
export function buyFeature(menu: MenuActions, cards: CardKinds): Composer<BotContext> {
  const composer = new FlatComposer<BotContext>();

  async function start(ctx: BotContext, args: string): Promise<void> {
    const client = await userClient(ctx);
    if (!client) return;
    const badAddress = badAddressArgument(ctx, splitArguments(args));
    if (badAddress) {
      await ctx.reply(badAddress, { parse_mode: "HTML" });
      return;
    }
    let limits;
    try {
      limits = await orderLimits(ctx, client);
    } catch (error) {
      return replyMarketplaceError(ctx, error, { read: true });
    }
    const draft = await draftFromCommand(ctx, args, limits, FIELDS, "/buy energy 65k 1h TAddress…");
    if (!draft) return;
    if (missingOrderField(ctx, draft, limits, FIELDS) !== null && (await startOrderFlow(ctx, "buy", draft, limits, FIELDS))) return;
    await endFlow(ctx);
    await sendOrderCard(ctx, draft);
  }

  composer.command("buy", (ctx) => start(ctx, ctx.match));
  menu.register("buy", (ctx, args = "") => start(ctx, args));

  // "Buy this" under a quote: the same values, then the address step.
  composer.callbackQuery(QUOTE_BUY.pattern, async (ctx) => {
    const values = QUOTE_BUY.parse(ctx.callbackQuery.data);
    if (!values || !pressedButtonExists(ctx)) {
      await ctx.answerCallbackQuery({ text: ctx.tr("button-expired") });
      return;
    }
    await ctx.answerCallbackQuery();
    await start(ctx, `${values.resource} ${values.volume} ${values.duration}`);
  });

  async function orderPlaced(ctx: BotContext, action: PendingAction, order: OrderPayload, placed: { id: string; status: string; totalTrx: string }): Promise<CardOutcome> {
    await touchAddress(ctx.deps.db, ctx.account.telegram_id, order.address, ctx.deps.now());
    await ctx.deps.followOrder(ctx.account.telegram_id, placed.id);
    const result: PlacedResult = { orderId: placed.id, status: placed.status, totalTrx: placed.totalTrx, ...(order.totalTrx === undefined ? {} : { cardTotalTrx: order.totalTrx }) };
    if (result.cardTotalTrx !== undefined && compareTrx(placed.totalTrx, result.cardTotalTrx) > 0) {
      ctx.deps.logger.warn({ userId: ctx.account.telegram_id, orderId: placed.id, card: action.id, totalTrx: placed.totalTrx, cardTotalTrx: result.cardTotalTrx }, "the order placed costs more than its card showed");
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
          ctx.deps.logger.warn({ userId: ctx.account.telegram_id, card: action.id }, "an order attempt with an unknown outcome is over 24 h old and not in the order list; its key is not sent again");
          return {
            state: "failed",
            text: ctx.tr("card-attempt-expired"),
            keyboard: new InlineKeyboard().text(ctx.tr("button-refresh"), CARD_REFRESH.data(action.id)),
            result: { attemptExpired: true },
          };
        }
      }
      const placed = await client.createOrder({ resource: order.resource, targetAddress: order.address, volume: order.volume, duration: order.duration }, action.idempotency_key);
      return await orderPlaced(ctx, action, order, placed);
    } catch (error) {
      if (!(error instanceof MarketplaceError)) throw error;
      ctx.deps.logger.info({ userId: ctx.account.telegram_id, card: action.id, kind: error.kind, status: error.status }, "order not placed");
      if (RETRYABLE.has(error.kind)) return { state: "retry", text: ctx.tr("card-unknown-state") };
      if (error.kind === "unauthorized") await markKeyBroken(ctx.deps.db, ctx.account.telegram_id, ctx.deps.now());
      const { text, keyboard } = await describeSpendError(ctx, client, error);
      return { state: "failed", text, keyboard, result: { error: error.kind } };
    }
  }

  cards.set("order", {
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
      return card ? { text: card.text, payload: { ...order, totalTrx: card.totalTrx }, canConfirm: card.canConfirm } : null;
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
        ctx.deps.logger.info({ userId: ctx.account.telegram_id, card: action.id, kind: error.kind }, "the price could not be checked again before the order; it goes on as confirmed");
        return null;
      }
      if (compareTrx(now, order.totalTrx) <= 0) return null;
      return ctx.tr("card-price-rose", { was: trxText(order.totalTrx, ctx.lang), now: trxText(now, ctx.lang) });
    },
    doneText(ctx, action) {
      return doneText(ctx, JSON.parse(action.result ?? "{}") as PlacedResult);
    },
  });

  return composer;
}
