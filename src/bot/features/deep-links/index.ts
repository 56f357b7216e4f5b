import type { BotContext } from "#src/bot/context";
import { endFlow } from "#src/bot/flows";
import {
  deepLinkUrl,
  parseStartPayload,
  shareUrl,
  startPayload,
  type LinkCommand,
  type LinkValues,
} from "#src/input/deep-link";
import type { MenuActions } from "#src/bot/context";
import { rememberLinkAddress, rememberWatchLink } from "./link-address";

export { addressFromStrangeLink, openedWatchLink } from "./link-address";
export { askWatchLink, watchLinkFeature } from "./watch-link";

/** A buy link's fourth field is its address. */
const BUY_ADDRESS_FIELD = 4;

/**
 * `/start <payload>` from a deep link: opens /buy, /quote or /watch with the payload's values as
 * one-line arguments, so it runs exactly what the typed command runs (the same validators, the
 * same card). A link's address may be anyone's: a buy card shows where its address came from
 * (see link-address), and /watch opened by a link asks before it saves the watch (watch-link).
 * Returns false after saying the link could not be read; the caller then shows the plain /start.
 */
export async function openStartLink(ctx: BotContext, payload: string, menu: MenuActions): Promise<boolean> {
  const parsed = parseStartPayload(payload);
  const action = parsed.ok ? menu.find(parsed.link.command) : undefined;
  if (!parsed.ok || !action) {
    ctx.deps.logger.info(
      { userId: ctx.account.telegram_id, reason: parsed.ok ? "command" : parsed.reason },
      "a start link could not be read; the plain /start follows",
    );
    await ctx.reply(ctx.tr("start-link-bad"), { parse_mode: "HTML" });
    return false;
  }
  await endFlow(ctx);
  const values = parsed.link.arguments.split(" ");
  // Someone else's link: /watch asks before it saves, a buy card says where its address came from.
  if (parsed.link.command === "watch") rememberWatchLink(ctx);
  if (parsed.link.command === "buy" && values.length >= BUY_ADDRESS_FIELD)
    rememberLinkAddress(ctx, values[BUY_ADDRESS_FIELD - 1]!);
  await action(ctx, parsed.link.arguments);
  return true;
}

/** The t.me link opening `command` with these values in this bot, or null when it cannot be written. */
export function botLink(ctx: BotContext, command: LinkCommand, values: LinkValues): string | null {
  const payload = startPayload(command, values);
  return payload ? deepLinkUrl(ctx.me.username, payload) : null;
}

/** A "Share" link (HTML) to Telegram's share page for such a link, or "" when there is none. */
export function shareLine(ctx: BotContext, command: LinkCommand, values: LinkValues): string {
  const link = botLink(ctx, command, values);
  return link
    ? ctx.tr(
        "share-line",
        {},
        {
          link: `<a href="${shareUrl(link).replace(/&/g, "&amp;").replace(/"/g, "&quot;")}">${ctx.tr("share-word")}</a>`,
        },
      )
    : "";
}
