import { badRequest } from "./api-error";
import { readObject } from "./param-readers";
import type { Params } from "./request-params";

// Telegram's chat picker: a reply keyboard button with request_chat, validated as Telegram does,
// and the reply keyboard a private chat shows until it is used (one_time) or removed.

/** A request_chat button as the bot sent it (KeyboardButtonRequestChat). */
export interface RequestChat {
  request_id: number;
  chat_is_channel: boolean;
  chat_is_forum?: boolean;
  chat_has_username?: boolean;
  chat_is_created?: boolean;
  user_administrator_rights?: Record<string, boolean>;
  bot_administrator_rights?: Record<string, boolean>;
  bot_is_member?: boolean;
  request_title?: boolean;
  request_username?: boolean;
  request_photo?: boolean;
}

/** The reply keyboard a chat shows: its buttons, and whether it hides after one use. */
export interface ReplyKeyboard {
  buttons: Array<{ text: string; request_chat?: RequestChat }>;
  oneTime: boolean;
}

/** The fields every ChatAdministratorRights object must carry. */
const REQUIRED_RIGHTS = [
  "is_anonymous",
  "can_manage_chat",
  "can_delete_messages",
  "can_manage_video_chats",
  "can_restrict_members",
  "can_promote_members",
  "can_change_info",
  "can_invite_users",
  "can_post_stories",
  "can_edit_stories",
  "can_delete_stories",
];
const OPTIONAL_FLAGS = [
  "chat_is_forum",
  "chat_has_username",
  "chat_is_created",
  "bot_is_member",
  "request_title",
  "request_username",
  "request_photo",
] as const;

const fieldError = (field: string, type: string) =>
  badRequest(`can't parse keyboard button: Field "${field}" must be of type ${type}`);

/** Validates a KeyboardButtonRequestChat like Telegram. */
export function validateRequestChat(value: unknown): RequestChat {
  if (typeof value !== "object" || value === null || Array.isArray(value)) throw fieldError("request_chat", "Object");
  const request = value as Record<string, unknown>;
  const id = request.request_id;
  if (typeof id !== "number" || !Number.isInteger(id) || id < -2147483648 || id > 2147483647)
    throw fieldError("request_id", "Integer");
  if (typeof request.chat_is_channel !== "boolean") throw fieldError("chat_is_channel", "Boolean");
  for (const flag of OPTIONAL_FLAGS)
    if (request[flag] !== undefined && typeof request[flag] !== "boolean") throw fieldError(flag, "Boolean");
  for (const field of ["user_administrator_rights", "bot_administrator_rights"]) {
    const rights = request[field];
    if (rights === undefined) continue;
    if (typeof rights !== "object" || rights === null) throw fieldError(field, "Object");
    for (const right of REQUIRED_RIGHTS)
      if (typeof (rights as Record<string, unknown>)[right] !== "boolean")
        throw badRequest(`can't parse ChatAdministratorRights: Field "${right}" must be of type Boolean`);
  }
  return request as unknown as RequestChat;
}

/**
 * The reply keyboard a sendMessage sets (or removes) in its chat. request_chat buttons work in
 * private chats only, as in Telegram.
 */
export function rememberReplyKeyboard(
  keyboards: Map<number, ReplyKeyboard>,
  chat: { id: number; type: string },
  params: Params,
): void {
  const markup = readObject(params, "reply_markup", "can't parse reply keyboard markup JSON object") as
    Record<string, unknown> | undefined;
  if (!markup || typeof markup !== "object") return;
  if (markup.remove_keyboard === true) {
    keyboards.delete(chat.id);
    return;
  }
  if (!Array.isArray(markup.keyboard)) return;
  const buttons = (markup.keyboard as unknown[][])
    .flat()
    .map((button) =>
      typeof button === "string" ? { text: button } : (button as { text: string; request_chat?: unknown }),
    );
  const picks = buttons.filter((button) => button.request_chat !== undefined);
  if (picks.length > 0 && chat.type !== "private")
    throw badRequest("BUTTON_TYPE_INVALID: request_chat buttons can be used in private chats only");
  keyboards.set(chat.id, {
    buttons: buttons.map((button) =>
      button.request_chat === undefined
        ? { text: button.text }
        : { text: button.text, request_chat: validateRequestChat(button.request_chat) },
    ),
    oneTime: markup.one_time_keyboard === true,
  });
}
