import type { KnownChat, StoredFile } from "./fake-state";
import type { ChatMessage, FakeUser } from "./types";

export interface BotIdentity {
  id: number;
  username: string;
}

/** The bot as a Telegram User object (getMe, `from` of its messages). */
export function botUserJson(bot: BotIdentity, full = false): Record<string, unknown> {
  const user = { id: bot.id, is_bot: true, first_name: "Energy Sandbox", username: bot.username };
  if (!full) return user;
  return {
    ...user,
    can_join_groups: true,
    can_read_all_group_messages: false,
    supports_inline_queries: false,
    can_connect_to_business: false,
    has_main_web_app: false,
  };
}

export function userJson(user: FakeUser): Record<string, unknown> {
  return {
    id: user.id,
    is_bot: false,
    first_name: user.firstName ?? "Test",
    ...(user.username ? { username: user.username } : {}),
    ...(user.languageCode ? { language_code: user.languageCode } : {}),
  };
}

export function chatJson(chat: KnownChat): Record<string, unknown> {
  if (chat.type !== "private") return { id: chat.id, type: chat.type, title: chat.title ?? "Group" };
  return {
    id: chat.id,
    type: "private",
    first_name: chat.firstName ?? "Test",
    ...(chat.username ? { username: chat.username } : {}),
  };
}

export function photoSizesJson(file: StoredFile, width = 0, height = 0): Record<string, unknown>[] {
  return [{ file_id: file.fileId, file_unique_id: file.fileUniqueId, file_size: file.bytes.length, width, height }];
}

/** A stored message as the Bot API's Message object. */
export function messageJson(
  message: ChatMessage,
  chat: KnownChat,
  from: Record<string, unknown>,
  photoFile?: StoredFile,
): Record<string, unknown> {
  const json: Record<string, unknown> = {
    message_id: message.messageId,
    from,
    chat: chatJson(chat),
    date: message.date,
  };
  if (message.viaBot) json.via_bot = botUserJson(message.viaBot);
  if (message.text !== undefined) json.text = message.text;
  if (message.caption !== undefined) json.caption = message.caption;
  if (message.entities?.length) json[message.photo ? "caption_entities" : "entities"] = message.entities;
  if (message.photo && photoFile) json.photo = photoSizesJson(photoFile, message.photo.width, message.photo.height);
  if (message.replyMarkup) json.reply_markup = message.replyMarkup;
  return json;
}
