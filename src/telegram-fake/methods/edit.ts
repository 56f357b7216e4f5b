import { badRequest } from "../api-error";
import type { ChatMessage } from "../types";
import { readCaption, readMessageText, type FormattedText } from "../message-content";
import { botMessageJson, emitMessageEvent, nowSeconds, targetChat } from "../method-context";
import type { MethodContext, MethodHandler } from "../method-context";
import { readString, requireChatId, requireMessageId } from "../param-readers";
import { readReplyMarkup } from "../reply-markup";
import type { Params } from "../request-params";

const NOT_MODIFIED =
  "message is not modified: specified new message content and reply markup are exactly the same as a current content and reply markup of the message";
const DELETE_WINDOW_SECONDS = 48 * 3600;

type Change = Pick<ChatMessage, "text" | "caption" | "html" | "entities" | "replyMarkup">;

export const editMessageText: MethodHandler = (context, params) =>
  edit(context, params, (message) => {
    if (message.text === undefined) throw badRequest("there is no text in the message to edit");
    return { ...contentChange(readMessageText(params), "text"), replyMarkup: readReplyMarkup(params, true) };
  });

export const editMessageCaption: MethodHandler = (context, params) =>
  edit(context, params, (message) => {
    if (message.photo === undefined) throw badRequest("there is no caption in the message to edit");
    const caption = readCaption(params);
    const change = caption ? contentChange(caption, "caption") : { caption: undefined, html: undefined, entities: undefined };
    return { ...change, replyMarkup: readReplyMarkup(params, true) };
  });

// An edit without reply_markup removes the keyboard, exactly as on Telegram.
export const editMessageReplyMarkup: MethodHandler = (context, params) =>
  edit(context, params, () => ({ replyMarkup: readReplyMarkup(params, true) }));

export const deleteMessage: MethodHandler = (context, params) => {
  const chat = targetChat(context, requireChatId(params));
  const message = context.state.findMessage(chat.id, requireMessageId(params));
  if (!message || message.deleted) throw badRequest("message to delete not found");
  if (nowSeconds(context) - message.date > DELETE_WINDOW_SECONDS) {
    throw badRequest("message can't be deleted for everyone");
  }
  message.deleted = true;
  emitMessageEvent(context, "delete", message);
  return true;
};

function edit(context: MethodContext, params: Params, changeFor: (message: ChatMessage) => Change): unknown {
  if (readString(params, "inline_message_id")) throw badRequest("message to edit not found");
  const chat = targetChat(context, requireChatId(params));
  const message = context.state.findMessage(chat.id, requireMessageId(params));
  if (!message || message.deleted) throw badRequest("message to edit not found");
  if (message.from !== "bot") throw badRequest("message can't be edited");
  const change = changeFor(message);
  const next: ChatMessage = { ...message, ...change };
  if (sameContent(message, next)) throw badRequest(NOT_MODIFIED);
  Object.assign(message, change, { edited: true });
  for (const key of Object.keys(change) as Array<keyof Change>) if (change[key] === undefined) delete message[key];
  emitMessageEvent(context, "edit", message);
  return botMessageJson(context, message, chat);
}

function contentChange(content: FormattedText, field: "text" | "caption"): Change {
  return { [field]: content.text, html: content.html, entities: content.entities };
}

function sameContent(before: ChatMessage, after: ChatMessage): boolean {
  const visible = (message: ChatMessage) =>
    JSON.stringify([message.text, message.caption, message.entities ?? [], message.replyMarkup ?? null]);
  return visible(before) === visible(after);
}
