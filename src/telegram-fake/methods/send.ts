import { badRequest } from "../api-error";
import { imageExtension, imageSize } from "../image-size";
import { readCaption, readMessageText } from "../message-content";
import {
  botMessageJson,
  emitMessageEvent,
  nowSeconds,
  sendTarget,
  targetChat,
  type MethodHandler,
} from "../method-context";
import { readString, requireChatId } from "../param-readers";
import { readReplyMarkup } from "../reply-markup";
import { rememberReplyKeyboard } from "../request-chat";
import { UploadedFile, type Params } from "../request-params";
import type { MethodContext } from "../method-context";

const CHAT_ACTIONS = new Set([
  "typing",
  "upload_photo",
  "record_video",
  "upload_video",
  "record_voice",
  "upload_voice",
  "upload_document",
  "choose_sticker",
  "find_location",
  "record_video_note",
  "upload_video_note",
]);

export const sendMessage: MethodHandler = (context, params) => {
  const chat = sendTarget(context, requireChatId(params));
  const content = readMessageText(params);
  const replyMarkup = readReplyMarkup(params, false);
  context.rateLimiter.take(chat.id);
  rememberReplyKeyboard(context.state.replyKeyboards, chat, params);
  const message = context.state.addMessage({
    chatId: chat.id,
    from: "bot",
    text: content.text,
    ...(content.html !== undefined ? { html: content.html } : {}),
    ...(content.entities ? { entities: content.entities } : {}),
    ...(replyMarkup ? { replyMarkup } : {}),
    edited: false,
    deleted: false,
    date: nowSeconds(context),
  });
  emitMessageEvent(context, "message", message);
  return botMessageJson(context, message, chat);
};

export const sendPhoto: MethodHandler = (context, params) => {
  const chat = sendTarget(context, requireChatId(params));
  const photo = readPhoto(context, params);
  const caption = readCaption(params);
  const replyMarkup = readReplyMarkup(params, false);
  context.rateLimiter.take(chat.id);
  const size = imageSize(photo.bytes);
  const message = context.state.addMessage({
    chatId: chat.id,
    from: "bot",
    photo: { fileId: photo.fileId, bytes: photo.bytes, ...size, ...(photo.url ? { url: photo.url } : {}) },
    ...(caption ? { caption: caption.text } : {}),
    ...(caption?.html !== undefined ? { html: caption.html } : {}),
    ...(caption?.entities ? { entities: caption.entities } : {}),
    ...(replyMarkup ? { replyMarkup } : {}),
    edited: false,
    deleted: false,
    date: nowSeconds(context),
  });
  emitMessageEvent(context, "message", message);
  return botMessageJson(context, message, chat);
};

/** An upload, a file_id the fake issued, or an http(s) URL (stored without fetching it). */
export function readPhoto(context: MethodContext, params: Params): { fileId: string; bytes: Uint8Array; url?: string } {
  const photo = params.photo;
  if (photo instanceof UploadedFile) {
    if (photo.bytes.length === 0) throw badRequest("file must be non-empty");
    const file = context.state.storeFile(photo.bytes, imageExtension(photo.bytes));
    return { fileId: file.fileId, bytes: file.bytes };
  }
  const reference = readString(params, "photo");
  if (!reference) throw badRequest("there is no photo in the request");
  const known = context.state.fileById(reference);
  if (known) return { fileId: known.fileId, bytes: known.bytes };
  if (/^https?:\/\/\S+$/i.test(reference) && URL.canParse(reference)) {
    const file = context.state.storeFile(new Uint8Array(), "jpg");
    return { fileId: file.fileId, bytes: file.bytes, url: reference };
  }
  throw badRequest("wrong file identifier/HTTP URL specified");
}

export const sendChatAction: MethodHandler = (context, params) => {
  targetChat(context, requireChatId(params));
  const action = readString(params, "action");
  if (!action || !CHAT_ACTIONS.has(action)) throw badRequest("wrong parameter action in request");
  return true;
};
