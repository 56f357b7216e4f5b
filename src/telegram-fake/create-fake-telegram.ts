import { createEventLog, trimToNewest } from "./event-log";
import { commandMenuFor, commandsKey, createFakeState } from "./fake-state";
import type { BotIdentity } from "./message-json";
import type { MethodContext } from "./method-context";
import { createRateLimiter } from "./rate-limiter";
import { createFakeTelegramApp } from "./routes";
import type { ApiCall, CallbackAnswer, DownMode, FakeTelegram, FakeTelegramOptions } from "./types";
import { createUpdateQueue } from "./update-queue";
import { createUserSide } from "./user-side";
import { createGroups } from "./groups";
import { createGroupSide } from "./group-side";
import { createWebhookDelivery } from "./webhook-delivery";

/**
 * A strict stand-in for the Telegram Bot API: point grammY's `client.apiRoot` at `app` and the
 * bot runs exactly as in production, while tests (or the playground) act as users and watch.
 * It refuses what Telegram refuses, with Telegram's own descriptions.
 */
export function createFakeTelegram(options: FakeTelegramOptions): FakeTelegram {
  const now = options.now ?? Date.now;
  const bot: BotIdentity = {
    id: Number(/^(\d+):/.exec(options.token)?.[1] ?? 7000000001),
    username: options.botUsername ?? "sandbox_energy_bot",
  };
  const state = createFakeState();
  state.inlineMode = options.inlineMode ?? true;
  const logLimit = options.logLimit ?? Number.POSITIVE_INFINITY;
  const events = createEventLog(logLimit);
  const updates = createUpdateQueue(options.longPollMaxMs ?? 25_000);
  const rateLimiter = createRateLimiter(options.rateLimits, now);
  const groups = createGroups();
  const webhookDelivery = createWebhookDelivery(state, updates, options.webhook, now);
  const calls: ApiCall[] = [];
  let lastCallSeq = 0;
  const callbackAnswers: CallbackAnswer[] = [];
  let downMode: DownMode = null;

  const app = createFakeTelegramApp({
    token: options.token,
    state,
    methodContext: (signal): MethodContext => ({
      state,
      updates,
      events,
      rateLimiter,
      groups,
      bot,
      now,
      callbackAnswers,
      signal,
    }),
    recordCall(call) {
      // A callback answer names no chat: take it from the press it answers.
      const queryChat =
        call.params.chat_id === undefined && typeof call.params.callback_query_id === "string"
          ? state.callbackQueries.get(call.params.callback_query_id)?.chatId
          : undefined;
      const recorded: ApiCall = {
        seq: ++lastCallSeq,
        at: now(),
        ...call,
        ...(queryChat === undefined ? {} : { chatId: queryChat }),
      };
      calls.push(recorded);
      trimToNewest(calls, logLimit);
      events.emit({ kind: "call", call: recorded });
      if (recorded.ok && recorded.method === "setWebhook") webhookDelivery.kick();
    },
    downMode: () => downMode,
  });

  const userSide = createUserSide({ state, updates, events, bot, now });

  const groupSide = createGroupSide({ state, groups, updates, events, bot, now });

  return {
    app,
    ...userSide,
    ...groupSide,
    group: (chatId) => groups.get(chatId),
    replyKeyboard: (chatId) => state.replyKeyboards.get(chatId),
    messages: (chatId) => state.messages(chatId).map((message) => ({ ...message })),
    calls,
    rejectedCalls: () => calls.filter((call) => !call.ok && !call.throttled && !call.injectedFault),
    callbackAnswers,
    commands: (languageCode) => [...(state.commands.get(commandsKey(undefined, languageCode || undefined)) ?? [])],
    commandMenu: (chatId, languageCode) => commandMenuFor(state.commands, chatId, languageCode),
    get webhook() {
      return state.webhook ? { ...state.webhook } : null;
    },
    subscribe: events.subscribe,
    eventsSince: events.since,
    setDown(mode) {
      downMode = mode;
    },
    blockUser(userId) {
      state.blockedUsers.add(userId);
    },
    inlineAnswer(inlineQueryId) {
      return state.inlineQueries.get(inlineQueryId)?.answer;
    },
    setInlineMode(enabled) {
      state.inlineMode = enabled;
    },
    close() {
      updates.close();
      webhookDelivery.close();
    },
  };
}
