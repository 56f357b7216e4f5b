import { TelegramApiError } from "./api-error";
import type { EventLog } from "./event-log";
import type { FakeState, KnownChat } from "./fake-state";
import { messageJson, type BotIdentity, botUserJson } from "./message-json";
import type { RateLimiter } from "./rate-limiter";
import { requireBotInGroup, requireBotMaySend, type Groups } from "./groups";
import type { Params } from "./request-params";
import type { CallbackAnswer, ChatMessage, FakeEventKind } from "./types";
import type { UpdateQueue } from "./update-queue";

/** What every Bot API method handler works with. */
export interface MethodContext {
  state: FakeState;
  updates: UpdateQueue;
  events: EventLog;
  rateLimiter: RateLimiter;
  /** Groups with their members (a chat the fake knows as a group but holds no members of is open to the bot). */
  groups: Groups;
  bot: BotIdentity;
  now: () => number;
  callbackAnswers: CallbackAnswer[];
  /** Aborted when the bot hangs up on this request. */
  signal?: AbortSignal;
}

/** Returns the method's `result`, or throws a {@link TelegramApiError}. */
export type MethodHandler = (context: MethodContext, params: Params) => unknown;

/** The chat a send or edit targets, refusing what Telegram refuses. */
export function targetChat(context: MethodContext, chatId: number): KnownChat {
  const chat = context.state.requireChat(chatId);
  if (chat.type === "private" && context.state.blockedUsers.has(chatId)) {
    throw new TelegramApiError(403, "Forbidden: bot was blocked by the user", "fault");
  }
  const group = chat.type === "private" ? undefined : context.groups.get(chatId);
  if (group) requireBotInGroup(group);
  return chat;
}

/** The chat a new message goes to: as targetChat, and the bot allowed to send there. */
export function sendTarget(context: MethodContext, chatId: number): KnownChat {
  const chat = targetChat(context, chatId);
  const group = chat.type === "private" ? undefined : context.groups.get(chatId);
  if (group) requireBotMaySend(group);
  return chat;
}

export function emitMessageEvent(context: MethodContext, kind: FakeEventKind, message: ChatMessage): void {
  context.events.emit({ kind, chatId: message.chatId, message: { ...message } });
}

export function botMessageJson(context: MethodContext, message: ChatMessage, chat: KnownChat): Record<string, unknown> {
  const photoFile = message.photo ? context.state.fileById(message.photo.fileId) : undefined;
  return messageJson(message, chat, botUserJson(context.bot), photoFile);
}

export function nowSeconds(context: MethodContext): number {
  return Math.floor(context.now() / 1000);
}
