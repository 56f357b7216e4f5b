import type { Api } from "grammy";
import type { BotCommand } from "grammy/types";
import type { Logger } from "../logger";
import { COMMANDS } from "./features/start";
import { translatorFor, type Language } from "../chat/i18n";

type Translations = { t(locale: string, key: string, vars?: Record<string, string>): string };

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
export async function showCommandMenuIn(api: Api, i18n: Translations, logger: Logger, chatId: number, language: Language): Promise<void> {
  try {
    await api.setMyCommands(commandList(i18n, language), { scope: { type: "chat", chat_id: chatId } });
  } catch (error) {
    logger.warn({ err: error, userId: chatId, language }, "setMyCommands for a chat failed; its command menu stays in the app's language");
  }
}
