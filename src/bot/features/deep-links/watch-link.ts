import { type Composer, InlineKeyboard } from "grammy";
import { FlatComposer } from "#src/bot/middleware/flat-composer";
import { WATCH_LINK_DROP, WATCH_LINK_SAVE } from "#src/chat/callback-data";
import { refFor, resolveRef } from "#src/db/repos/callback-refs";
import { durationText, trxText } from "#src/chat/format";
import { resourceAmount } from "#src/chat/market-words";
import { code } from "#src/chat/html";
import type { BotContext } from "#src/bot/context";
import { pressedButtonExists } from "#src/bot/pressed-button";
import type { MenuActions } from "#src/bot/context";
import { unfamiliarAddress } from "./link-address";

/** What the reference behind the question's buttons holds before the link's /watch arguments. */
const REF_PREFIX = "watch-link ";

/** A complete watch as /watch checked it: the rent, the TRX limit (decimal) and the address, if any. */
export interface LinkedWatch {
  resource: string;
  volume: string;
  duration: string;
  maxTrx: string;
  address?: string | null;
}

/**
 * /watch opened by a watch_ link (anyone can post one, with their own address) asks before it
 * saves: the watch's values, a note when the address is not one of the user's, and Confirm and
 * Cancel. Nothing is saved before Confirm, which runs /watch with the same values.
 */
export async function askWatchLink(ctx: BotContext, watch: LinkedWatch): Promise<void> {
  const { resource, volume, duration, maxTrx, address } = watch;
  const args = [resource, volume, duration, `${maxTrx}trx`, address].filter(Boolean).join(" ");
  const ref = await refFor(ctx.deps.db, ctx.account.telegram_id, REF_PREFIX + args, ctx.deps.now());
  const lines = [
    ctx.tr("watch-link-ask"),
    "",
    ctx.tr(
      "watch-target",
      { duration: durationText(duration, ctx.lang) },
      { amount: resourceAmount(ctx.tr, resource, volume, ctx.lang) },
    ),
  ];
  if (address) lines.push(ctx.tr("watch-address", {}, { value: code(address) }));
  lines.push(ctx.tr("watch-threshold", { threshold: trxText(maxTrx, ctx.lang) }));
  if (address && (await unfamiliarAddress(ctx, address))) lines.push("", ctx.tr("card-address-from-link"));
  lines.push("", ctx.tr("watch-link-hint"));
  const keyboard = new InlineKeyboard()
    .text(ctx.tr("button-confirm"), WATCH_LINK_SAVE.data(ref))
    .success()
    .text(ctx.tr("button-cancel"), WATCH_LINK_DROP.data(ref))
    .danger();
  await ctx.reply(lines.join("\n"), { parse_mode: "HTML", reply_markup: keyboard });
}

/** The link's /watch arguments behind a pressed button, or null (not this user's, gone, or a button no longer shown). */
async function pressedLink(ctx: BotContext, ref: string): Promise<string | null> {
  if (!pressedButtonExists(ctx)) return null;
  const value = await resolveRef(ctx.deps.db, ctx.account.telegram_id, ref);
  return value?.startsWith(REF_PREFIX) ? value.slice(REF_PREFIX.length) : null;
}

/** Confirm and Cancel under the question of a watch_ link. */
export function watchLinkFeature(menu: MenuActions): Composer<BotContext> {
  const composer = new FlatComposer<BotContext>();

  composer.callbackQuery(WATCH_LINK_SAVE.pattern, async (ctx) => {
    const args = await pressedLink(ctx, WATCH_LINK_SAVE.parse(ctx.callbackQuery.data)!);
    const watch = menu.find("watch");
    if (args === null || !watch) {
      await ctx.answerCallbackQuery({ text: ctx.tr("button-expired") });
      return;
    }
    await ctx.answerCallbackQuery();
    // The question's buttons go first, so it cannot be confirmed twice; then /watch saves it as typed.
    await ctx.editMessageReplyMarkup();
    await watch(ctx, args);
  });

  composer.callbackQuery(WATCH_LINK_DROP.pattern, async (ctx) => {
    if ((await pressedLink(ctx, WATCH_LINK_DROP.parse(ctx.callbackQuery.data)!)) === null) {
      await ctx.answerCallbackQuery({ text: ctx.tr("button-expired") });
      return;
    }
    await ctx.answerCallbackQuery();
    await ctx.editMessageText(ctx.tr("watch-link-cancelled"), { parse_mode: "HTML" });
  });

  return composer;
}
