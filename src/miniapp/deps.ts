import type { Bot } from "grammy";
import type { Kysely } from "kysely";
import type { BotContext, BotDeps } from "#src/bot/context";
import type { Database } from "#src/db/schema";
import type { MiniAppBounds } from "./bounds";
import type { OpenRuleCards } from "./open-cards";

/** What the dashboard's routes need: the bot's own dependencies, the bot, its token and the open rule cards. */
export interface MiniAppDeps extends Pick<
  BotDeps,
  "config" | "logger" | "box" | "marketplace" | "i18n" | "now" | "metrics" | "writes"
> {
  db: Kysely<Database>;
  bot: Bot<BotContext>;
  /** The token init data is signed with (the playground's own when it runs). */
  botToken: string;
  cards: OpenRuleCards;
  bounds: MiniAppBounds;
}
