import type { Api } from "grammy";
import type { BotCommand } from "grammy/types";
import type { Kysely } from "kysely";
import type { Database } from "#src/db/schema";
import type { Logger } from "#src/logger";
import { COMMANDS } from "./features/start";
import { translatorFor, type Language, type LocaleBundles } from "#src/chat/i18n";
import { setMenuLanguage } from "#src/db/repos/menu-language";

type Translations = Pick<LocaleBundles, "t">;

/** Every command with its one-line description in `language` (Telegram allows 256 characters). */
export function commandList(i18n: Translations, language: Language): BotCommand[] {
  const tr = translatorFor(i18n, language);
  return COMMANDS.map((command) => ({ command, description: tr(`command-${command}`).slice(0, 256) }));
}

/**
 * Gives one private chat the command menu in the language its user chose in /settings. The menus
 * set per language_code follow the Telegram app's language; a menu for the chat's own scope
 * comes first for that chat whatever the app's language, so the menu agrees with the replies.
 * A failure is logged, never fatal: the menu is a convenience.
 */
export async function showCommandMenuIn(api: Api, i18n: Translations, logger: Logger, chatId: number, language: Language): Promise<boolean> {
  try {
    await api.setMyCommands(commandList(i18n, language), { scope: { type: "chat", chat_id: chatId } });
    return true;
  } catch (error) {
    logger.warn({ err: error, userId: chatId, language }, "setMyCommands for a chat failed; its command menu stays in the app's language");
    return false;
  }
}

export interface MenuDeps {
  db: Kysely<Database>;
  i18n: Translations;
  logger: Logger;
}

/** Chats whose menu failed to be set in this process: not tried again on every update. */
const failedChats = new Set<number>();
const FAILED_REMEMBERED = 10_000;

/**
 * Makes a private chat's command menu follow the language its user chose, once: right after the
 * choice in /settings, and for a user who chose before the menu was set per chat, at their next
 * update. The language the menu was set in is recorded on the user, so it is set again only when
 * the choice changes. A failure is tried again after a restart, not on every update.
 */
export async function followChosenLanguage(api: Api, deps: MenuDeps, user: { telegram_id: number; chat_id: number; language: string | null; menu_language: string | null }, language: Language): Promise<void> {
  if (user.menu_language === language || failedChats.has(user.chat_id)) return;
  if (!(await showCommandMenuIn(api, deps.i18n, deps.logger, user.chat_id, language))) {
    failedChats.add(user.chat_id);
    if (failedChats.size > FAILED_REMEMBERED) failedChats.delete(failedChats.values().next().value!);
    return;
  }
  await setMenuLanguage(deps.db, user.telegram_id, language);
}
