import type { Composer } from "grammy";
import { FlatComposer } from "#src/bot/middleware/flat-composer";
import type { InlineQueryResultArticle } from "grammy/types";
import { findUser } from "#src/db/repos/users";
import { splitArguments } from "#src/input/arguments";
import { deepLinkUrl, startPayload } from "#src/input/deep-link";
import { parseDuration, parseResource, parseVolume, type Resource, type VolumeParse } from "#src/input/volume";
import { MarketplaceError } from "#src/marketplace/index";
import type { BotContext } from "#src/bot/context";
import { durationText, sunPerUnit, trxText } from "#src/chat/format";
import { resourceAmount } from "#src/chat/market-words";
import { pickLanguage, translatorFor, type Language, type Translate } from "#src/chat/i18n";

/** Telegram may serve the same answer again for this long; the price cache below lives as long. */
export const INLINE_CACHE_SECONDS = 10;
/** Telegram drops an answer after 10 s: whatever is priced by then is answered, the rest is cancelled. */
const ANSWER_DEADLINE_MS = 7_000;
/** An inline answer shows (and quotes) a volume with at most this many significant digits. */
export const INLINE_VOLUME_DIGITS = 3;
/** The durations the public quote names (no key is used here, so the options are not read). */
const QUOTE_DURATIONS = ["15m", "1h", "1d"];
/** What an empty query shows: the common rents. */
const PRESETS: Array<{ resource: Resource; volume: bigint; duration: string }> = [
  { resource: "energy", volume: 65_000n, duration: "1h" },
  { resource: "energy", volume: 65_000n, duration: "1d" },
  { resource: "energy", volume: 131_000n, duration: "1h" },
  { resource: "energy", volume: 131_000n, duration: "1d" },
  { resource: "energy", volume: 65_000n, duration: "15m" },
  { resource: "bandwidth", volume: 5_000n, duration: "1d" },
];
const MAX_CACHED_PRICES = 500;

interface Rent {
  resource: Resource;
  volume: bigint;
  duration: string;
}

/** "65k 1h", "bandwidth 5k 1d", "65k" (every duration); null when the query is not one. Energy unless said. */
export function readInlineQuery(query: string): Rent[] | null {
  const tokens = splitArguments(query);
  if (tokens.length === 0) return PRESETS;
  let resource: Resource | null = null;
  let volume: bigint | null = null;
  let duration: string | null = null;
  for (const token of tokens) {
    const asResource: Resource | null = resource === null ? parseResource(token) : null;
    const asDuration: string | null = duration === null ? parseDuration(token, QUOTE_DURATIONS) : null;
    const asVolume: VolumeParse | null = volume === null ? parseVolume(token) : null;
    if (asResource) resource = asResource;
    else if (asDuration) duration = asDuration;
    else if (asVolume?.ok) volume = asVolume.volume;
    else return null;
  }
  if (volume === null) return null;
  const chosen = resource ?? "energy";
  const shown = inlineVolume(volume);
  return (duration ? [duration] : QUOTE_DURATIONS).map((each) => ({ resource: chosen, volume: shown, duration: each }));
}

/**
 * The volume an inline answer shows, quotes and links to: rounded up to INLINE_VOLUME_DIGITS
 * significant digits (65,001 → 65,100; never less than asked). Typing 65001, 65002, … then asks
 * the marketplace for one rent, and its cached price serves every one of them.
 */
export function inlineVolume(volume: bigint): bigint {
  let step = 1n;
  while (volume / step >= 10n ** BigInt(INLINE_VOLUME_DIGITS)) step *= 10n;
  return ((volume + step - 1n) / step) * step;
}

/**
 * Inline mode: `@<bot> 65k 1h` in any chat answers with the live public price per duration, each
 * result with a "Buy in the bot" link that opens /buy filled in. No key is ever used: the answer
 * may be shown to anyone in that chat. Prices are cached for INLINE_CACHE_SECONDS, as Telegram
 * caches the answer, by the volume the answer shows (see inlineVolume), so typing does not turn
 * into a burst of marketplace calls; quotes go through the process's bounded public path.
 *
 * Installed after the rate limit: an inline query counts against its sender's flood limit like a
 * message. It has no chat, so it needs no account row. A message a user sent by choosing one of
 * these results in the bot's own chat is left alone.
 */
export function inlineFeature(): Composer<BotContext> {
  const composer = new FlatComposer<BotContext>();
  const prices = new Map<string, { priceTrx: string; at: number }>();

  async function priceOf(ctx: BotContext, rent: Rent, signal: AbortSignal): Promise<string | null> {
    const key = `${rent.resource}:${rent.volume}:${rent.duration}`;
    const now = ctx.deps.now();
    const cached = prices.get(key);
    if (cached && now - cached.at < INLINE_CACHE_SECONDS * 1000) return cached.priceTrx;
    try {
      const { priceTrx } = await ctx.deps
        .marketplace()
        .quote({ resource: rent.resource, volume: rent.volume.toString(), duration: rent.duration }, { signal });
      prices.delete(key);
      prices.set(key, { priceTrx, at: now });
      if (prices.size > MAX_CACHED_PRICES) prices.delete(prices.keys().next().value!);
      return priceTrx;
    } catch (error) {
      if (signal.aborted) return null;
      if (!(error instanceof MarketplaceError)) throw error;
      ctx.deps.logger.info(
        { ...rent, volume: rent.volume.toString(), kind: error.kind, status: error.status },
        "inline quote failed; that result is left out",
      );
      return null;
    }
  }

  /** Each rent's price, or null; past ANSWER_DEADLINE_MS the quotes still running are cancelled. */
  async function priceAll(ctx: BotContext, rents: Rent[]): Promise<Array<string | null>> {
    const deadline = new AbortController();
    let pending = rents.length;
    const timer = setTimeout(() => {
      ctx.deps.metrics.publicWorkLimited.inc({ limit: "inline_deadline" });
      ctx.deps.logger.info(
        { userId: ctx.from?.id, unpriced: pending },
        "inline answer reached its deadline; its quotes still running were cancelled",
      );
      deadline.abort(new Error("the inline answer's deadline passed"));
    }, ANSWER_DEADLINE_MS);
    try {
      return await Promise.all(rents.map((rent) => priceOf(ctx, rent, deadline.signal).finally(() => (pending -= 1))));
    } finally {
      clearTimeout(timer);
    }
  }

  function result(
    ctx: BotContext,
    tr: Translate,
    language: Language,
    rent: Rent,
    priceTrx: string,
  ): InlineQueryResultArticle {
    const target = tr(
      "quote-line",
      { duration: durationText(rent.duration, language) },
      { amount: resourceAmount(tr, rent.resource, rent.volume, language) },
    );
    const payload = startPayload("buy", { resource: rent.resource, volume: rent.volume, duration: rent.duration });
    const price = trxText(priceTrx, language);
    const perUnit = sunPerUnit(priceTrx, rent.volume, language);
    const text = [
      tr("quote-title"),
      target,
      tr("quote-price", { price, perUnit }),
      "",
      tr("inline-note", { bot: `@${ctx.me.username}` }),
    ].join("\n");
    return {
      type: "article",
      id: `${rent.resource[0]}${rent.volume}-${rent.duration}`,
      title: tr("inline-title", { target, price }),
      description: tr("inline-description", { perUnit }),
      input_message_content: { message_text: text, parse_mode: "HTML", link_preview_options: { is_disabled: true } },
      ...(payload
        ? {
            reply_markup: {
              inline_keyboard: [[{ text: tr("button-buy-in-bot"), url: deepLinkUrl(ctx.me.username, payload) }]],
            },
          }
        : {}),
    };
  }

  composer.on("inline_query", async (ctx) => {
    const user = await findUser(ctx.deps.db, ctx.from.id);
    const language = pickLanguage(user?.language ?? ctx.from.language_code);
    const tr = translatorFor(ctx.deps.i18n, language);
    const rents = readInlineQuery(ctx.inlineQuery.query);
    const options = { cache_time: INLINE_CACHE_SECONDS, is_personal: true };
    if (!rents) {
      await ctx.answerInlineQuery([], { ...options, button: { text: tr("inline-help"), start_parameter: "quote" } });
      return;
    }
    const priced = await priceAll(ctx, rents);
    const results = rents.flatMap((rent, index) =>
      priced[index] ? [result(ctx, tr, language, rent, priced[index])] : [],
    );
    await ctx.answerInlineQuery(
      results,
      results.length > 0 ? options : { ...options, button: { text: tr("inline-unpriced"), start_parameter: "quote" } },
    );
  });

  composer.on("message", async (ctx, next) => {
    if (ctx.message.via_bot?.id === ctx.me.id) return;
    return next();
  });

  return composer;
}
