import { autoRetry } from "@grammyjs/auto-retry";
import { sharedBudgetTransformer, type GlobalBudget } from "../scale/send-budget";
import { sequentialize, type RunnerOptions } from "@grammyjs/runner";
import { countApiCalls, DEFAULT_NETWORK_RETRY, networkRetry } from "./api-transformers";
import { chatThrottler } from "./chat-throttle";
import { Bot, GrammyError, HttpError } from "grammy";
import { randomBytes } from "node:crypto";
import type { BotContext, BotDeps } from "./context";
import { markUserInactive } from "../db/repos/users";
import { installFlowRouter, type FlowRegistry } from "./flows";
import { translatorFor, LANGUAGES, pickLanguage } from "./i18n";
import { loadAccount, privateChatsOnly, provideDeps } from "./middleware/core";
import { rateLimit } from "./middleware/rate-limit";
import { groupKeyGuard, secretPasteGuard } from "./middleware/secret-paste";
import { COMMANDS, startFeature, unhandledFeature, type MenuActions } from "./features/start";
import { connectFeature } from "./features/connect";
import { accountFeature } from "./features/account";
import { quoteFeature } from "./features/quote";
import { buyFeature } from "./features/buy";
import { ordersFeature } from "./features/orders";
import { addressesFeature } from "./features/addresses";
import { rulesFeature } from "./features/rules";
import { walletFeature } from "./features/wallet";
import { notificationsFeature } from "./features/notifications";
import { cardsFeature, type CardKinds } from "./features/cards";

export interface CreateBotOptions {
  token: string;
  apiRoot: string;
  /** Per-chat minimum spacing of outgoing calls in ms (Telegram tolerates short bursts in private chats). */
  perChatMinTimeMs?: number;
  /** Bot API timeouts (tests shorten them); see telegramTimeouts. */
  timeouts?: Partial<TelegramTimeouts>;
  /** Telegram's overall budget shared with alerts (default 28/s); the benchmark lifts it to measure handling alone. */
  overallBudget?: GlobalBudget;
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
  return { requestSeconds, longPollSeconds: Math.max(0, Math.min(given.longPollSeconds ?? 30, requestSeconds - margin)) };
}

/** Runner options for long polling: a failed poll is retried every second, for as long as it takes. */
export function pollingRunnerOptions(timeouts: TelegramTimeouts, allowedUpdates: NonNullable<RunnerOptions["fetch"]>["allowed_updates"]): RunnerOptions {
  // The runner's default doubles its wait after each failure (for up to 15 h, then stops polling
  // for good): after a long outage the bot would answer minutes late, then never.
  return { fetch: { timeout: timeouts.longPollSeconds, allowed_updates: allowedUpdates }, retryInterval: 1_000, maxRetryTime: Number.MAX_SAFE_INTEGER };
}

/**
 * Builds the bot: middleware in the order that matters (deps, private chats only, the account,
 * i18n, secret-paste guard, rate limit), then one composer per feature, then the catch-all.
 */
export function createBot(deps: BotDeps, options: CreateBotOptions): Bot<BotContext> {
  const timeouts = telegramTimeouts(options.timeouts);
  const bot = new Bot<BotContext>(options.token, {
    client: { apiRoot: options.apiRoot, timeoutSeconds: timeouts.requestSeconds },
  });
  // Innermost, so every request on the wire is counted, retries included.
  bot.api.config.use(countApiCalls((method, outcome) => deps.metrics.telegramCalls.inc({ method, outcome })));
  // Flood waits and 5xx: a few retries, never waiting more than 30 s for a flood wait. Network
  // errors are rethrown to networkRetry, which bounds them (auto-retry would retry them forever).
  // auto-retry waits once before it checks the attempts left, so 0 retries must rethrow 5xx itself.
  const serverErrorRetries = options.serverErrorRetries ?? 3;
  bot.api.config.use(autoRetry({ maxRetryAttempts: serverErrorRetries, maxDelaySeconds: 30, rethrowHttpErrors: true, rethrowInternalServerErrors: serverErrorRetries === 0 }));
  bot.api.config.use(
    networkRetry({
      ...DEFAULT_NETWORK_RETRY,
      onRetry: ({ method, retry, delayMs, error }) => deps.logger.warn({ method, retry, delayMs, reason: error.message }, "Bot API request failed on the network; retrying"),
    }),
  );
  // Replies share Telegram's overall budget with pushed alerts, across every replica.
  bot.api.config.use(sharedBudgetTransformer(deps.db, deps.now, options.overallBudget ? { budget: options.overallBudget } : {}));
  const overallPerSecond = Math.max(30, Math.ceil((options.overallBudget?.perSecond ?? 0) + (options.overallBudget?.burst ?? 0)));
  bot.api.config.use(
    chatThrottler({
      overall: { perSecond: overallPerSecond, maxConcurrent: 30, highWater: 1000 },
      group: { minTimeMs: 1000, perWindow: { count: 20, windowMs: 60_000 }, highWater: 100 },
      private: { minTimeMs: options.perChatMinTimeMs ?? 250, highWater: 100 },
    }),
  );

  const flows: FlowRegistry = new Map();
  const menu: MenuActions = {};
  const cards: CardKinds = new Map();

  // Updates of one chat are handled in order, also under the concurrent runner.
  bot.use(sequentialize((ctx) => ctx.chat?.id.toString() ?? ctx.from?.id.toString()));
  bot.use(provideDeps(deps));
  // Secrets are deleted before anything may drop the update (group answer, rate limit).
  bot.use(groupKeyGuard());
  bot.use(privateChatsOnly());
  bot.use(loadAccount());
  bot.use(deps.i18n);
  bot.use(secretPasteGuard());
  bot.use(rateLimit());

  bot.use(startFeature(menu));
  bot.use(connectFeature(flows, menu));
  bot.use(accountFeature(menu));
  bot.use(quoteFeature(flows, menu));
  bot.use(buyFeature(flows, menu, cards));
  bot.use(ordersFeature(menu));
  bot.use(addressesFeature(flows));
  bot.use(rulesFeature(flows, menu, cards));
  bot.use(walletFeature(menu));
  bot.use(notificationsFeature(menu));
  bot.use(cardsFeature(cards));

  installFlowRouter(bot, flows);
  bot.use(unhandledFeature());

  bot.catch(async (error) => {
    const errorId = randomBytes(4).toString("hex");
    const ctx = error.ctx;
    const cause = error.error;
    deps.logger.error(
      { errorId, updateId: ctx.update.update_id, userId: ctx.from?.id, err: cause instanceof Error ? cause : new Error(String(cause)) },
      "update handler failed; the user was told and the bot goes on",
    );
    if (cause instanceof GrammyError && cause.error_code === 403 && ctx.from) {
      // The user blocked the bot: stop pushing to them (their key stays linked).
      await markUserInactive(deps.db, ctx.from.id, deps.now()).catch(() => undefined);
      return;
    }
    if (!ctx.chat || cause instanceof HttpError) return;
    const tr = ctx.tr ?? translatorFor(deps.i18n, pickLanguage(ctx.from?.language_code));
    try {
      if (ctx.callbackQuery) await ctx.answerCallbackQuery().catch(() => undefined);
      await ctx.reply(tr("error-generic", { id: errorId }), { parse_mode: "HTML" });
    } catch (replyError) {
      deps.logger.warn({ errorId, err: replyError }, "could not tell the user about the error");
    }
  });

  return bot;
}

/** Registers the command menu per language; a failure is logged, never fatal. */
export async function registerCommands(bot: Bot<BotContext>, deps: BotDeps): Promise<void> {
  for (const language of LANGUAGES) {
    const tr = translatorFor(deps.i18n, language);
    const commands = COMMANDS.map((command) => ({ command, description: tr(`command-${command}`).slice(0, 256) }));
    try {
      await bot.api.setMyCommands(commands, language === "en" ? {} : { language_code: language });
      if (language === "en") await bot.api.setMyCommands(commands, { language_code: "en" });
    } catch (error) {
      deps.logger.warn({ err: error, language }, "setMyCommands failed; the command menu may be out of date");
    }
  }
}
