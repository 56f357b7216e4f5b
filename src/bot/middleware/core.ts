import type { MiddlewareFn } from "grammy";
import { findUserWithState, setTelegramLanguage, upsertUser } from "#src/db/repos/users";
import type { BotContext, BotDeps } from "../context";
import { pickLanguage, translatorFor } from "#src/chat/i18n";
import { followChosenLanguage, showMenuButtonIn } from "../command-menu";
import { rememberPrefetched } from "../prefetched";
import { FLOOD_WINDOW_MS, isDashboardPress, windowCountedWithRead } from "./rate-limit";

/** Puts the deps on the context and counts the update. */
export function provideDeps(deps: BotDeps): MiddlewareFn<BotContext> {
  return async (ctx, next) => {
    ctx.deps = deps;
    const type = Object.keys(ctx.update).find((key) => key !== "update_id") ?? "unknown";
    const started = performance.now();
    try {
      await next();
      deps.metrics.updates.inc({ type, outcome: "ok" });
    } catch (error) {
      deps.metrics.updates.inc({ type, outcome: "error" });
      throw error;
    } finally {
      deps.metrics.updateSeconds.observe({ type }, (performance.now() - started) / 1000);
    }
  };
}

/** A command as Telegram marks it: the slash, 1 to 32 of [A-Za-z0-9_], then @bot, a space or the end. */
const COMMAND_NAME = /^\/[A-Za-z0-9_]{1,32}(?=@|\s|$)/;

/**
 * Commands in any case: a phone keyboard capitalises the first letter ("/Connect KEY"), and every
 * command of the bot is lower case, so the command's name is read in lower case before anything
 * looks at it. Above all, "/Connect KEY" is then deleted like "/connect KEY". Only the name
 * changes (ASCII, so no offset moves); its arguments stay as typed.
 */
export function commandsAnyCase(): MiddlewareFn<BotContext> {
  return (ctx, next) => {
    const message = ctx.update.message ?? ctx.update.edited_message;
    const text = message?.text;
    if (message && text?.startsWith("/")) {
      const name = COMMAND_NAME.exec(text)?.[0];
      if (name && name !== name.toLowerCase()) message.text = name.toLowerCase() + text.slice(name.length);
    }
    return next();
  };
}

const GROUP_REPLY_EVERY_MS = 3_600_000;

/**
 * Private chats only. In a group the bot says once (per chat, per hour) that it works in private
 * chats, answers any button press, and does nothing else.
 */
export function privateChatsOnly(): MiddlewareFn<BotContext> {
  /**
   * When each group was last told, oldest first (an entry is moved to the end when renewed), so
   * the ones past the hour are forgotten from the front and the map stays small.
   */
  const groupsTold = new Map<number, number>();
  return async (ctx, next) => {
    const chat = ctx.chat;
    if (!chat || chat.type === "private") return next();
    if (ctx.callbackQuery) {
      await ctx.answerCallbackQuery();
      return;
    }
    if (chat.type === "channel" || !ctx.message) return;
    const now = ctx.deps.now();
    const last = groupsTold.get(chat.id);
    if (last !== undefined && now - last < GROUP_REPLY_EVERY_MS) return;
    groupsTold.delete(chat.id);
    groupsTold.set(chat.id, now);
    for (const [chatId, at] of groupsTold) {
      if (now - at < GROUP_REPLY_EVERY_MS) break;
      groupsTold.delete(chatId);
    }
    const lang = pickLanguage(ctx.from?.language_code);
    await ctx.reply(translatorFor(ctx.deps.i18n, lang)("private-only"), { parse_mode: "HTML" });
  };
}

/** Loads (or creates) the user row and the language: /settings choice first, then Telegram's. */
export function loadAccount(): MiddlewareFn<BotContext> {
  return async (ctx, next) => {
    // Inline queries have no chat and need no account (their numbers follow the asker's Telegram language).
    if (!ctx.from || !ctx.chat) return next();
    // Read first: most updates come from known, active users, and a write (an fsync) per update is
    // costly. The same read brings the key, the chat's flow and the key step the update reads next.
    const { id } = ctx.from;
    const chatId = ctx.chat.id;
    // On PostgreSQL the same statement counts the update in the user's flood-limit window (rateLimit), unless the dashboard made it.
    const now = ctx.deps.now();
    const state = await findUserWithState(
      ctx.deps.db,
      id,
      chatId,
      windowCountedWithRead(ctx.deps.db) && !isDashboardPress(ctx) ? { now, windowMs: FLOOD_WINDOW_MS } : undefined,
    );
    const known = state.user;
    rememberPrefetched(ctx, state);
    const account =
      known && known.active === 1 && known.chat_id === chatId
        ? known
        : await ctx.deps.writes.run((db) => upsertUser(db, id, chatId, now));
    // Back after blocking the bot: what the marketplace raised meanwhile is not replayed as a burst
    // of stale alerts (those queued at the block were dropped too); it counts as seen, as at linking.
    if (known && known.active !== 1 && state.credential) await ctx.deps.onLinked(id);
    ctx.account = account;
    ctx.lang = pickLanguage(account.language ?? ctx.from.language_code);
    // Alerts have no update to read Telegram's language from: the one picked is kept for them
    // while the user has chosen none (a write only when it changes; English is the default).
    if (account.language === null && ctx.lang !== (account.telegram_language ?? "en")) {
      const picked = ctx.lang;
      await ctx.deps.writes.run((db) => setTelegramLanguage(db, id, picked));
      account.telegram_language = picked;
      // The menu button (English by default; Telegram has none per app language) follows too.
      if (ctx.chat.type === "private") await showMenuButtonIn(ctx.api, ctx.deps, chatId, picked);
    }
    ctx.tr = translatorFor(ctx.deps.i18n, ctx.lang);
    // A language chosen before the chat's command menu followed it: set the menu now, once.
    if (account.language !== null && account.menu_language !== account.language && ctx.chat.type === "private")
      await followChosenLanguage(ctx.api, ctx.deps, account, ctx.lang);
    return next();
  };
}
