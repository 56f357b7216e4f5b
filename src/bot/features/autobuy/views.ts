import { MAX_AUTO_BUYS_PER_USER, type AutoBuy } from "#src/db/repos/auto-buys";
import type { AutoBuyOrder } from "#src/db/repos/auto-buy-orders";
import { sunToTrx } from "#src/marketplace/money";
import type { BotContext } from "#src/bot/context";
import { timeText, trxText } from "#src/chat/format";
import { code } from "#src/chat/html";
import { autoBuyRentText, autoBuyStatusWords } from "#src/chat/auto-buy-alerts";

/** Its state in words (see autoBuyStatusWords). */
export const autoBuyStatusText = (ctx: BotContext, autoBuy: AutoBuy): string => autoBuyStatusWords(ctx.tr, autoBuy);

/** An auto-buy as the list and its card show it, with what its day's budget has left. */
export interface AutoBuyShown {
  autoBuy: AutoBuy;
  /** What today's orders (UTC day) left of the budget, in sun. */
  leftTodaySun: bigint;
}

const iso = (ms: number) => timeText(new Date(ms).toISOString());

function shortAddress(address: string): string {
  return `${address.slice(0, 6)}…${address.slice(-4)}`;
}

/** /autobuys: every auto-buy of the user, numbered as the buttons number them. */
export function autoBuyListText(ctx: BotContext, shown: AutoBuyShown[], note?: string): string {
  if (shown.length === 0) return [note, ctx.tr("autobuys-empty")].filter(Boolean).join("\n\n");
  const lines = [ctx.tr("autobuys-title", { count: shown.length, max: MAX_AUTO_BUYS_PER_USER })];
  for (const [index, { autoBuy, leftTodaySun }] of shown.entries()) {
    lines.push(
      `${index + 1}. ${ctx.tr(
        "autobuys-line",
        {
          rent: autoBuyRentText(ctx.tr, ctx.lang, autoBuy),
          max: trxText(sunToTrx(BigInt(autoBuy.max_total_sun)), ctx.lang),
          left: trxText(sunToTrx(leftTodaySun), ctx.lang),
          budget: trxText(sunToTrx(BigInt(autoBuy.daily_budget_sun)), ctx.lang),
          ends: iso(autoBuy.ends_at),
        },
        { address: code(shortAddress(autoBuy.address)) },
      )} — ${autoBuyStatusText(ctx, autoBuy)}`,
    );
  }
  if (note) lines.push("", note);
  return lines.join("\n");
}

/** An auto-buy's card: its bounds, today's budget left, the price last seen, its state and its last orders. */
export function autoBuyCardView(ctx: BotContext, shown: AutoBuyShown, orders: AutoBuyOrder[], note?: string): string {
  const { autoBuy, leftTodaySun } = shown;
  const lines = [
    ctx.tr("autobuy-view-title", { id: autoBuy.id.slice(0, 8) }),
    ctx.tr("autobuy-card-rent", { rent: autoBuyRentText(ctx.tr, ctx.lang, autoBuy) }),
    ctx.tr("autobuy-card-address", {}, { value: code(autoBuy.address) }),
    ctx.tr("autobuy-card-max", { value: trxText(sunToTrx(BigInt(autoBuy.max_total_sun)), ctx.lang) }),
    ctx.tr("autobuy-view-budget", {
      budget: trxText(sunToTrx(BigInt(autoBuy.daily_budget_sun)), ctx.lang),
      left: trxText(sunToTrx(leftTodaySun), ctx.lang),
    }),
    ctx.tr("autobuy-card-orders", { count: autoBuy.orders_per_day }),
    ctx.tr("autobuy-view-ends", { time: iso(autoBuy.ends_at) }),
    autoBuy.last_price_sun === null || autoBuy.last_checked_at === null
      ? ctx.tr("autobuy-view-price-unknown")
      : ctx.tr("autobuy-view-price", {
          price: trxText(sunToTrx(BigInt(autoBuy.last_price_sun)), ctx.lang),
          time: iso(autoBuy.last_checked_at),
        }),
    ctx.tr("autobuy-view-status", { value: autoBuyStatusText(ctx, autoBuy) }),
    "",
  ];
  if (orders.length === 0) lines.push(ctx.tr("autobuy-view-no-orders"));
  else {
    lines.push(ctx.tr("autobuy-view-orders"));
    for (const order of orders)
      lines.push(
        ctx.tr(
          order.state === "failed" ? "autobuy-view-order-refunded" : "autobuy-view-order",
          { time: iso(order.created_at), total: trxText(sunToTrx(BigInt(order.total_sun)), ctx.lang) },
          { id: code((order.order_id ?? "").slice(0, 8)) },
        ),
      );
  }
  if (note) lines.push("", note);
  return lines.join("\n");
}
