import { Menu } from "@grammyjs/menu";
import type { MiddlewareFn } from "grammy";
import { MENU_DATA, MENU_IDS } from "#src/chat/callback-data";
import type { BotContext } from "./context";
import { pressedButtonExists } from "./pressed-button";

const MENU_PREFIXES = new Set<string>(Object.values(MENU_IDS));

/**
 * Data in a menu's shape that is malformed, or is not on the pressed message (made up, or from a
 * keyboard since replaced), gets "no longer valid" before any menu reads it: a menu trusts the
 * row, column and payload it is given.
 */
export function menuDataGuard(): MiddlewareFn<BotContext> {
  return async (ctx, next) => {
    const data = ctx.callbackQuery?.data;
    const slash = data?.indexOf("/") ?? -1;
    if (data === undefined || slash < 0 || !MENU_PREFIXES.has(data.slice(0, slash))) return next();
    if (MENU_DATA.parse(data) !== null && pressedButtonExists(ctx)) return next();
    await ctx.answerCallbackQuery({ text: ctx.tr("button-expired") });
  };
}

/**
 * The one menu the bot installs: every feature's menus registered under it, so one middleware
 * (and one API transformer per update) serves them all. It is never shown itself.
 */
export function menuRoot(menus: Array<Menu<BotContext>>): Menu<BotContext> {
  const root = new Menu<BotContext>("menus");
  root.register(menus);
  return root;
}
