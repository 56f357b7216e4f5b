import type { ConversationControls } from "@grammyjs/conversations";
import type { Context } from "grammy";
import type { Kysely } from "kysely";
import type { Config } from "#src/config";
import type { Database } from "#src/db/schema";
import type { WriteBatcher } from "#src/db/write-batcher";
import type { User } from "#src/db/repos/users";
import type { Logger } from "#src/logger";
import type { MarketplaceClient } from "#src/marketplace/index";
import type { Metrics } from "#src/metrics";
import type { SecretBox } from "#src/security/secret-box";
import type { Language, LocaleBundles, Translate } from "#src/chat/i18n";
import type { OptionsCache } from "./options-cache";

/** Everything the bot needs from outside, built once in the composition root. */
export interface BotDeps {
  config: Config;
  db: Kysely<Database>;
  /** Small writes of concurrent updates committed together (see WriteBatcher). */
  writes: WriteBatcher;
  logger: Logger;
  box: SecretBox;
  metrics: Metrics;
  now: () => number;
  /** True when the marketplace is the embedded sandbox (no real TRX). */
  sandbox: boolean;
  /** A marketplace client; with a key getter for a user's calls, without for public ones. */
  marketplace: (apiKey?: () => string) => MarketplaceClient;
  options: OptionsCache;
  /** The Fluent translations (locales/*.ftl). */
  i18n: LocaleBundles;
  /** Called after an order was placed through the bot, so it is followed until it settles. */
  followOrder: (telegramId: number, orderId: string) => Promise<void>;
  /** Called after a key was linked, and when a user comes back after blocking the bot: record existing notifications as seen so they are not replayed. */
  onLinked: (telegramId: number) => Promise<void>;
  /** Registers a user's secret (a personal webhook token) with the log scrubber. */
  rememberSecret: (value: string) => void;
  /**
   * Called after the bot changed a rule without drawing a card of it (Pause or Resume under a team
   * group's alert): the owner's open cards of the rule are redrawn (src/miniapp/open-cards.ts).
   */
  ruleChanged?: (telegramId: number, ruleId: string) => void;
  /** This server's own origin once it listens (null before): the playground's webhook URLs point there without PUBLIC_URL. */
  ownUrl?: () => string | null;
}

export interface BotContextExtras {
  deps: BotDeps;
  /** The stored user (created on first contact). Absent only for updates without a sender. */
  account: User;
  lang: Language;
  /** Translates with every string variable HTML-escaped. */
  tr: Translate;
  /** Enters, leaves and lists guided flows (@grammyjs/conversations). */
  conversation: ConversationControls;
  /** The step a guided flow asked during this update ("buy/address"), stored beside its state. */
  flowStep?: string;
  /** True once this update left a guided flow (a command does before it runs), so /cancel can say so. */
  flowLeft?: boolean;
  /** The guided flow whose stored state an update of the bot made unreadable (see guided/storage). */
  outdatedFlow?: string;
}

export type BotContext = Context & BotContextExtras;

/** The areas a main-menu button or a deep link opens, each registered by its own feature. */
export const MENU_AREAS = [
  "quote",
  "buy",
  "watch",
  "watches",
  "autobuy",
  "autobuys",
  "orders",
  "rules",
  "wallet",
  "topup",
  "transactions",
  "stats",
  "notifications",
  "settings",
  "webhook",
  "connect",
] as const;
export type MenuArea = (typeof MENU_AREAS)[number];
/** Opens an area; `args` are the command's one-line arguments (a deep link carries them; the menu gives none). */
export type MenuAction = (ctx: BotContext, args?: string) => Promise<void>;

/** Where features register what their main-menu button (and a deep link) opens; the start feature looks it up. */
export class MenuActions {
  private readonly actions = new Map<string, MenuAction>();

  register(area: MenuArea, action: MenuAction): void {
    this.actions.set(area, action);
  }

  /** The action of `area` (any string, as callback data and links carry it), or undefined. */
  find(area: string): MenuAction | undefined {
    return this.actions.get(area);
  }
}
