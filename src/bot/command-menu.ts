import type { Api } from "grammy";
import type { BotCommand } from "grammy/types";
import type { Kysely } from "kysely";
import type { Database } from "#src/db/schema";
import type { Logger } from "#src/logger";
import { COMMANDS } from "./features/start";
import { LANGUAGES, translatorFor, type Language, type LocaleBundles } from "#src/chat/i18n";
import { setMenuLanguage } from "#src/db/repos/menu-language";
import type { Config } from "#src/config";
import { dashboardUrl } from "./features/dashboard";

type Translations = Pick<LocaleBundles, "t">;

/** Every command with its one-line description in `language` (Telegram allows 256 characters). */
export function commandList(i18n: Translations, language: Language): BotCommand[] {
  const tr = translatorFor(i18n, language);
  return COMMANDS.map((command) => ({ command, description: tr(`command-${command}`).slice(0, 256) }));
}

/** The command menu of group chats: /group alone, saying whose alerts come there. */
export function groupCommandList(i18n: Translations, language: Language): BotCommand[] {
  return [{ command: "group", description: translatorFor(i18n, language)("command-group-here").slice(0, 256) }];
}

/**
 * Gives one private chat the command menu in the language its user chose in /settings. The menus
 * set per language_code follow the Telegram app's language; a menu for the chat's own scope
 * comes first for that chat whatever the app's language, so the menu agrees with the replies.
 * A failure is logged, never fatal: the menu is a convenience.
 */
export async function showCommandMenuIn(
  api: Api,
  i18n: Translations,
  logger: Logger,
  chatId: number,
  language: Language,
): Promise<boolean> {
  try {
    await api.setMyCommands(commandList(i18n, language), { scope: { type: "chat", chat_id: chatId } });
    return true;
  } catch (error) {
    logger.warn(
      { err: error, userId: chatId, language },
      "setMyCommands for a chat failed; its command menu stays in the app's language",
    );
    return false;
  }
}

export interface MenuDeps {
  db: Kysely<Database>;
  i18n: Translations;
  logger: Logger;
  config: Pick<Config, "PUBLIC_URL">;
}

/**
 * Gives one private chat the menu button (opening the dashboard) in `language`: Telegram has no
 * menu button per app language, only the default (English) and one per chat. Nothing without an
 * https PUBLIC_URL; a failure is logged, never fatal.
 */
export async function showMenuButtonIn(
  api: Api,
  deps: Omit<MenuDeps, "db">,
  chatId: number,
  language: Language,
): Promise<void> {
  const url = dashboardUrl(deps.config);
  if (!url) return;
  try {
    await api.setChatMenuButton({
      chat_id: chatId,
      menu_button: { type: "web_app", text: translatorFor(deps.i18n, language)("menu-button"), web_app: { url } },
    });
  } catch (error) {
    deps.logger.warn(
      { err: error, userId: chatId, language },
      "setChatMenuButton for a chat failed; its menu button stays in English",
    );
  }
}

/** Chats whose menu failed to be set in this process: not tried again on every update. */
const failedChats = new Set<number>();
const FAILED_REMEMBERED = 10_000;

/**
 * Makes a private chat's command menu follow the language its user chose, once: right after the
 * choice in /settings, and for a user who chose before the menu was set per chat, at their next
 * update. The menu button follows too. The language the menu was set in is recorded on the user, so it is set again only when
 * the choice changes. A failure is tried again after a restart, not on every update.
 */
export async function followChosenLanguage(
  api: Api,
  deps: MenuDeps,
  user: { telegram_id: number; chat_id: number; language: string | null; menu_language: string | null },
  language: Language,
): Promise<void> {
  if (user.menu_language === language || failedChats.has(user.chat_id)) return;
  if (!(await showCommandMenuIn(api, deps.i18n, deps.logger, user.chat_id, language))) {
    failedChats.add(user.chat_id);
    if (failedChats.size > FAILED_REMEMBERED) failedChats.delete(failedChats.values().next().value!);
    return;
  }
  await showMenuButtonIn(api, deps, user.chat_id, language);
  await setMenuLanguage(deps.db, user.telegram_id, language);
}

/**
 * Registers the command menu per language: every command in private chats, /group alone in group
 * chats (the only command answered there). A failure is logged, never fatal.
 */
export async function registerCommands(bot: { api: Api }, deps: Pick<MenuDeps, "i18n" | "logger">): Promise<void> {
  for (const language of LANGUAGES) {
    const commands = commandList(deps.i18n, language);
    const inGroups = groupCommandList(deps.i18n, language);
    const groups = { type: "all_group_chats" } as const;
    try {
      await bot.api.setMyCommands(commands, language === "en" ? {} : { language_code: language });
      await bot.api.setMyCommands(
        inGroups,
        language === "en" ? { scope: groups } : { scope: groups, language_code: language },
      );
      if (language === "en") {
        await bot.api.setMyCommands(commands, { language_code: "en" });
        await bot.api.setMyCommands(inGroups, { scope: groups, language_code: "en" });
      }
    } catch (error) {
      deps.logger.warn({ err: error, language }, "setMyCommands failed; the command menu may be out of date");
    }
  }
}
