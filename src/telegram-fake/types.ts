import type { Hono } from "hono";

/** Options for {@link createFakeTelegram}. */
export interface FakeTelegramOptions {
  /** The bot token the fake accepts; any other token is 401 Unauthorized. */
  token: string;
  /** Username returned by getMe; default "sandbox_energy_bot". */
  botUsername?: string;
  /** Millisecond clock for message dates, callback query age and rate limits; default Date.now. */
  now?: () => number;
  /** Flood control on sendMessage/sendPhoto; off unless `enabled`. */
  rateLimits?: {
    enabled: boolean;
    perChatPerSecond?: number;
    perChatBurst?: number;
    globalPerSecond?: number;
    perGroupPerMinute?: number;
  };
  /** Cap on the getUpdates `timeout`, in ms (default 25000), so tests never hang on a poll. */
  longPollMaxMs?: number;
  /** Keep only about this many newest events and calls (default: all; the playground bounds them). */
  logLimit?: number;
  /** Webhook delivery; default one update at a time, oldest first. */
  webhook?: WebhookDeliveryOptions;
  /**
   * Inline mode as BotFather's /setinline left it (getMe's supports_inline_queries); default on.
   * Off, people cannot send the bot inline queries.
   */
  inlineMode?: boolean;
}

export interface WebhookDeliveryOptions {
  /** Updates posted at once, like setWebhook's max_connections (default 1). */
  maxConnections?: number;
  /**
   * Telegram posts the updates of one chat one at a time. Set this to post them in parallel too,
   * as a load balancer's retry or a redelivery can, to race two updates of one chat at two replicas.
   */
  sameChatInParallel?: boolean;
}

/** A person talking to the bot. Their private chat has the same id as the user. */
export interface FakeUser {
  id: number;
  firstName?: string;
  username?: string;
  languageCode?: string;
}

export interface MessageEntityLike {
  type: string;
  offset: number;
  length: number;
  url?: string;
  language?: string;
  custom_emoji_id?: string;
}

export interface InlineButtonLike {
  text: string;
  callback_data?: string;
  url?: string;
  copy_text?: { text: string };
  /** Bot API 9.4: "success" (green), "danger" (red) or "primary" (blue); the app's own look when absent. */
  style?: "success" | "danger" | "primary";
  [action: string]: unknown;
}

export interface InlineKeyboardMarkupLike {
  inline_keyboard: InlineButtonLike[][];
}

/** A message as a chat participant sees it. */
export interface ChatMessage {
  messageId: number;
  chatId: number;
  from: "bot" | "user";
  /** As Telegram would show it: plain text after entity parsing. */
  text?: string;
  /** The raw text (or caption) the bot sent with parse_mode HTML. */
  html?: string;
  caption?: string;
  /** Formatting of `text` (or `caption`), UTF-16 offsets as in the Bot API. */
  entities?: MessageEntityLike[];
  /** The bot whose inline result the user chose to send this message. */
  viaBot?: { id: number; username: string };
  service?: string; // a service message's line as Telegram's app shows it (a chat shared); never sent to the bot
  /** `url` is set when the bot sent a URL (the fake does not fetch it, so `bytes` is empty). */
  photo?: { fileId: string; bytes: Uint8Array; width?: number; height?: number; url?: string };
  replyMarkup?: InlineKeyboardMarkupLike;
  edited: boolean;
  deleted: boolean;
  /** Unix seconds, as in the Bot API. */
  date: number;
}

/** One Bot API request the bot made and how the fake answered it. */
export interface ApiCall {
  seq: number;
  /** Milliseconds on the fake's clock when the answer was given. */
  at: number;
  method: string;
  /** Parameters as received; uploaded files are replaced by `{ bytes: n }`. */
  params: Record<string, unknown>;
  ok: boolean;
  errorCode?: number;
  description?: string;
  /** Answered 429 by the fake's flood control. */
  throttled?: boolean;
  /** Answered with a fault injected by setDown or blockUser. */
  injectedFault?: boolean;
  /** The chat of a call whose parameters name none (a callback answer: the chat of the press). */
  chatId?: number;
}

export interface CallbackAnswer {
  callbackQueryId: string;
  text?: string;
  showAlert?: boolean;
  url?: string;
}

export type FakeEventKind =
  "message" | "edit" | "delete" | "callback_answer" | "call" | "user_message" | "inline_answer";

/** Something that happened, numbered from 1 so a browser can resume an event stream (Last-Event-ID). */
export interface FakeEvent {
  id: number;
  kind: FakeEventKind;
  chatId?: number;
  /** A snapshot taken when the event happened. */
  message?: ChatMessage;
  call?: ApiCall;
  callbackAnswer?: CallbackAnswer;
  inlineAnswer?: InlineAnswer;
}

/** An inline query a user sent and, once the bot answered it, the results as Telegram shows them. */
export interface InlineQueryRecord {
  id: string;
  userId: number;
  query: string;
  /** The chat type Telegram reports for where the query was typed. */
  chatType: "sender" | "private" | "group";
  createdAt: number;
  answer?: InlineAnswer;
}

/** The bot's answer to an inline query, as validated by answerInlineQuery. */
export interface InlineAnswer {
  inlineQueryId: string;
  results: InlineResult[];
  cacheTime: number;
  isPersonal: boolean;
  button?: { text: string; startParameter: string };
}

/** One result: what the list shows (title, description) and the message it sends when chosen. */
export interface InlineResult {
  id: string;
  type: string;
  title: string;
  description?: string;
  /** The message sent into the chat when the result is chosen. */
  message: { text: string; html?: string; entities?: MessageEntityLike[] };
  replyMarkup?: InlineKeyboardMarkupLike;
}

export type DownMode = null | "refuse" | "5xx";

export interface SentUserMessage {
  updateId: number;
  messageId: number;
  chatId: number;
}

export interface PressedButton {
  updateId: number;
  callbackQueryId: string;
}

export interface FakeTelegram {
  /** Serves /bot<token>/<method> and /file/bot<token>/<file_path>. */
  app: Hono;
  /** The user types a message; queued as an Update for the bot. */
  sendText(user: FakeUser, text: string, options?: { chat?: "private" | "group"; groupId?: number }): SentUserMessage;
  /** The user presses the callback button carrying `callbackData` on a bot message. */
  pressButton(user: FakeUser, messageId: number, callbackData: string, options?: { chatId?: number }): PressedButton;
  /**
   * The user presses the button labelled `label` on the newest bot message in their private chat
   * that has one (or on `messageId`). Throws, listing the buttons seen, when there is none.
   */
  pressButtonByLabel(
    user: FakeUser,
    label: string | RegExp,
    options?: { messageId?: number },
  ): PressedButton & { messageId: number };
  /** Queues a raw update (its update_id is replaced); returns the update_id. */
  injectUpdate(update: object): number;
  /**
   * The user types `@bot query` in a chat: an inline_query update. Throws when inline mode is off
   * (Telegram offers the bot no inline mode then).
   */
  sendInlineQuery(
    user: FakeUser,
    query: string,
    options?: { chatType?: "sender" | "private" | "group" },
  ): { updateId: number; inlineQueryId: string };
  /** The bot's answer to an inline query, once it gave one. */
  inlineAnswer(inlineQueryId: string): InlineAnswer | undefined;
  /**
   * The user taps one of the answered results: its message is sent into the chat, by the user and
   * "via" the bot. In the user's private chat with the bot (the default) the bot receives it.
   */
  chooseInlineResult(
    user: FakeUser,
    inlineQueryId: string,
    resultId: string,
    options?: { chatId?: number },
  ): ChatMessage;
  /**
   * The user opens `t.me/<bot>?start=<payload>` (or `tg://resolve?domain=<bot>&start=<payload>`):
   * the client sends "/start <payload>" in the private chat, as Telegram does.
   */
  openDeepLink(user: FakeUser, url: string): SentUserMessage;
  /** Turns inline mode on or off, as BotFather's /setinline does (getMe reports it). */
  setInlineMode(enabled: boolean): void;
  /** Every message of a chat in order, including deleted ones and the user's own. */
  messages(chatId: number): ChatMessage[];
  /** Every Bot API call the bot made, in order. */
  readonly calls: ApiCall[];
  /** Calls Telegram itself would have refused (not injected faults, not 429s). */
  rejectedCalls(): ApiCall[];
  readonly callbackAnswers: CallbackAnswer[];
  /** Commands set for the default scope and this language ("" or undefined: no language). */
  commands(languageCode?: string): Array<{ command: string; description: string }>;
  /** The command menu the user of this private chat sees with this Telegram language, as Telegram picks it among the scopes. */
  commandMenu(chatId: number, languageCode?: string): Array<{ command: string; description: string }>;
  readonly webhook: { url: string; secretToken?: string } | null;
  subscribe(listener: (event: FakeEvent) => void): () => void;
  /** Events with an id greater than `eventId`. */
  eventsSince(eventId: number): FakeEvent[];
  setDown(mode: DownMode): void;
  blockUser(userId: number): void;
  /** Makes a group (or supergroup) with its people and the bot's status in it (default: a member). */
  createGroup(spec: GroupSpec): FakeGroup;
  /** The reply keyboard a chat shows now (the chat picker among its buttons), if any. */
  replyKeyboard(
    chatId: number,
  ): { buttons: Array<{ text: string; request_chat?: { request_id: number } }>; oneTime: boolean } | undefined;
  /** The group as the fake holds it now (members, the bot's status, the supergroup it became). */
  group(chatId: number): FakeGroup | undefined;
  /** Someone adds the bot to a group: my_chat_member (left → member), then the service message with new_chat_members. */
  addBotToGroup(groupId: number, by: FakeUser): number;
  /** An admin restricts the bot so it may not send messages (or lifts that): my_chat_member. */
  restrictBot(groupId: number, by: FakeUser, canSend: boolean): number;
  /** Someone removes the bot ("kicked") or it is made to leave ("left"): my_chat_member. */
  removeBotFromGroup(groupId: number, by: FakeUser, status?: "left" | "kicked"): number;
  /** A member's status changes (an admin demoted to "member", someone leaves). No update: the bot learns it by asking. */
  setMemberStatus(groupId: number, user: FakeUser, status: MemberStatus): void;
  /** The group becomes a supergroup: service messages with migrate_to_chat_id / migrate_from_chat_id; the old id answers 400 with the new one. */
  migrateGroup(groupId: number, by: FakeUser): FakeGroup;
  /**
   * The user taps the chat picker (a request_chat button of their private chat's reply keyboard)
   * and picks the group: chat_shared in the private chat. Throws when the picker would not list
   * it (the user not an admin, the bot not a member), unless `unchecked`.
   */
  shareChat(user: FakeUser, groupId: number, options?: { unchecked?: boolean }): SentUserMessage;
  /** Answers pending getUpdates with [] and stops webhook delivery. */
  close(): void;
}

// Groups as the fake knows them: members and their statuses, the bot's own membership, and the
// supergroup a group became.

export type MemberStatus = "creator" | "administrator" | "member" | "restricted" | "left" | "kicked";

export interface FakeGroup {
  id: number;
  type: "group" | "supergroup";
  title: string;
  /** Members by user id (people); anyone not here has left. */
  members: Map<number, { user: FakeUser; status: MemberStatus }>;
  /** The bot's own status in the group. */
  botStatus: MemberStatus;
  /** With botStatus "restricted": whether the bot may still send messages (default yes). */
  botCanSend?: boolean;
  /** The supergroup this group became (sends to the old id are refused with its id). */
  migratedTo?: number;
}

/** A group as a test makes it: its people and their statuses, and whether the bot is in it. */
export interface GroupSpec {
  id?: number;
  title?: string;
  type?: "group" | "supergroup";
  members: Array<{ user: FakeUser; status: MemberStatus }>;
  /** The bot's status (default "member"; "left": not in the group). */
  bot?: MemberStatus;
}
