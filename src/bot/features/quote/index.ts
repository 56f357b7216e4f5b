import { type Composer, type Context, InlineKeyboard } from "grammy";
import { FlatComposer } from "#src/bot/middleware/flat-composer";
import { QUOTE_BUY } from "#src/chat/callback-data";
import { openApiKey } from "#src/db/repos/credentials";
import { MarketplaceError, type MarketplaceClient } from "#src/marketplace/index";
import type { BotContext } from "#src/bot/context";
import { endFlow } from "#src/bot/flows";
import type { Guided } from "#src/bot/guided/steps";
import { durationText, sunPerUnit, trxText } from "#src/chat/format";
import { resourceAmount } from "#src/chat/market-words";
import { replyMarketplaceError } from "#src/bot/marketplace-access";
import { SecretBoxError } from "#src/security/secret-box";
import {
  draftFromCommand,
  missingOrderField,
  orderLimits,
  type DraftField,
  type OrderDraft,
  type OrderLimits,
} from "../order-params";
import { collectOrder, firstOrderQuestion, startOrderFlow } from "../order-params/guided";
import type { MenuActions } from "#src/bot/context";
import { shareLine } from "../deep-links";
import { accountCredential } from "#src/bot/prefetched";

const FIELDS: DraftField[] = ["resource", "volume", "duration"];

/**
 * The key is optional for a quote: with one linked, bounds and durations come from the options
 * endpoint. A quote is public, so a key that is missing, broken or cannot be decrypted is not
 * mentioned here (the quote goes on without it, one reply); /buy and the other commands that
 * need the key tell the user to relink.
 */
function optionalClient(ctx: BotContext): Promise<MarketplaceClient | null> {
  // Once per update: the command and the guided flow it enters both ask.
  let client = optionalClients.get(ctx);
  if (!client) optionalClients.set(ctx, (client = openOptionalClient(ctx)));
  return client;
}

const optionalClients = new WeakMap<BotContext, Promise<MarketplaceClient | null>>();

async function openOptionalClient(ctx: BotContext): Promise<MarketplaceClient | null> {
  const credential = await accountCredential(ctx);
  if (!credential || credential.broken_at) return null;
  try {
    const apiKey = openApiKey(ctx.deps.box, credential);
    return ctx.deps.marketplace(() => apiKey);
  } catch (error) {
    if (!(error instanceof SecretBoxError)) throw error;
    ctx.deps.logger.warn(
      { userId: ctx.account.telegram_id, reason: error.reason },
      "stored API key cannot be decrypted; quoting without it",
    );
    return null;
  }
}

/**
 * Bounds and durations for a quote: from the options with a usable key, the documented ones
 * without. The quote is public, so when the key's options cannot be read (a revoked key, the
 * endpoint down) the quote goes on with the documented ones, without mentioning the key.
 */
export async function quoteLimits(ctx: BotContext): Promise<OrderLimits | null> {
  try {
    return await orderLimits(ctx, await optionalClient(ctx));
  } catch (error) {
    if (error instanceof MarketplaceError) {
      ctx.deps.logger.info(
        { userId: ctx.account.telegram_id, kind: error.kind },
        "order options could not be read with the user's key; quoting with the documented durations",
      );
      return orderLimits(ctx, null);
    }
    await replyMarketplaceError(ctx, error, { read: true });
    return null;
  }
}

/** The price of a complete draft, with "Buy this" carrying the values to /buy. */
async function sendQuote(ctx: BotContext, draft: OrderDraft): Promise<void> {
  const volume = BigInt(draft.volume!);
  let quote;
  try {
    quote = await ctx.deps
      .marketplace()
      .quote({ resource: draft.resource!, duration: draft.duration!, volume: draft.volume! });
  } catch (error) {
    if (error instanceof MarketplaceError) return replyMarketplaceError(ctx, error, { read: false });
    throw error;
  }
  const text = [
    ctx.tr("quote-title"),
    ctx.tr(
      "quote-line",
      { duration: durationText(draft.duration!, ctx.lang) },
      { amount: resourceAmount(ctx.tr, draft.resource!, volume, ctx.lang) },
    ),
    ctx.tr("quote-price", {
      price: trxText(quote.priceTrx, ctx.lang),
      perUnit: sunPerUnit(quote.priceTrx, volume, ctx.lang),
    }),
    "",
    ctx.tr("quote-note"),
    shareLine(ctx, "quote", { resource: draft.resource!, volume: draft.volume!, duration: draft.duration! }),
  ].join("\n");
  const keyboard = new InlineKeyboard()
    .text(ctx.tr("button-buy-this"), QUOTE_BUY.data(draft.resource!, draft.volume!, draft.duration!))
    .success();
  await ctx.reply(text, { parse_mode: "HTML", reply_markup: keyboard });
}

/** /quote, guided: asks what the command did not give, then the price. */
export async function quoteConversation(
  conversation: Guided,
  ctx: Context,
  start: OrderDraft,
  asked?: unknown,
): Promise<void> {
  const question = firstOrderQuestion(asked);
  const draft = await collectOrder(
    conversation,
    "quote",
    start,
    FIELDS,
    quoteLimits,
    question && { entering: ctx, question },
  );
  await conversation.external((ctx) => sendQuote(ctx, draft));
}

/** /quote [resource] [volume] [duration]: the public price, no key needed; what is missing is asked in a guided flow. */
export function quoteFeature(menu: MenuActions): Composer<BotContext> {
  const composer = new FlatComposer<BotContext>();

  async function start(ctx: BotContext, args: string): Promise<void> {
    const limits = await quoteLimits(ctx);
    if (!limits) return;
    const read = await draftFromCommand(ctx, args, limits, FIELDS, "/quote energy 65k 1h");
    if (!read) return;
    const { draft, problem } = read;
    if (
      missingOrderField(ctx, draft, limits, FIELDS) !== null &&
      (await startOrderFlow(ctx, "quote", draft, limits, FIELDS, problem))
    )
      return;
    await endFlow(ctx);
    await sendQuote(ctx, draft);
  }

  composer.command("quote", (ctx) => start(ctx, ctx.match));
  menu.register("quote", (ctx, args = "") => start(ctx, args));

  return composer;
}
