import type { Transformer } from "grammy";
import type { ChatPace } from "#src/db/repos/chat-send";
import type { GlobalBudget } from "#src/db/repos/send-budget";
import type { SendBudgetStore } from "./send-budget-store";
import type { ArrivalWindow } from "./arrival-window";

// The bot's own replies taking from the budgets pushed alerts take from.

/** Bot API methods that put a new message in a chat: each takes one message from the global budget. */
const NEW_MESSAGE_METHODS = new Set([
  "sendMessage",
  "sendPhoto",
  "sendDocument",
  "sendAnimation",
  "sendVideo",
  "sendAudio",
  "sendVoice",
  "sendSticker",
  "sendLocation",
  "sendContact",
  "sendPoll",
  "sendDice",
  "sendMediaGroup",
  "copyMessage",
  "copyMessages",
  "forwardMessage",
  "forwardMessages",
]);

/** The chat a new message goes to and its pace: a private chat's, or a group's (ids below zero) when one is given. */
function pacedChat(
  payload: unknown,
  chatPace: ChatPace | null | undefined,
  groupPace: ChatPace | undefined,
): { chatId: number; pace: ChatPace } | null {
  const chatId =
    payload && typeof payload === "object" && "chat_id" in payload
      ? Number((payload as { chat_id: unknown }).chat_id)
      : Number.NaN;
  if (!Number.isSafeInteger(chatId) || chatId === 0) return null;
  const pace = chatId > 0 ? chatPace : groupPace;
  return pace ? { chatId, pace } : null;
}

/**
 * Makes the bot's own replies take from the same budgets as pushed alerts, so replies and alerts
 * of every replica together stay under Telegram's limits:
 *
 * - with `chatPace`, a new message to a private chat first waits for the chat's turn (the turns
 *   alerts take too), for at most `maxChatWaitMs`; its send then counts from the time Telegram
 *   answered, unless that came within the pace's `answerSlackMs` of the turn; with `groupPace`,
 *   a message to a group does the same at the group's pace (team alerts take those turns too);
 * - it then waits for the overall budget (about 36 ms at most while alerts use the whole budget),
 *   for at most `maxWaitMs`;
 * - with `window`, it leaves only while the process's messages stay within it on arrival.
 *
 * After a wait runs out, or when the database cannot be asked, the message goes anyway and
 * Telegram's 429 handling takes over. The caller keeps one chat's calls one at a time (the chat
 * throttler), so a reply never races the reply before it for the chat's turn.
 */
export function sharedBudgetTransformer(
  store: SendBudgetStore,
  now: () => number,
  options: {
    budget?: GlobalBudget;
    maxWaitMs?: number;
    chatPace?: ChatPace | null;
    groupPace?: ChatPace;
    maxChatWaitMs?: number;
    window?: ArrivalWindow;
  } = {},
): Transformer {
  const budget = options.budget ?? store.budget;
  const maxWaitMs = options.maxWaitMs ?? 5_000;
  const maxChatWaitMs = options.maxChatWaitMs ?? 30_000;
  return async (prev, method, payload, signal) => {
    if (!NEW_MESSAGE_METHODS.has(method)) return prev(method, payload, signal);
    const paced = pacedChat(payload, options.chatPace, options.groupPace);
    const chatId = paced?.chatId ?? null;
    // The global grant taken with the chat's turn (one statement on PostgreSQL), if it granted one.
    let grantedWithTurn = false;
    // When the chat's turn was granted (undefined: it was not, and the send counts from its answer).
    let turnAt: number | undefined;
    if (chatId !== null) {
      const deadline = Date.now() + maxChatWaitMs;
      try {
        for (;;) {
          const at = now();
          const { chatDueAt, grant } = await store.takeReplyTurn(chatId, at, paced!.pace, budget);
          if (chatDueAt === null) {
            turnAt = at;
            grantedWithTurn = (grant?.granted ?? 0) > 0;
          }
          if (chatDueAt === null || Date.now() >= deadline || signal?.aborted) break;
          await new Promise((resolve) => setTimeout(resolve, Math.max(1, Math.min(50, chatDueAt - now()))));
        }
      } catch {
        // as below: the pace is a courtesy to Telegram, never a reason to lose the reply
      }
    }
    const deadline = Date.now() + maxWaitMs;
    try {
      while (!grantedWithTurn) {
        const { granted, nextAt } = await store.takeGlobal(now(), 1, budget);
        if (granted > 0 || Date.now() >= deadline) break;
        // The app clock may run faster than the wall clock in tests: never sleep more than 50 ms at once.
        await new Promise((resolve) => setTimeout(resolve, Math.max(1, Math.min(50, nextAt - now()))));
      }
    } catch {
      // the budget is a courtesy to Telegram; a database hiccup must not swallow the reply
    }
    const leave = options.window ? await options.window.enter() : null;
    try {
      return await prev(method, payload, signal);
    } finally {
      leave?.();
      if (chatId !== null) {
        const pace = paced!.pace;
        const answeredAt = now();
        if (turnAt === undefined || pace.answerSlackMs === undefined || answeredAt - turnAt > pace.answerSlackMs)
          await store.recordChatSendAt(null, chatId, answeredAt, pace).catch(() => undefined);
      }
    }
  };
}
