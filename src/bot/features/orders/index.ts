import { type Composer, InlineKeyboard } from "grammy";
import { FlatComposer } from "#src/bot/middleware/flat-composer";
import { refFor, resolveRef } from "#src/db/repos/callback-refs";
import type { Order } from "#src/marketplace/index";
import type { BotContext } from "#src/bot/context";
import { editInPlace } from "#src/bot/edit-in-place";
import { countText, durationText, resourceText, timeText, trxText, volumeText } from "#src/chat/format";
import { orderStatusText, resourceAmount } from "#src/chat/market-words";
import { visibleText } from "#src/bot/edit-in-place";
import { code, marketWord, shortAddress, truncate, txLink } from "#src/chat/html";
import { replyMarketplaceError, userClient } from "#src/bot/marketplace-access";
import type { MenuActions } from "#src/bot/context";
import { BUY_AGAIN, ORDER_OPEN, ORDERS_PAGE, ORDERS_STATS } from "#src/chat/callback-data";
import { buyAgainRefs } from "#src/db/repos/buy-again-refs";
import { buyAgainFeature } from "./buy-again";
import { buttonValues } from "#src/bot/pressed-button";

const PAGE_SIZE = 5;

const edit = editInPlace;

function orderCard(ctx: BotContext, order: Order): string {
  const lines = [
    ctx.tr("order-card-title", {}, { id: code(order.id) }),
    ctx.tr("order-card-status", {}, { value: orderStatusText(ctx.tr, order.status) }),
    ctx.tr("card-resource", { value: resourceText(ctx, order.resource) }),
    ctx.tr("card-volume", { value: volumeText(order.volume, ctx.lang) }),
    ctx.tr("card-duration", { value: durationText(order.duration, ctx.lang) }),
    ctx.tr("card-target", {}, { value: code(marketWord(order.targetAddress)) }),
    ctx.tr("order-card-price", { value: trxText(order.priceTrx, ctx.lang) }),
    ctx.tr("order-card-activation", { value: trxText(order.activationTrx, ctx.lang) }),
    ctx.tr("card-total", { value: trxText(order.totalTrx, ctx.lang) }),
    ctx.tr("order-card-tx", {}, { value: order.txId ? txLink(order.txId, ctx.tr("tx-sandbox")) : "—" }),
    ctx.tr("order-card-created", { value: timeText(order.createdAt) }),
  ];
  return lines.join("\n");
}

/** An order card's buttons: Buy again (for the key linked now), and Back to the page it was opened from. */
async function orderCardKeyboard(ctx: BotContext, order: Order, page: number): Promise<InlineKeyboard> {
  const keyboard = new InlineKeyboard();
  const [buyAgain] = await buyAgainRefs(
    ctx.deps.db,
    [{ telegramId: ctx.account.telegram_id, orderId: order.id }],
    ctx.deps.now(),
  );
  if (buyAgain) keyboard.text(ctx.tr("button-buy-again"), BUY_AGAIN.data(buyAgain)).success();
  return keyboard.text(ctx.tr("button-back"), ORDERS_PAGE.data(page));
}

/** /orders: newest first, 5 a page with Prev/Next; a card per order, with Buy again; order stats. */
export function ordersFeature(menu: MenuActions): Composer<BotContext> {
  const composer = new FlatComposer<BotContext>();

  async function page(ctx: BotContext, number: number): Promise<{ text: string; keyboard: InlineKeyboard } | null> {
    const client = await userClient(ctx);
    if (!client) return null;
    let list;
    try {
      list = await client.listOrders({ page: number, pageSize: PAGE_SIZE });
    } catch (error) {
      await replyMarketplaceError(ctx, error, { read: true });
      return null;
    }
    const pages = Math.max(1, Math.ceil(list.total / PAGE_SIZE));
    const keyboard = new InlineKeyboard();
    const lines = [
      ctx.tr("orders-title", {
        page: countText(number, ctx.lang),
        pages: countText(pages, ctx.lang),
        total: countText(list.total, ctx.lang),
      }),
    ];
    if (list.items.length === 0) lines.push("", ctx.tr("orders-empty"));
    for (const order of list.items) {
      const status = orderStatusText(ctx.tr, order.status);
      const amount = resourceAmount(ctx.tr, order.resource, order.volume, ctx.lang);
      // The address whole, whatever the words before it take.
      const label = `${truncate(`${visibleText(status)} · ${visibleText(amount)}`, 48)} · ${shortAddress(order.targetAddress)}`;
      lines.push(
        `• ${code(order.id.slice(0, 8))} ${ctx.tr("orders-line", { total: trxText(order.totalTrx, ctx.lang) }, { status, amount })}`,
      );
      keyboard
        .text(
          label,
          ORDER_OPEN.data(await refFor(ctx.deps.db, ctx.account.telegram_id, order.id, ctx.deps.now()), number),
        )
        .row();
    }
    if (number > 1) keyboard.text(ctx.tr("button-prev"), ORDERS_PAGE.data(number - 1));
    if (number < pages) keyboard.text(ctx.tr("button-next"), ORDERS_PAGE.data(number + 1));
    keyboard.row().text(ctx.tr("button-stats"), ORDERS_STATS.data);
    return { text: lines.join("\n"), keyboard };
  }

  async function showOrders(ctx: BotContext): Promise<void> {
    const view = await page(ctx, 1);
    if (view) await ctx.reply(view.text, { parse_mode: "HTML", reply_markup: view.keyboard });
  }

  composer.command("orders", showOrders);
  menu.register("orders", showOrders);

  composer.callbackQuery(ORDERS_PAGE.pattern, async (ctx) => {
    await ctx.answerCallbackQuery();
    const view = await page(ctx, Math.max(1, buttonValues(ctx, ORDERS_PAGE)));
    if (view) await edit(ctx, view.text, view.keyboard);
  });

  composer.callbackQuery(ORDER_OPEN.pattern, async (ctx) => {
    const opened = buttonValues(ctx, ORDER_OPEN);
    const orderId = await resolveRef(ctx.deps.db, ctx.account.telegram_id, opened.ref);
    if (!orderId) {
      await ctx.answerCallbackQuery({ text: ctx.tr("button-expired") });
      return;
    }
    await ctx.answerCallbackQuery();
    const client = await userClient(ctx);
    if (!client) return;
    try {
      const order = await client.getOrder(orderId);
      await edit(ctx, orderCard(ctx, order), await orderCardKeyboard(ctx, order, opened.page));
    } catch (error) {
      await replyMarketplaceError(ctx, error, { read: true });
    }
  });

  composer.use(buyAgainFeature(menu));

  composer.callbackQuery(ORDERS_STATS.pattern, async (ctx) => {
    await ctx.answerCallbackQuery();
    const client = await userClient(ctx);
    if (!client) return;
    try {
      const stats = await client.orderStats();
      await edit(
        ctx,
        ctx.tr("orders-stats", {
          total: countText(stats.totalOrders, ctx.lang),
          energy: volumeText(stats.energyDeliveredThisMonth, ctx.lang),
        }),
        new InlineKeyboard().text(ctx.tr("button-back"), ORDERS_PAGE.data(1)),
      );
    } catch (error) {
      await replyMarketplaceError(ctx, error, { read: true });
    }
  });

  return composer;
}
