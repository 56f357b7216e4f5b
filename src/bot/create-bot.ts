import { autoRetry } from "@grammyjs/auto-retry";
import {
  DEFAULT_CHAT_PACE,
  GROUP_CHAT_PACE,
  databaseSendBudget,
  sharedBudgetTransformer,
  type ChatPace,
  type GlobalBudget,
  type SendBudgetStore,
} from "#src/scale/send-budget";
import type { ArrivalWindow } from "#src/scale/arrival-window";
import { sequentialize, type RunnerOptions } from "@grammyjs/runner";
import { countApiCalls, DEFAULT_NETWORK_RETRY, networkRetry } from "./api-transformers";
import { chatThrottler } from "./chat-throttle";
import { runAfterReply } from "./after-reply";
import { Bot } from "grammy";
import { MenuActions, type BotContext, type BotDeps } from "./context";
import { updateErrorHandler } from "./error-boundary";
import { guidedFlows } from "./guided/install";
import { translatorFor, LANGUAGES } from "#src/chat/i18n";
import { commandsAnyCase, loadAccount, privateChatsOnly, provideDeps } from "./middleware/core";
import { recordUpdateEffects } from "./update-effects";
import { FlatComposer } from "./middleware/flat-composer";
import { skipIdenticalEdits } from "./edit-in-place";
import { menuDataGuard, menuRoot } from "./menus";
import { rateLimit } from "./middleware/rate-limit";
import { DEFAULT_TYPING, typingWhileSlow, type TypingOptions } from "./middleware/typing";
import { DEFAULT_DOUBLE_TAP_MS, doubleTapGuard } from "./middleware/double-tap";
import { groupKeyGuard, secretPasteGuard } from "./middleware/secret-paste";
import { startFeature, unhandledFeature } from "./features/start";
import { connectFeature } from "./features/connect";
import { accountFeature } from "./features/account";
import { guardAmountConversation, settingsFeature, settingsMenu } from "./features/settings";
import { quoteConversation, quoteFeature } from "./features/quote";
import { buyConversation, buyFeature } from "./features/buy";
import { ordersFeature } from "./features/orders";
import { addressesFeature, addressLabelConversation } from "./features/addresses";
import { ruleConversation, rulesFeature, rulesMenus } from "./features/rules";
import { walletFeature } from "./features/wallet";
import { transactionsMenu } from "./features/wallet/transactions";
import { notificationsFeature } from "./features/notifications";
import { statsFeature } from "./features/stats";
import { dashboardFeature } from "./features/dashboard";
import { cardsFeature, type CardKinds } from "./features/cards";
import { groupChatsFeature, groupFeature } from "./features/group";
import { inlineFeature } from "./features/inline";
import { watchConversation, watchFeature, watchMenus } from "./features/watch";
import { watchLinkFeature } from "./features/deep-links";
import { autoBuyConversation, autoBuyFeature, autoBuyMenus } from "./features/autobuy";

export interface CreateBotOptions {
  token: string;
  apiRoot: string;
  /** Per-chat minimum spacing of outgoing calls in ms (Telegram tolerates short bursts in private chats). */
  perChatMinTimeMs?: number;
  /** Bot API timeouts (tests shorten them); see telegramTimeouts. */
  timeouts?: Partial<TelegramTimeouts>;
  /** Telegram's overall budget shared with alerts (default 28/s); the benchmark lifts it to measure handling alone. */
  overallBudget?: GlobalBudget;
  /** A private chat's pace, whose turns alerts take too (default: a burst of 3, then 1 per 1.1 s); null: none. */
  chatPace?: ChatPace | null;
  /** This process's messages on arrival at Telegram, shared with the pushed alerts. */
  sendWindow?: ArrivalWindow;
  /** Where Telegram's budgets live, shared with the pushed alerts; default: the database. */
  sendBudget?: SendBudgetStore;
  /** "typing…" while an update takes longer than afterMs (default 300 ms); null: never. */
  typing?: TypingOptions | null;
  /** A second press of a button within this many ms, or while the first is handled, goes no further (default 600); null: every press runs (tests that press at machine speed). */
  doubleTapMs?: number | null;
  /** Retries of a call Telegram answered with 5xx or 429 (default 3; tests of failure paths use 0). */
  serverErrorRetries?: number;
}

export interface TelegramTimeouts {
  /** How long one Bot API request may take before it is aborted. */
  requestSeconds: number;
  /** How long getUpdates asks Telegram to hold an idle poll. */
  longPollSeconds: number;
}

/**
 * The timeouts actually used: the long poll always ends well before the request timeout, so an
 * idle poll is answered (empty) instead of aborted. An aborted poll is a network error, and the
 * retries that followed it once left an idle bot deaf for longer and longer.
 */
export function telegramTimeouts(given: Partial<TelegramTimeouts> = {}): TelegramTimeouts {
  const requestSeconds = given.requestSeconds ?? 45;
  const margin = Math.min(10, Math.max(1, Math.floor(requestSeconds / 2)));
  return {
    requestSeconds,
    longPollSeconds: Math.max(0, Math.min(given.longPollSeconds ?? 30, requestSeconds - margin)),
  };
}

/** Runner options for long polling: a failed poll is retried every second, for as long as it takes. */
export function pollingRunnerOptions(
  timeouts: TelegramTimeouts,
  allowedUpdates: NonNullable<RunnerOptions["fetch"]>["allowed_updates"],
): RunnerOptions {
  // The runner's default doubles its wait after each failure (for up to 15 h, then stops polling
  // for good): after a long outage the bot would answer minutes late, then never.
  return {
    fetch: { timeout: timeouts.longPollSeconds, allowed_updates: allowedUpdates },
    retryInterval: 1_000,
    maxRetryTime: Number.MAX_SAFE_INTEGER,
  };
}

/**
 * Builds the bot: middleware in the order that matters (deps, private chats only, the account and
 * its language, secret-paste guard, rate limit), then one composer per feature, then the catch-all.
 */
export function createBot(deps: BotDeps, options: CreateBotOptions): Bot<BotContext> {
  const timeouts = telegramTimeouts(options.timeouts);
  const bot = new Bot<BotContext>(options.token, {
    client: { apiRoot: options.apiRoot, timeoutSeconds: timeouts.requestSeconds },
  });
  installApiTransformers(bot, deps, options);

  const menu = new MenuActions();
  const cards: CardKinds = new Map();

  // One flat list for the whole chain (see FlatComposer): grammY's own folding would make every
  // update enter an async frame per middleware before the one that takes it.
  const chain = new FlatComposer<BotContext>();
  countUpdatesInFlight(bot, deps, chain);
  useGuards(bot, chain, deps, options);
  const menus = useMenusAndFlows(chain, menu);
  useFeatures(chain, menu, cards, menus);
  chain.use(unhandledFeature());
  bot.use(chain);

  bot.catch(updateErrorHandler(deps));

  return bot;
}

/** The Bot API calls' transformers, innermost first: counting, retries, the shared budget, each chat's pace. */
function installApiTransformers(bot: Bot<BotContext>, deps: BotDeps, options: CreateBotOptions): void {
  // Innermost, so every request on the wire is counted, retries included.
  bot.api.config.use(countApiCalls((method, outcome, call) => deps.metrics.telegramCall(method, outcome, call)));
  // Flood waits and 5xx: a few retries, never waiting more than 30 s for a flood wait. Network
  // errors are rethrown to networkRetry, which bounds them (auto-retry would retry them forever).
  // auto-retry waits once before it checks the attempts left, so 0 retries must rethrow 5xx itself.
  const serverErrorRetries = options.serverErrorRetries ?? 3;
  bot.api.config.use(
    autoRetry({
      maxRetryAttempts: serverErrorRetries,
      maxDelaySeconds: 30,
      rethrowHttpErrors: true,
      rethrowInternalServerErrors: serverErrorRetries === 0,
    }),
  );
  bot.api.config.use(
    networkRetry({
      ...DEFAULT_NETWORK_RETRY,
      onRetry: ({ method, retry, delayMs, error }) =>
        deps.logger.warn(
          { method, retry, delayMs, reason: error.message },
          "Bot API request failed on the network; retrying",
        ),
    }),
  );
  // Replies share Telegram's overall budget and each chat's pace with pushed alerts, across every
  // replica; inside the chat throttler, so one chat's replies take their turns one at a time.
  const chatPace = options.chatPace === undefined ? DEFAULT_CHAT_PACE : options.chatPace;
  bot.api.config.use(
    sharedBudgetTransformer(options.sendBudget ?? databaseSendBudget(deps.db), deps.now, {
      chatPace,
      ...(chatPace ? { groupPace: GROUP_CHAT_PACE } : {}),
      ...(options.overallBudget ? { budget: options.overallBudget } : {}),
      ...(options.sendWindow ? { window: options.sendWindow } : {}),
    }),
  );
  const overallPerSecond = Math.max(
    30,
    Math.ceil((options.overallBudget?.perSecond ?? 0) + (options.overallBudget?.burst ?? 0)),
  );
  bot.api.config.use(
    chatThrottler({
      overall: { perSecond: overallPerSecond, maxConcurrent: 30, highWater: 1000 },
      group: { minTimeMs: 1000, perWindow: { count: 20, windowMs: 60_000 }, highWater: 100 },
      private: { minTimeMs: options.perChatMinTimeMs ?? 250, highWater: 100 },
    }),
  );
}

/** First in the chain: counts the updates being handled (updatesInFlight, and a gauge). */
function countUpdatesInFlight(bot: Bot<BotContext>, deps: BotDeps, chain: FlatComposer<BotContext>): void {
  // Counted from arrival to the last write (a guided flow's state is saved after its reply).
  const handling = { count: 0 };
  inFlight.set(bot, handling);
  deps.metrics.gauge("bot_updates_in_flight", "Telegram updates being handled now", () => handling.count);
  chain.use((_ctx, next) => {
    handling.count += 1;
    return next().finally(() => {
      handling.count -= 1;
    });
  });
}

/** The middleware every update passes before the menus, in the order that matters. */
function useGuards(
  bot: Bot<BotContext>,
  chain: FlatComposer<BotContext>,
  deps: BotDeps,
  options: CreateBotOptions,
): void {
  // A second press of a button whose first press is still being handled (or just came) goes no further.
  const doubleTapMs = options.doubleTapMs === undefined ? DEFAULT_DOUBLE_TAP_MS : options.doubleTapMs;
  if (doubleTapMs !== null) chain.use(doubleTapGuard(doubleTapMs));
  // Updates of one chat are handled in order, also under the concurrent runner.
  chain.use(sequentialize((ctx) => ctx.chat?.id.toString() ?? ctx.from?.id.toString()));
  chain.use(provideDeps(deps));
  // Work the user is not waiting for (a closed question's buttons removed) goes after the reply,
  // counted among the updates in flight until done (a stop and the tests wait for it).
  chain.use(runAfterReply(inFlight.get(bot)!));
  // A webhook update's marketplace writes are recorded as once-only effects (see update-effects).
  chain.use(recordUpdateEffects());
  // Before the menus, so it sees each edit with the menu's keyboard rendered.
  chain.use(skipIdenticalEdits());
  // "/Connect KEY" is "/connect KEY" for everything after this (the key guards included).
  chain.use(commandsAnyCase());
  // Secrets are deleted before anything may drop the update (group answer, rate limit).
  chain.use(groupKeyGuard());
  // Team alerts in groups (the bot removed, a supergroup, /group, Pause and Resume under a copied alert).
  chain.use(groupChatsFeature());
  chain.use(privateChatsOnly());
  // After sequentialize: an update waiting behind its chat's previous one says nothing until its turn.
  const typing = options.typing === undefined ? DEFAULT_TYPING : options.typing;
  if (typing) chain.use(typingWhileSlow(typing));
  // Sets the language and ctx.tr, which translates through the locales' Fluent bundles (chat/i18n).
  // The plugin's own middleware is not installed: nothing reads the ctx.t it would add, and it
  // builds its closures and negotiates a locale on every update for that.
  chain.use(loadAccount());
  chain.use(secretPasteGuard());
  chain.use(rateLimit());
  // Inline queries come without a chat and need no account, but count against the user's flood limit.
  chain.use(inlineFeature());
  chain.use(menuDataGuard());
}

/** The menus that features draw and open. */
interface FeatureMenus {
  ruleMenus: ReturnType<typeof rulesMenus>;
  transactions: ReturnType<typeof transactionsMenu>;
  settings: ReturnType<typeof settingsMenu>;
  watches: ReturnType<typeof watchMenus>;
  autoBuys: ReturnType<typeof autoBuyMenus>;
}

/**
 * Menus before everything that may send one (the main menu opens /rules, a card shows a new
 * rule). One root serves them all: a single middleware per update, whichever menu is pressed.
 * Then the guided flows, which see their chat's updates before the features: answers are theirs,
 * the rest goes on.
 */
function useMenusAndFlows(chain: FlatComposer<BotContext>, menu: MenuActions): FeatureMenus {
  const showTopUp = (ctx: BotContext) => menu.find("topup")?.(ctx) ?? Promise.resolve();
  const menus: FeatureMenus = {
    ruleMenus: rulesMenus(showTopUp),
    transactions: transactionsMenu(showTopUp),
    settings: settingsMenu(),
    watches: watchMenus(),
    autoBuys: autoBuyMenus(),
  };
  chain.use(
    menuRoot([
      menus.ruleMenus.list,
      menus.transactions.menu,
      menus.settings.menu,
      menus.watches.list,
      menus.autoBuys.list,
    ]),
  );
  chain.use(
    guidedFlows({
      quote: quoteConversation,
      buy: buyConversation,
      rule: ruleConversation,
      "address-label": addressLabelConversation,
      watch: watchConversation(menus.watches),
      "guard-amount": guardAmountConversation(menus.settings),
      autobuy: autoBuyConversation,
    }),
  );
  return menus;
}

/** One composer per feature, in the order they take updates. */
function useFeatures(chain: FlatComposer<BotContext>, menu: MenuActions, cards: CardKinds, menus: FeatureMenus): void {
  chain.use(startFeature(menu));
  chain.use(connectFeature(menu));
  chain.use(accountFeature(menu));
  chain.use(settingsFeature(menu, menus.settings));
  chain.use(quoteFeature(menu));
  chain.use(buyFeature(menu, cards));
  chain.use(watchFeature(menu, menus.watches));
  // Confirm and Cancel under the question a watch_ deep link asks.
  chain.use(watchLinkFeature(menu));
  chain.use(autoBuyFeature(menu, cards, menus.autoBuys));
  chain.use(ordersFeature(menu));
  chain.use(addressesFeature());
  chain.use(rulesFeature(menu, cards, menus.ruleMenus));
  chain.use(walletFeature(menu, menus.transactions));
  chain.use(notificationsFeature(menu));
  chain.use(statsFeature(menu));
  chain.use(dashboardFeature());
  chain.use(groupFeature());
  chain.use(cardsFeature(cards));
}

const inFlight = new WeakMap<Bot<BotContext>, { count: number }>();

/** How many Telegram updates the bot is handling now (waiting for their chat's turn included). */
export function updatesInFlight(bot: Bot<BotContext>): number {
  return inFlight.get(bot)?.count ?? 0;
}

/** Waits until the bot handles no update, at most `timeoutMs`; false when some were still running. */
export async function updatesHandled(bot: Bot<BotContext>, timeoutMs: number): Promise<boolean> {
  const until = Date.now() + timeoutMs;
  while (updatesInFlight(bot) > 0) {
    if (Date.now() > until) return false;
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
  return true;
}

/**
 * Sets the bot's description (the empty chat's "What can this bot do?") and short description
 * (its profile) per language from the locales; English is also the default for other languages.
 * A failure is logged, never fatal.
 */
export async function registerProfile(bot: Bot<BotContext>, deps: BotDeps): Promise<void> {
  for (const language of LANGUAGES) {
    const tr = translatorFor(deps.i18n, language);
    const scopes = language === "en" ? [{}, { language_code: language }] : [{ language_code: language }];
    try {
      for (const scope of scopes) {
        await bot.api.setMyDescription(tr("bot-description").slice(0, 512), scope);
        await bot.api.setMyShortDescription(tr("bot-short-description").slice(0, 120), scope);
      }
    } catch (error) {
      deps.logger.warn({ err: error, language }, "setMyDescription failed; the bot's description may be out of date");
    }
  }
}
