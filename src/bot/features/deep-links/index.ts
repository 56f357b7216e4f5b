import type { BotContext } from "../../context";
import { endFlow } from "../../flows";
import { deepLinkUrl, parseStartPayload, shareUrl, startPayload, type LinkCommand, type LinkValues } from "../../../input/deep-link";
import type { MenuActions } from "../start";

/**
 * `/start <payload>` from a deep link: opens /buy, /quote or /watch with the payload's values as
 * one-line arguments, so it runs exactly what the typed command runs (the same validators, the
 * same card). Returns false after saying the link could not be read; the caller then shows the
 * plain /start.
 */
export async function openStartLink(ctx: BotContext, payload: string, menu: MenuActions): Promise<boolean> {
  const parsed = parseStartPayload(payload);
  const action = parsed.ok && Object.hasOwn(menu, parsed.link.command) ? menu[parsed.link.command] : undefined;
  if (!parsed.ok || !action) {
    ctx.deps.logger.info({ userId: ctx.account.telegram_id, reason: parsed.ok ? "command" : parsed.reason }, "a start link could not be read; the plain /start follows");
    await ctx.reply(ctx.tr("start-link-bad"), { parse_mode: "HTML" });
    return false;
  }
  await endFlow(ctx);
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
  return link ? ctx.tr("share-line", {}, { link: `<a href="${shareUrl(link).replace(/&/g, "&amp;").replace(/"/g, "&quot;")}">${ctx.tr("share-word")}</a>` }) : "";
}
