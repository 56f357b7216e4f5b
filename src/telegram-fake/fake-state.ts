import { badRequest } from "./api-error";
import type { ChatMessage, InlineQueryRecord } from "./types";
import type { ReplyKeyboard } from "./request-chat";

export interface KnownChat {
  id: number;
  type: "private" | "group" | "supergroup";
  firstName?: string;
  username?: string;
  title?: string;
}

export interface StoredFile {
  fileId: string;
  fileUniqueId: string;
  filePath: string;
  bytes: Uint8Array;
}

export interface CallbackQueryRecord {
  id: string;
  createdAt: number;
  answered: boolean;
  /** The chat of the pressed message, when known. */
  chatId?: number;
}

export type BotCommand = { command: string; description: string };

/** What the fake remembers: chats it has seen, their messages, files and settings. */
export function createFakeState() {
  const chats = new Map<number, KnownChat>();
  const messagesByChat = new Map<number, ChatMessage[]>();
  const filesById = new Map<string, StoredFile>();
  const filesByPath = new Map<string, StoredFile>();
  let fileCounter = 0;
  let callbackCounter = 0;
  let inlineCounter = 0;

  return {
    chats,
    callbackQueries: new Map<string, CallbackQueryRecord>(),
    /** Keyed by `commandsKey(scope, languageCode)`. */
    commands: new Map<string, BotCommand[]>(),
    menuButtons: new Map<string, unknown>(),
    /** The bot's description and short description, keyed by language code ("" for the default). */
    descriptions: new Map<string, string>(),
    shortDescriptions: new Map<string, string>(),
    webhook: null as { url: string; secretToken?: string } | null,
    /** Telegram's last failed delivery to the webhook (getWebhookInfo's last_error_date, in Unix seconds, and message). */
    webhookLastError: null as { date: number; message: string } | null,
    blockedUsers: new Set<number>(),
    /** BotFather's /setinline: whether people can send the bot inline queries. */
    inlineMode: true,
    inlineQueries: new Map<string, InlineQueryRecord>(),
    /** The reply keyboard each chat shows (the chat picker among its buttons). */
    replyKeyboards: new Map<number, ReplyKeyboard>(),

    rememberChat(chat: KnownChat): void {
      chats.set(chat.id, { ...chats.get(chat.id), ...chat });
    },
    /** The chat, or Telegram's 400 for a chat the bot cannot know. */
    requireChat(chatId: number): KnownChat {
      const chat = chats.get(chatId);
      if (!chat) throw badRequest("chat not found");
      return chat;
    },
    messages(chatId: number): ChatMessage[] {
      let list = messagesByChat.get(chatId);
      if (!list) messagesByChat.set(chatId, (list = []));
      return list;
    },
    /** Message ids count up per chat, shared by both sides, as in a private chat. */
    addMessage(message: Omit<ChatMessage, "messageId">): ChatMessage {
      const list = this.messages(message.chatId);
      const stored: ChatMessage = { messageId: list.length + 1, ...message };
      list.push(stored);
      return stored;
    },
    findMessage(chatId: number, messageId: number): ChatMessage | undefined {
      return messagesByChat.get(chatId)?.find((message) => message.messageId === messageId);
    },
    storeFile(bytes: Uint8Array, extension: string): StoredFile {
      fileCounter += 1;
      const file: StoredFile = {
        fileId: `AgACAgFake${String(fileCounter).padStart(6, "0")}`,
        fileUniqueId: `AQADFake${fileCounter}`,
        filePath: `photos/file_${fileCounter}.${extension}`,
        bytes,
      };
      filesById.set(file.fileId, file);
      filesByPath.set(file.filePath, file);
      return file;
    },
    fileById: (fileId: string) => filesById.get(fileId),
    fileByPath: (filePath: string) => filesByPath.get(filePath),
    nextInlineQueryId(): string {
      inlineCounter += 1;
      return `${5000000000000000000n + BigInt(inlineCounter)}`;
    },
    nextCallbackQueryId(): string {
      callbackCounter += 1;
      return `${4000000000000000000n + BigInt(callbackCounter)}`;
    },
  };
}

export type FakeState = ReturnType<typeof createFakeState>;

const SCOPE_TYPES = new Set([
  "default",
  "all_private_chats",
  "all_group_chats",
  "all_chat_administrators",
  "chat",
  "chat_administrators",
  "chat_member",
]);

/** A BotCommandScope as Telegram reads it (no scope: the default one); 400 for one it cannot. */
export function readCommandScope(scope: unknown): { type: string; chatId?: number | string; userId?: number } {
  const {
    type,
    chat_id: chatId,
    user_id: userId,
  } = (typeof scope === "object" && scope !== null ? scope : { type: "default" }) as Record<string, unknown>;
  if (typeof type !== "string" || !SCOPE_TYPES.has(type)) throw badRequest("can't parse BotCommandScope JSON object");
  if (!type.startsWith("chat")) return { type };
  const chat =
    typeof chatId === "number" || (typeof chatId === "string" && /^-?\d+$/.test(chatId))
      ? Number(chatId)
      : typeof chatId === "string" && chatId.startsWith("@")
        ? chatId
        : undefined;
  if (chat === undefined) throw badRequest("can't parse BotCommandScope JSON object");
  if (type !== "chat_member") return { type, chatId: chat };
  if (!Number.isSafeInteger(Number(userId))) throw badRequest("can't parse BotCommandScope JSON object");
  return { type, chatId: chat, userId: Number(userId) };
}

/** The key of one command list: its scope (however its JSON was written) and language. */
export function commandsKey(scope: unknown, languageCode: string | undefined): string {
  const { type, chatId, userId } = readCommandScope(scope);
  return `${type}:${chatId ?? ""}:${userId ?? ""}|${languageCode ?? ""}`;
}

/**
 * The command menu a user sees in their private chat with the bot, as Telegram picks it: the
 * first list set of the chat's scope, all private chats, then the default, each in the user's
 * language first, then without a language.
 */
export function commandMenuFor(
  lists: Map<string, BotCommand[]>,
  chatId: number,
  languageCode: string | undefined,
): BotCommand[] {
  const language = languageCode || undefined;
  for (const scope of [{ type: "chat", chat_id: chatId }, { type: "all_private_chats" }, { type: "default" }]) {
    for (const code of language ? [language, undefined] : [undefined]) {
      const list = lists.get(commandsKey(scope, code));
      if (list && list.length > 0) return [...list];
    }
  }
  return [];
}
