import { Composer, InlineKeyboard } from "grammy";
import { findCredential, openApiKey } from "../../db/repos/credentials";
import { MarketplaceError, type MarketplaceClient } from "../../marketplace";
import type { BotContext } from "../context";
import { endFlow, type FlowRegistry } from "../flows";
import { resourceText, sunPerUnit, trxText, volumeText } from "../format";
import { truncate } from "../html";
import { replyMarketplaceError } from "../marketplace-access";
import { SecretBoxError } from "../../security/secret-box";
import { askNextField, draftFromArguments, orderLimits, validateDraft, validateField, type DraftField, type OrderDraft } from "./order-params";
import type { MenuActions } from "./start";

const FIELDS: DraftField[] = ["resource", "volume", "duration"];

/**
 * The key is optional for a quote: with one linked, bounds and durations come from the options
 * endpoint. A quote is public, so a key that is missing, broken or cannot be decrypted is not
 * mentioned here (the quote goes on without it, one reply); /buy and the other commands that
 * need the key tell the user to relink.
 */
async function optionalClient(ctx: BotContext): Promise<MarketplaceClient | null> {
  const credential = await findCredential(ctx.deps.db, ctx.account.telegram_id);
  if (!credential || credential.broken_at) return null;
  try {
    const apiKey = openApiKey(ctx.deps.box, credential);
    return ctx.deps.marketplace(() => apiKey);
  } catch (error) {
    if (!(error instanceof SecretBoxError)) throw error;
    ctx.deps.logger.warn({ userId: ctx.account.telegram_id, reason: error.reason }, "stored API key cannot be decrypted; quoting without it");
    return null;
  }
}

/** /quote [resource] [volume] [duration]: the public price, no key needed. "Buy this" carries the values to /buy. */
export function quoteFeature(flows: FlowRegistry, menu: MenuActions): Composer<BotContext> {
  const composer = new Composer<BotContext>();

  async function limitsOrReply(ctx: BotContext) {
    try {
      return await orderLimits(ctx, await optionalClient(ctx));
    } catch (error) {
      await replyMarketplaceError(ctx, error, { read: true });
      return null;
    }
  }

  async function proceed(ctx: BotContext, draft: OrderDraft): Promise<void> {
    const limits = await limitsOrReply(ctx);
    if (!limits) return;
    if (await askNextField(ctx, "quote", draft, limits, FIELDS)) return;
    await endFlow(ctx);
    const volume = BigInt(draft.volume!);
    let quote;
    try {
      quote = await ctx.deps.marketplace().quote({ resource: draft.resource!, duration: draft.duration!, volume: draft.volume! });
    } catch (error) {
      if (error instanceof MarketplaceError) return replyMarketplaceError(ctx, error, { read: false });
      throw error;
    }
    const text = [
      ctx.tr("quote-title"),
      ctx.tr("quote-line", { volume: volumeText(volume), resource: resourceText(ctx, draft.resource!), duration: draft.duration! }),
      ctx.tr("quote-price", { price: trxText(quote.priceTrx), perUnit: sunPerUnit(quote.priceTrx, volume) }),
      "",
      ctx.tr("quote-note"),
    ].join("\n");
    const keyboard = new InlineKeyboard().text(ctx.tr("button-buy-this"), `qb:${draft.resource![0]}:${draft.volume}:${draft.duration}`);
    await ctx.reply(text, { parse_mode: "HTML", reply_markup: keyboard });
  }

  async function start(ctx: BotContext, args: string): Promise<void> {
    const limits = await limitsOrReply(ctx);
    if (!limits) return;
    const { draft, rejected } = draftFromArguments(args, limits);
    if (rejected !== null) {
      await ctx.reply(ctx.tr("input-argument-bad", { value: truncate(rejected, 40), usage: "/quote energy 65k 1h" }), { parse_mode: "HTML" });
      return;
    }
    const valid = validateDraft(ctx, draft, limits, FIELDS);
    if (!valid.ok) {
      await ctx.reply(valid.message, { parse_mode: "HTML" });
      return;
    }
    await proceed(ctx, valid.draft);
  }

  composer.command("quote", (ctx) => start(ctx, ctx.match));
  menu.quote = (ctx) => start(ctx, "");

  flows.set("quote", {
    async answer(ctx, state, input) {
      const draft = state.data as OrderDraft;
      const limits = await limitsOrReply(ctx);
      if (!limits) return;
      const check = validateField(ctx, state.step as DraftField, input, draft, limits);
      if (!check.ok) {
        await ctx.reply(check.message, { parse_mode: "HTML" });
        return;
      }
      await proceed(ctx, { ...draft, [state.step]: check.value });
    },
  });

  return composer;
}
