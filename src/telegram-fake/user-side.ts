import type { EventLog } from "./event-log";
import type { FakeState, KnownChat } from "./fake-state";
import { botUserJson, messageJson, userJson, type BotIdentity } from "./message-json";
import type { ChatMessage, FakeUser, InlineButtonLike, PressedButton, SentUserMessage } from "./types";
import type { UpdateQueue } from "./update-queue";

/** Telegram sends at most this much of what is typed after the bot's username. */
const INLINE_QUERY_MAX = 256;
/** A deep link's start parameter: what Telegram passes on to the bot. */
const START_PARAMETER = /^[A-Za-z0-9_-]{1,64}$/;

export interface UserSideDeps {
  state: FakeState;
  updates: UpdateQueue;
  events: EventLog;
  bot: BotIdentity;
  now: () => number;
}

const DEFAULT_GROUP_ID = -1001;

/** What people do in Telegram, turned into the Updates the bot receives. */
export function createUserSide(deps: UserSideDeps) {
  return {
    sendText: (user: FakeUser, text: string, options?: ChatOptions) => sendText(deps, user, text, options),
    pressButton: (user: FakeUser, messageId: number, callbackData: string, options?: { chatId?: number }) =>
      pressButton(deps, user, messageId, callbackData, options),
    pressButtonByLabel: (user: FakeUser, label: string | RegExp, options?: { messageId?: number }) =>
      pressButtonByLabel(deps, user, label, options),
    injectUpdate: (update: object) => injectUpdate(deps, update),
    sendInlineQuery: (user: FakeUser, query: string, options?: { chatType?: "sender" | "private" | "group" }) =>
      sendInlineQuery(deps, user, query, options),
    chooseInlineResult: (user: FakeUser, inlineQueryId: string, resultId: string, options?: { chatId?: number }) =>
      chooseInlineResult(deps, user, inlineQueryId, resultId, options),
    openDeepLink: (user: FakeUser, url: string) => openDeepLink(deps, user, url),
  };
}

const nowSeconds = (deps: UserSideDeps) => Math.floor(deps.now() / 1000);

/** Where a user acts: their private chat, or a group. */
type ChatOptions = { chat?: "private" | "group"; groupId?: number };

/** The chat a user acts in (their private chat unless a group is named), remembered by the fake. */
function chatFor(deps: UserSideDeps, user: FakeUser, options: ChatOptions): KnownChat {
  const known = options.groupId === undefined ? undefined : deps.state.chats.get(options.groupId);
  if (known && known.type !== "private") return known;
  const chat: KnownChat =
    options.chat === "group" || options.groupId !== undefined
      ? { id: options.groupId ?? DEFAULT_GROUP_ID, type: "group", title: "Group" }
      : {
          id: user.id,
          type: "private",
          firstName: user.firstName ?? "Test",
          ...(user.username ? { username: user.username } : {}),
        };
  deps.state.rememberChat(chat);
  return deps.state.requireChat(chat.id);
}

/** The user sends a text (a /command gets its bot_command entity). */
function sendText(deps: UserSideDeps, user: FakeUser, text: string, options: ChatOptions = {}): SentUserMessage {
  const chat = chatFor(deps, user, options);
  // Only someone who unblocked the bot can write to it.
  if (chat.type === "private") deps.state.blockedUsers.delete(user.id);
  const entities = botCommandEntities(text);
  const message = deps.state.addMessage({
    chatId: chat.id,
    from: "user",
    text,
    ...(entities.length ? { entities } : {}),
    edited: false,
    deleted: false,
    date: nowSeconds(deps),
  });
  deps.events.emit({ kind: "user_message", chatId: chat.id, message: { ...message } });
  const updateId = deps.updates.enqueue({ message: messageJson(message, chat, userJson(user)) });
  return { updateId, messageId: message.messageId, chatId: chat.id };
}

/** The user presses a callback button of a bot message; a button the message lacks is refused. */
function pressButton(
  deps: UserSideDeps,
  user: FakeUser,
  messageId: number,
  callbackData: string,
  options: { chatId?: number } = {},
): PressedButton {
  const chatId = options.chatId ?? user.id;
  const message = deps.state.findMessage(chatId, messageId);
  if (!message || message.deleted || message.from !== "bot") {
    throw new Error(`pressButton: chat ${chatId} has no bot message ${messageId} to press a button on`);
  }
  const buttons = callbackButtons(message);
  if (!buttons.some((button) => button.callback_data === callbackData)) {
    throw new Error(
      `pressButton: message ${messageId} has no button with callback_data ${JSON.stringify(callbackData)}; ` +
        `it has ${describe(buttons)}. Use injectUpdate to forge a callback.`,
    );
  }
  const callbackQueryId = deps.state.nextCallbackQueryId();
  deps.state.callbackQueries.set(callbackQueryId, {
    id: callbackQueryId,
    createdAt: deps.now(),
    answered: false,
    chatId,
  });
  const photoFile = message.photo ? deps.state.fileById(message.photo.fileId) : undefined;
  const updateId = deps.updates.enqueue({
    callback_query: {
      id: callbackQueryId,
      from: userJson(user),
      message: messageJson(message, deps.state.requireChat(chatId), botUserJson(deps.bot), photoFile),
      chat_instance: String(-chatId * 7919),
      data: callbackData,
    },
  });
  return { updateId, callbackQueryId };
}

/** The user presses the newest callback button with this label (in one message when messageId is given). */
function pressButtonByLabel(
  deps: UserSideDeps,
  user: FakeUser,
  label: string | RegExp,
  options: { messageId?: number } = {},
): PressedButton & { messageId: number } {
  const matches = (text: string) => (typeof label === "string" ? text === label : label.test(text));
  const candidates = deps.state
    .messages(user.id)
    .filter(
      (m) => m.from === "bot" && !m.deleted && (options.messageId === undefined || m.messageId === options.messageId),
    )
    .reverse();
  for (const message of candidates) {
    const button = callbackButtons(message).find((b) => matches(b.text));
    if (button)
      return { ...pressButton(deps, user, message.messageId, button.callback_data!), messageId: message.messageId };
  }
  const seen = candidates.flatMap((m) => callbackButtons(m).map((b) => `"${b.text}" (message ${m.messageId})`));
  throw new Error(
    `pressButtonByLabel: no callback button labelled ${String(label)} in chat ${user.id}; buttons seen: ${seen.join(", ") || "none"}`,
  );
}

/** Queues a raw update as it is, remembering the chats and the callback query it names. */
function injectUpdate(deps: UserSideDeps, update: object): number {
  rememberChats(deps.state, update);
  const callbackQuery = (update as { callback_query?: { id?: unknown } }).callback_query;
  if (typeof callbackQuery?.id === "string") {
    deps.state.callbackQueries.set(callbackQuery.id, { id: callbackQuery.id, createdAt: deps.now(), answered: false });
  }
  return deps.updates.enqueue(update);
}

/** The user types "@bot query" in a chat: an inline query, when inline mode is on. */
function sendInlineQuery(
  deps: UserSideDeps,
  user: FakeUser,
  query: string,
  options: { chatType?: "sender" | "private" | "group" } = {},
): { updateId: number; inlineQueryId: string } {
  if (!deps.state.inlineMode)
    throw new Error(
      "sendInlineQuery: inline mode is off for this bot (BotFather: /setinline), so Telegram offers no inline queries",
    );
  if (query.length > INLINE_QUERY_MAX)
    throw new Error(`sendInlineQuery: Telegram sends at most ${INLINE_QUERY_MAX} characters of an inline query`);
  const id = deps.state.nextInlineQueryId();
  const chatType = options.chatType ?? "sender";
  deps.state.inlineQueries.set(id, { id, userId: user.id, query, chatType, createdAt: deps.now() });
  const updateId = deps.updates.enqueue({
    inline_query: { id, from: userJson(user), query, offset: "", chat_type: chatType },
  });
  return { updateId, inlineQueryId: id };
}

/** The user sends one of the bot's inline results into a chat. */
function chooseInlineResult(
  deps: UserSideDeps,
  user: FakeUser,
  inlineQueryId: string,
  resultId: string,
  options: { chatId?: number } = {},
): ChatMessage {
  const query = deps.state.inlineQueries.get(inlineQueryId);
  if (!query || query.userId !== user.id)
    throw new Error(`chooseInlineResult: user ${user.id} sent no inline query ${inlineQueryId}`);
  if (!query.answer)
    throw new Error(`chooseInlineResult: the bot has not answered inline query ${inlineQueryId} (yet)`);
  const result = query.answer.results.find((candidate) => candidate.id === resultId);
  if (!result)
    throw new Error(
      `chooseInlineResult: no result ${JSON.stringify(resultId)}; the answer has ${query.answer.results.map((r) => JSON.stringify(r.id)).join(", ") || "none"}`,
    );
  const privateChat = options.chatId === undefined || options.chatId === user.id;
  const chat = privateChat ? chatFor(deps, user, {}) : chatFor(deps, user, { groupId: options.chatId! });
  const message = deps.state.addMessage({
    chatId: chat.id,
    from: "user",
    text: result.message.text,
    ...(result.message.html !== undefined ? { html: result.message.html } : {}),
    ...(result.message.entities ? { entities: result.message.entities } : {}),
    ...(result.replyMarkup ? { replyMarkup: result.replyMarkup } : {}),
    viaBot: { id: deps.bot.id, username: deps.bot.username },
    edited: false,
    deleted: false,
    date: nowSeconds(deps),
  });
  deps.events.emit({ kind: "user_message", chatId: chat.id, message: { ...message } });
  // The bot is in no group here; in its own private chat it receives the message like any other.
  if (privateChat) deps.updates.enqueue({ message: messageJson(message, chat, userJson(user)) });
  return { ...message };
}

/** The user opens a t.me or tg://resolve link to the bot: /start with its start parameter. */
function openDeepLink(deps: UserSideDeps, user: FakeUser, url: string): SentUserMessage {
  const parsed = URL.canParse(url) ? new URL(url) : null;
  const web =
    parsed && /^https?:$/.test(parsed.protocol) && parsed.hostname === "t.me"
      ? { name: parsed.pathname.slice(1), start: parsed.searchParams.get("start") }
      : null;
  const app =
    parsed && parsed.protocol === "tg:" && parsed.hostname === "resolve"
      ? { name: parsed.searchParams.get("domain") ?? "", start: parsed.searchParams.get("start") }
      : null;
  const link = web ?? app;
  if (!link || link.name.toLowerCase() !== deps.bot.username.toLowerCase())
    throw new Error(`openDeepLink: ${url} is not a link to @${deps.bot.username}`);
  if (link.start !== null && !START_PARAMETER.test(link.start))
    throw new Error(
      `openDeepLink: Telegram passes on only 1-64 characters of A-Z a-z 0-9 _ - as a start parameter, got ${JSON.stringify(link.start)}`,
    );
  return sendText(deps, user, link.start ? `/start ${link.start}` : "/start");
}

function callbackButtons(message: ChatMessage): Array<InlineButtonLike & { callback_data: string }> {
  return (message.replyMarkup?.inline_keyboard.flat() ?? []).filter(
    (button): button is InlineButtonLike & { callback_data: string } => typeof button.callback_data === "string",
  );
}

function describe(buttons: InlineButtonLike[]): string {
  return buttons.length
    ? buttons.map((b) => `"${b.text}" → ${JSON.stringify(b.callback_data)}`).join(", ")
    : "no callback buttons";
}

/** Telegram marks /commands in what users type; grammY's bot.command() relies on it. */
function botCommandEntities(text: string): Array<{ type: string; offset: number; length: number }> {
  return [...text.matchAll(/(?<=^|\s)\/[a-zA-Z0-9_]{1,32}(?:@[a-zA-Z0-9_]{3,})?/g)].map((match) => ({
    type: "bot_command",
    offset: match.index,
    length: match[0].length,
  }));
}

/** A raw update may mention chats the bot can then write to. */
function rememberChats(state: FakeState, update: object): void {
  const record = update as Record<string, { chat?: unknown; message?: { chat?: unknown } } | undefined>;
  for (const value of Object.values(record)) {
    const chat = (value?.chat ?? value?.message?.chat) as
      { id?: unknown; type?: unknown; first_name?: string; title?: string } | undefined;
    if (typeof chat?.id !== "number") continue;
    state.rememberChat({
      id: chat.id,
      type: chat.type === "private" ? "private" : "group",
      ...(chat.first_name ? { firstName: chat.first_name } : {}),
      ...(chat.title ? { title: chat.title } : {}),
    });
  }
}
