import type { Composer } from "grammy";
import { FlatComposer } from "#src/bot/middleware/flat-composer";
import type { BotContext, MenuActions } from "#src/bot/context";
import { BUY_AGAIN, RENEW, type CallbackKind } from "#src/chat/callback-data";
import { buttonValues, pressedButtonExists } from "#src/bot/pressed-button";
import { findBuyAgainTarget, type BuyAgainTarget } from "#src/db/repos/buy-again-refs";
import { accountCredential } from "#src/bot/prefetched";
import { connectButton, replyMarketplaceError, userClient } from "#src/bot/marketplace-access";
import { MarketplaceError, type Order } from "#src/marketplace/index";
import { checkTronAddress } from "#src/input/address";

/**
 * The one-line /buy arguments that repeat an order, from the marketplace's own record of it. Each
 * value is taken only in the shape /buy reads (a value of another shape is left out, so /buy asks
 * for it), and /buy checks them all against today's limits as it does a typed command.
 */
function repeatArguments(order: Pick<Order, "resource" | "volume" | "duration" | "targetAddress">): string {
  const resource = order.resource.toLowerCase();
  const parts = [
    resource === "energy" || resource === "bandwidth" ? resource : null,
    /^\d{1,15}$/.test(order.volume) ? order.volume : null,
    /^[A-Za-z0-9]{1,8}$/.test(order.duration) ? order.duration : null,
    checkTronAddress(order.targetAddress).ok ? order.targetAddress : null,
  ];
  return parts.filter((part) => part !== null).join(" ");
}

/**
 * The last 4 characters of the key linked now when it is the one the order was seen under; null
 * after telling the user plainly that it is not (none linked, another key, the same key linked
 * again). Nothing is ordered then.
 */
async function sameKeyLink(ctx: BotContext, target: BuyAgainTarget): Promise<string | null> {
  const credential = await accountCredential(ctx);
  if (!credential) {
    await ctx.reply(ctx.tr("buy-again-no-key"), { parse_mode: "HTML", reply_markup: connectButton(ctx) });
    return null;
  }
  if (Number(credential.linked_at) === target.linkedAt) return credential.last4;
  if (credential.last4 === target.last4)
    await ctx.reply(ctx.tr("buy-again-relinked", { now: credential.last4 }), { parse_mode: "HTML" });
  else
    await ctx.reply(ctx.tr("buy-again-other-key", { then: target.last4, now: credential.last4 }), {
      parse_mode: "HTML",
    });
  return null;
}

/**
 * Buy again, under a filled or failed alert and on an order's card in /orders, and Renew, under a
 * rental's "ends" alert: the order is read again from the marketplace with the key linked now, and
 * its values open /buy's confirmation card at today's price with a new Idempotency-Key (and the
 * spend guard's checks). Confirm alone places the order.
 */
export function buyAgainFeature(menu: MenuActions): Composer<BotContext> {
  const composer = new FlatComposer<BotContext>();
  composer.callbackQuery(BUY_AGAIN.pattern, (ctx) => repeatOrder(ctx, menu, BUY_AGAIN));
  composer.callbackQuery(RENEW.pattern, (ctx) => repeatOrder(ctx, menu, RENEW));
  return composer;
}

/** A press of Buy again or Renew (`kind`): the order behind its reference, repeated through /buy. */
async function repeatOrder(ctx: BotContext, menu: MenuActions, kind: CallbackKind<string>): Promise<void> {
  if (!pressedButtonExists(ctx)) {
    await ctx.answerCallbackQuery({ text: ctx.tr("button-expired") });
    return;
  }
  const target = await findBuyAgainTarget(ctx.deps.db, ctx.account.telegram_id, buttonValues(ctx, kind));
  const buy = menu.find("buy");
  if (!target || !buy) {
    // Forgetting the key (/disconnect) forgets the references too: say why rather than "no longer valid".
    const keyGone = !(await accountCredential(ctx));
    await ctx.answerCallbackQuery(keyGone ? undefined : { text: ctx.tr("button-expired") });
    if (keyGone) await ctx.reply(ctx.tr("buy-again-no-key"), { parse_mode: "HTML", reply_markup: connectButton(ctx) });
    return;
  }
  await ctx.answerCallbackQuery();
  const last4 = await sameKeyLink(ctx, target);
  if (last4 === null) return;
  const client = await userClient(ctx);
  if (!client) return;
  let order: Order;
  try {
    order = await client.getOrder(target.orderId);
  } catch (error) {
    if (error instanceof MarketplaceError && error.kind === "not_found") {
      await ctx.reply(ctx.tr("buy-again-not-found", { now: last4 }), { parse_mode: "HTML" });
    } else {
      await replyMarketplaceError(ctx, error, { read: true });
    }
    return;
  }
  await buy(ctx, repeatArguments(order));
}
