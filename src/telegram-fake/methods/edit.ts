import { badRequest } from "../api-error";
import type { ChatMessage } from "../types";
import { readCaption, readMessageText, type FormattedText } from "../message-content";
import { botMessageJson, emitMessageEvent, nowSeconds, targetChat } from "../method-context";
import type { MethodContext, MethodHandler } from "../method-context";
import { readObject, readString, requireChatId, requireMessageId } from "../param-readers";
import { readReplyMarkup } from "../reply-markup";
import { UploadedFile, type Params } from "../request-params";
import { imageSize } from "../image-size";
import { readPhoto } from "./send";

const NOT_MODIFIED =
  "message is not modified: specified new message content and reply markup are exactly the same as a current content and reply markup of the message";
const DELETE_WINDOW_SECONDS = 48 * 3600;

type Change = Pick<ChatMessage, "text" | "caption" | "html" | "entities" | "replyMarkup" | "photo">;

export const editMessageText: MethodHandler = (context, params) =>
  edit(context, params, (message) => {
    if (message.text === undefined) throw badRequest("there is no text in the message to edit");
    return { ...contentChange(readMessageText(params), "text"), replyMarkup: readReplyMarkup(params, true) };
  });

export const editMessageCaption: MethodHandler = (context, params) =>
  edit(context, params, (message) => {
    if (message.photo === undefined) throw badRequest("there is no caption in the message to edit");
    const caption = readCaption(params);
    const change = caption
      ? contentChange(caption, "caption")
      : { caption: undefined, html: undefined, entities: undefined };
    return { ...change, replyMarkup: readReplyMarkup(params, true) };
  });

/**
 * Replaces a photo message's photo and caption (photos only: the bot sends no other media). The
 * new file is an upload named by `attach://<name>`, a known file_id or a URL; the caption and its
 * parse_mode travel inside the InputMedia object, as on Telegram.
 */
export const editMessageMedia: MethodHandler = (context, params) =>
  edit(context, params, (message) => {
    const media = readObject(params, "media", "can't parse InputMedia JSON object");
    if (media === undefined) throw badRequest("media not specified");
    if (typeof media !== "object" || media === null || Array.isArray(media))
      throw badRequest("can't parse InputMedia JSON object");
    const fields = media as Params;
    if (fields.type !== "photo") throw badRequest("unsupported media type: the fake edits photos only");
    if (message.photo === undefined) throw badRequest("there is no media in the message to edit");
    const reference = fields.media;
    const attached =
      typeof reference === "string" && reference.startsWith("attach://") ? params[reference.slice(9)] : undefined;
    if (typeof reference === "string" && reference.startsWith("attach://") && !(attached instanceof UploadedFile))
      throw badRequest("can't find attached file");
    const photo = readPhoto(context, { photo: attached ?? reference });
    const caption = readCaption(fields);
    const change = caption
      ? contentChange(caption, "caption")
      : { caption: undefined, html: undefined, entities: undefined };
    return {
      ...change,
      photo: {
        fileId: photo.fileId,
        bytes: photo.bytes,
        ...imageSize(photo.bytes),
        ...(photo.url ? { url: photo.url } : {}),
      },
      replyMarkup: readReplyMarkup(params, true),
    };
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
    JSON.stringify([
      message.text,
      message.caption,
      message.entities ?? [],
      message.replyMarkup ?? null,
      message.photo?.fileId ?? null,
    ]);
  return visible(before) === visible(after);
}
