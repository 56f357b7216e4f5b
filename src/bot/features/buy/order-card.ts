import type { MarketplaceClient, OrderPreview } from "#src/marketplace/index";
import { addTrx, compareTrx, sunToTrx, trxToSun } from "#src/marketplace/money";
import type { BotContext } from "#src/bot/context";
import { amountText, durationText, knownTrxText, resourceText, trxText, volumeText } from "#src/chat/format";
import { orderStatusText } from "#src/chat/market-words";
import { code } from "#src/chat/html";
import { finalState } from "#src/chat/alerts";
import { replyMarketplaceError } from "#src/bot/marketplace-access";
import { shareLine } from "../deep-links";
import type { CanConfirm } from "#src/chat/alerts";
import type { CapCheck } from "#src/spend-guard/index";
import { capLines, cardCapCheck } from "./spend-guard";

export interface OrderPayload {
  resource: string;
  volume: string;
  duration: string;
  address: string;
  /** The total the card showed (absent on cards made before it was kept). */
  totalTrx?: string;
  /** The address came from a deep link and was not one of the user's: the card says so. */
  fromLink?: true;
}

/**
 * The order's card; with the balance unknown (left out by the marketplace), Confirm is offered and
 * the marketplace decides. With a daily cap set, the card says what was bought through the bot
 * today, and offers no Confirm when this order would pass the cap.
 */
function cardText(
  ctx: BotContext,
  order: OrderPayload,
  preview: OrderPreview,
  balanceTrx: string | null,
  cap: CapCheck,
): { text: string; canConfirm: CanConfirm; totalTrx: string } {
  const activationTrx = preview.activationTrx ?? "0";
  const total = orderTotal(preview);
  const lines = [
    ctx.tr("card-order-title"),
    "",
    ctx.tr("card-resource", { value: resourceText(ctx, order.resource) }),
    ctx.tr("card-volume", { value: volumeText(order.volume, ctx.lang) }),
    ctx.tr("card-duration", { value: durationText(order.duration, ctx.lang) }),
    ctx.tr("card-target", {}, { value: code(order.address) }),
    ctx.tr("card-price", {
      price: trxText(preview.priceTrx, ctx.lang),
      commission: knownTrxText(preview.commissionTrx, ctx.lang),
    }),
  ];
  if (trxToSun(activationTrx) > 0n) lines.push(ctx.tr("card-activation", { value: trxText(activationTrx, ctx.lang) }));
  if (order.resource === "energy" && preview.savingsPercent && preview.burnCostTrx)
    lines.push(
      ctx.tr("card-savings", {
        percent: amountText(preview.savingsPercent, ctx.lang),
        burn: trxText(preview.burnCostTrx, ctx.lang),
      }),
    );
  lines.push(
    ctx.tr("card-total", { value: trxText(total, ctx.lang) }),
    ctx.tr("card-balance", { value: knownTrxText(balanceTrx, ctx.lang) }),
  );
  const covered = balanceTrx === null || compareTrx(balanceTrx, total) >= 0;
  if (!covered)
    lines.push(
      "",
      ctx.tr("card-short", { value: trxText(sunToTrx(trxToSun(total) - trxToSun(balanceTrx)), ctx.lang) }),
    );
  lines.push(...capLines(ctx, cap, total));
  const canConfirm: CanConfirm = !cap.allowed ? "capped" : covered;
  lines.push(shareLine(ctx, "buy", order));
  // Last, so it sits just above Confirm: a link anyone can post may carry someone else's address.
  if (order.fromLink) lines.push("", ctx.tr("card-address-from-link"));
  return { text: lines.join("\n"), canConfirm, totalTrx: total };
}

/** What an order costs: its price and the activation fee, if the target needs one. */
export function orderTotal(preview: OrderPreview): string {
  return addTrx(preview.priceTrx, preview.activationTrx ?? "0");
}

/** The marketplace's preview of the card's order (charges nothing). */
export function previewOf(client: MarketplaceClient, order: OrderPayload): Promise<OrderPreview> {
  return client.previewOrder({
    volume: order.volume,
    days: order.duration,
    resource: order.resource,
    target: order.address,
  });
}

export async function preview(
  ctx: BotContext,
  client: MarketplaceClient,
  order: OrderPayload,
): Promise<{ text: string; canConfirm: CanConfirm; totalTrx: string } | null> {
  try {
    const result = await previewOf(client, order);
    // The preview normally carries the balance; read it when it does not.
    const balanceTrx = result.balanceTrx ?? (await client.balance()).trx;
    return cardText(ctx, order, result, balanceTrx, await cardCapCheck(ctx, orderTotal(result)));
  } catch (error) {
    await replyMarketplaceError(ctx, error, { read: true });
    return null;
  }
}

/**
 * The card's text once its order is known: placed and on its way, or, for an order an earlier
 * attempt made that has settled since (found after an unknown outcome), filled or failed and refunded.
 */
export function doneText(ctx: BotContext, result: PlacedResult): string {
  const idLine = ctx.tr("order-id-line", {}, { id: code(result.orderId) });
  const settled = finalState(result.status);
  if (settled === "failed")
    return [ctx.tr("alert-order-failed", { id: result.orderId.slice(0, 8) }), ctx.tr("alert-refunded"), idLine].join(
      "\n",
    );
  const charged = chargedLines(ctx, result);
  if (settled === "filled")
    return [ctx.tr("alert-order-filled", { id: result.orderId.slice(0, 8) }), idLine, ...charged].join("\n");
  return [
    ctx.tr("order-placed", {}, { status: orderStatusText(ctx.tr, result.status) }),
    idLine,
    ...charged,
    "",
    ctx.tr("order-placed-followup"),
  ].join("\n");
}

/** What the card records of its order: the order, and what the marketplace says it cost against what the card showed. */
export interface PlacedResult {
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
