import { badRequest } from "./api-error";
import type { ChatMessage } from "./types";

export interface KnownChat {
  id: number;
  type: "private" | "group";
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

  return {
    chats,
    callbackQueries: new Map<string, CallbackQueryRecord>(),
    /** Keyed by `commandsKey(scope, languageCode)`. */
    commands: new Map<string, BotCommand[]>(),
    menuButtons: new Map<string, unknown>(),
    webhook: null as { url: string; secretToken?: string } | null,
    blockedUsers: new Set<number>(),

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
    nextCallbackQueryId(): string {
      callbackCounter += 1;
      return `${4000000000000000000n + BigInt(callbackCounter)}`;
    },
  };
}

export type FakeState = ReturnType<typeof createFakeState>;

export function commandsKey(scope: unknown, languageCode: string | undefined): string {
  const scopeType =
    typeof scope === "object" && scope !== null ? JSON.stringify(scope) : JSON.stringify({ type: "default" });
  return `${scopeType}|${languageCode ?? ""}`;
}
