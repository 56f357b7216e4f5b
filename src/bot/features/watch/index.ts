import type { Composer, Context } from "grammy";
import { FlatComposer } from "#src/bot/middleware/flat-composer";
import { WATCH_BUY } from "#src/chat/callback-data";
import {
  createWatch,
  findSameWatch,
  findWatch,
  listWatches,
  MAX_WATCHES_PER_USER,
  setWatchThreshold,
} from "#src/db/repos/watches";
import { splitArguments } from "#src/input/arguments";
import { parseTrxLimit } from "#src/input/trx-limit";
import { RESOURCES } from "#src/input/volume";
import { MarketplaceError } from "#src/marketplace/index";
import { sunToTrx, trxToSun } from "#src/marketplace/money";
import { shortId } from "#src/security/secret-box";
import type { BotContext } from "#src/bot/context";
import { endFlow } from "#src/bot/flows";
import { accountCredential } from "#src/bot/prefetched";
import { enterFlow } from "#src/bot/guided/install";
import { answer, markAsked, sendQuestion, type AnswerButton, type Guided } from "#src/bot/guided/steps";
import { trxText } from "#src/chat/format";
import { replyMarketplaceError } from "#src/bot/marketplace-access";
import { badAddressArgument } from "../addresses";
import { draftFromCommand, missingOrderField, type DraftField, type OrderLimits } from "../order-params";
import { collectOrder, firstOrderQuestion, startOrderFlow } from "../order-params/guided";
import { quoteLimits } from "../quote";
import type { MenuActions } from "#src/bot/context";
import { askWatchLink, openedWatchLink } from "../deep-links";
import { splitWatchArguments, type WatchDraft } from "./parse";
import type { WatchMenus } from "./menu";

export { watchMenus, type WatchMenus } from "./menu";

const ORDER_FIELDS: DraftField[] = ["resource", "volume", "duration"];
/** The address is optional: with one, Buy now goes straight to the confirmation card. */
const ONE_LINE_FIELDS: DraftField[] = ["resource", "volume", "duration", "address"];
const USAGE = "/watch energy 65k 1h 2.5";

function everyDuration(limits: OrderLimits): string[] {
  return [...new Set(RESOURCES.flatMap((resource) => limits.durations(resource)))];
}

/** The TRX limit checked, as a normalised decimal string, or the explanation. */
function readLimit(ctx: BotContext, input: string): { ok: true; value: string } | { ok: false; message: string } {
  // Russian writes decimals with a comma, as the price buttons show them in that language.
  const parsed = parseTrxLimit(input, { decimalComma: ctx.lang === "ru" });
  return parsed.ok
    ? { ok: true, value: sunToTrx(parsed.sun) }
    : { ok: false, message: ctx.tr(`input-watch-price-${parsed.reason}`) };
}

/**
 * Saves a complete watch (or updates the user's watch on the same target and address) and shows
 * its card with the price now. The price comes from the public quote, so no key is needed; a
 * quote the marketplace refuses (a volume out of bounds) is explained and nothing is saved.
 */
async function saveWatch(ctx: BotContext, draft: WatchDraft, menus: WatchMenus): Promise<void> {
  const target = { resource: draft.resource!, volume: draft.volume!, duration: draft.duration! };
  const thresholdSun = trxToSun(draft.maxTrx!);
  let priceSun: bigint;
  try {
    priceSun = trxToSun((await ctx.deps.marketplace().quote(target)).priceTrx);
  } catch (error) {
    if (error instanceof MarketplaceError) return replyMarketplaceError(ctx, error, { read: false });
    throw error;
  }
  const telegramId = ctx.account.telegram_id;
  const now = ctx.deps.now();
  const address = draft.address ?? null;
  const same = await findSameWatch(ctx.deps.db, telegramId, target, address);
  let id: string;
  if (same) {
    id = same.id;
    await setWatchThreshold(ctx.deps.db, telegramId, id, thresholdSun, priceSun, now);
  } else {
    id = shortId();
    if (
      !(await createWatch(
        ctx.deps.db,
        { id, telegramId, ...target, address, thresholdSun, lastPriceSun: priceSun },
        now,
      ))
    ) {
      await ctx.reply(ctx.tr("watch-limit", { max: String(MAX_WATCHES_PER_USER) }), { parse_mode: "HTML" });
      return;
    }
  }
  ctx.deps.logger.info({ userId: telegramId, watch: id, ...target, updated: same !== null }, "price watch saved");
  // With a key the watch compares the user's own order total (push/watch-own-price.ts), else the public price.
  const own = (await accountCredential(ctx))?.broken_at === null;
  const notes = [ctx.tr(same ? "watch-updated" : own ? "watch-created-own" : "watch-created")];
  if (priceSun <= thresholdSun && !own) notes.push(ctx.tr("watch-already-below"));
  const { text, keyboard } = menus.cardView(ctx, (await findWatch(ctx.deps.db, telegramId, id))!, notes.join("\n"));
  await ctx.reply(text, { parse_mode: "HTML", reply_markup: keyboard });
}

/** Asks for the TRX limit, showing the price now and a few limits below it as buttons (inside `external`). */
async function askLimit(ctx: BotContext, draft: WatchDraft) {
  let priceTrx: string;
  try {
    priceTrx = (
      await ctx.deps
        .marketplace()
        .quote({ resource: draft.resource!, volume: draft.volume!, duration: draft.duration! })
    ).priceTrx;
  } catch (error) {
    await replyMarketplaceError(ctx, error, { read: false });
    return null;
  }
  const priceSun = trxToSun(priceTrx);
  const buttons: AnswerButton[] = [];
  for (const percent of [95n, 90n, 80n]) {
    // Whole thousandths of a TRX: short buttons, and a limit a person would type.
    const limitSun = ((priceSun * percent) / 100n / 1000n) * 1000n;
    if (limitSun > 0n && !buttons.some((button) => button.value === sunToTrx(limitSun)))
      buttons.push({ label: `≤ ${trxText(sunToTrx(limitSun), ctx.lang)}`, value: sunToTrx(limitSun) });
  }
  const asked = markAsked(ctx, "watch", "price");
  await sendQuestion(
    ctx,
    asked,
    [ctx.tr("ask-watch-price", { price: trxText(priceTrx, ctx.lang) }), "", ctx.tr("ask-cancel-hint")].join("\n"),
    [buttons],
  );
  return asked;
}

/** /watch, guided: the order fields as /quote asks them, then the TRX limit, then the card. */
export function watchConversation(menus: WatchMenus) {
  return async function watch(conversation: Guided, ctx: Context, start: WatchDraft, asked?: unknown): Promise<void> {
    const question = firstOrderQuestion(asked);
    const draft: WatchDraft = {
      ...(await collectOrder(
        conversation,
        "watch",
        start,
        ORDER_FIELDS,
        quoteLimits,
        question && { entering: ctx, question },
      )),
      ...(start.maxTrx ? { maxTrx: start.maxTrx } : {}),
    };
    if (draft.maxTrx === undefined) {
      const asked = await conversation.external((ctx) => askLimit(ctx, draft));
      if (asked === null) return conversation.halt();
      draft.maxTrx = await answer(conversation, "watch", asked, async (ctx, input) => readLimit(ctx, input));
    }
    await conversation.external((ctx) => saveWatch(ctx, draft, menus));
  };
}

/**
 * /watch [resource] [volume] [duration] [max TRX] [address]: alert when that rent costs at most
 * the limit (public quote, no key needed); guided when something is missing. /watches lists them
 * on the menus (installed by the bot before the features).
 */
export function watchFeature(menu: MenuActions, menus: WatchMenus): Composer<BotContext> {
  const composer = new FlatComposer<BotContext>();

  async function start(ctx: BotContext, args: string): Promise<void> {
    const badAddress = badAddressArgument(ctx, splitArguments(args));
    if (badAddress) {
      await ctx.reply(badAddress, { parse_mode: "HTML" });
      return;
    }
    const limits = await quoteLimits(ctx);
    if (!limits) return;
    const { orderText, price } = splitWatchArguments(args, everyDuration(limits));
    const read = await draftFromCommand(ctx, orderText, limits, ONE_LINE_FIELDS, USAGE);
    if (!read) return;
    const watch: WatchDraft = { ...read.draft };
    if (price !== null) {
      const limit = readLimit(ctx, price);
      if (!limit.ok) {
        await ctx.reply(limit.message, { parse_mode: "HTML" });
        return;
      }
      watch.maxTrx = limit.value;
    }
    // The first question is asked before the flow is entered when it is an order field; the limit's, inside it.
    if (
      missingOrderField(ctx, watch, limits, ORDER_FIELDS) !== null &&
      (await startOrderFlow(ctx, "watch", watch, limits, ORDER_FIELDS, read.problem))
    )
      return;
    if (watch.maxTrx === undefined) return enterFlow(ctx, "watch", watch);
    await endFlow(ctx);
    // A watch_ link may be anyone's (with their address): asked about first; its Confirm runs /watch again.
    if (openedWatchLink(ctx))
      return askWatchLink(ctx, {
        resource: watch.resource!,
        volume: watch.volume!,
        duration: watch.duration!,
        maxTrx: watch.maxTrx,
        address: watch.address,
      });
    await saveWatch(ctx, watch, menus);
  }

  async function showList(ctx: BotContext): Promise<void> {
    await endFlow(ctx);
    const { text, keyboard } = menus.listView(ctx, await listWatches(ctx.deps.db, ctx.account.telegram_id));
    await ctx.reply(text, { parse_mode: "HTML", reply_markup: keyboard });
  }

  composer.command("watch", (ctx) => start(ctx, ctx.match));
  composer.command("watches", showList);
  menu.register("watch", (ctx, args = "") => start(ctx, args));
  menu.register("watches", showList);

  // Buy now on a price alert: /buy with the watch's values, so the card shows a fresh preview and
  // Confirm is the only way money moves. The alert's price is never used.
  composer.callbackQuery(WATCH_BUY.pattern, async (ctx) => {
    const watch = await findWatch(ctx.deps.db, ctx.account.telegram_id, WATCH_BUY.parse(ctx.callbackQuery.data)!);
    const buy = menu.find("buy");
    if (!watch || !buy) {
      await ctx.answerCallbackQuery({ text: ctx.tr("watch-gone") });
      return;
    }
    await ctx.answerCallbackQuery();
    await buy(ctx, [watch.resource, watch.volume, watch.duration, watch.address].filter(Boolean).join(" "));
  });

  return composer;
}
