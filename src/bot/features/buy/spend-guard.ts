import type { BotContext } from "#src/bot/context";
import { amountText, durationText, resourceText, trxText, volumeText } from "#src/chat/format";
import { code } from "#src/chat/html";
import { findGuardSettings } from "#src/db/repos/guard-settings";
import { sunToTrx, trxToSun } from "#src/marketplace/money";
import type { PendingAction } from "#src/db/repos/pending-actions";
import { capCheck, needsSecondTap, type CapCheck } from "#src/spend-guard/index";

// The spend guard on an order's card: the day's buying through the bot against the cap, and Ask again above.

/** What an order card's payload holds that the guard shows (order-card.ts's OrderPayload). */
interface CardOrder {
  resource: string;
  volume: string;
  duration: string;
  address: string;
  totalTrx?: string;
}

/** What the cap says about a card of `total` TRX, as the day stands now. */
export function cardCapCheck(ctx: BotContext, total: string): Promise<CapCheck> {
  return capCheck(ctx.deps.db, ctx.account.telegram_id, trxToSun(total), ctx.deps.now());
}

/**
 * The card's lines about the cap (none without one): "today through this bot: X of Y TRX", and,
 * when this order would pass it, that it cannot be confirmed today.
 */
export function capLines(ctx: BotContext, check: CapCheck, total: string): string[] {
  if (check.capSun === null) return [];
  const cap = trxText(sunToTrx(check.capSun), ctx.lang);
  const lines = [
    ctx.tr("card-cap-today", {
      spent: amountText(sunToTrx(check.spentSun), ctx.lang),
      cap: amountText(sunToTrx(check.capSun), ctx.lang),
    }),
  ];
  if (!check.allowed)
    lines.push(
      "",
      ctx.tr("card-cap-over", { after: trxText(sunToTrx(check.spentSun + trxToSun(total)), ctx.lang), cap }),
    );
  return lines;
}

/** The card's text when Confirm found the cap passed meanwhile (another purchase came first): nothing was ordered. */
export function capRefusedText(ctx: BotContext, check: CapCheck, total: string): string {
  return ctx.tr("card-cap-refused", {
    spent: trxText(sunToTrx(check.spentSun), ctx.lang),
    cap: trxText(sunToTrx(check.capSun ?? 0n), ctx.lang),
    total: trxText(total, ctx.lang),
  });
}

/** Ask again above, for an order card: the question and the total its "Yes, spend …" button names, or null below the amount. */
export async function askAgainForOrder(
  ctx: BotContext,
  action: PendingAction,
): Promise<{ text: string; total: string } | null> {
  const order = JSON.parse(action.payload) as CardOrder;
  if (order.totalTrx === undefined) return null;
  const settings = await findGuardSettings(ctx.deps.db, ctx.account.telegram_id);
  if (!needsSecondTap(settings, trxToSun(order.totalTrx))) return null;
  const total = trxText(order.totalTrx, ctx.lang);
  const text = [
    ctx.tr("card-ask-again-title"),
    "",
    ctx.tr("card-ask-again-order", {
      volume: volumeText(order.volume, ctx.lang),
      resource: resourceText(ctx, order.resource),
      duration: durationText(order.duration, ctx.lang),
    }),
    ctx.tr("card-target", {}, { value: code(order.address) }),
    ctx.tr("card-total", { value: total }),
    "",
    ctx.tr("card-ask-again", {
      threshold: trxText(sunToTrx(settings.askAboveSun!), ctx.lang),
      button: ctx.tr("button-spend", { total }),
    }),
  ].join("\n");
  return { text, total };
}
