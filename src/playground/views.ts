import type { ApiCall, CallbackAnswer, ChatMessage, FakeEvent } from "#src/telegram-fake/index";

/** A chat message as the browser and scripts see it: photo bytes become a URL. */
export interface MessageView {
  messageId: number;
  chatId: number;
  from: "bot" | "user";
  text?: string;
  html?: string;
  caption?: string;
  entities?: ChatMessage["entities"];
  photo?: { src: string | null; width?: number; height?: number; url?: string; bytes: number };
  replyMarkup?: ChatMessage["replyMarkup"];
  edited: boolean;
  deleted: boolean;
  date: number;
}

/** A call Telegram refused, placed in the chat after the message that was newest when it happened. */
export interface RejectionView {
  seq: number;
  chatId: number;
  afterMessageId: number;
  method: string;
  errorCode?: number;
  description: string;
  at: number;
}

export interface CallView {
  seq: number;
  at: number;
  method: string;
  chatId?: number;
  summary: string;
  /** sendChatAction's action ("typing"), shown in the chat's header. */
  action?: string;
  ok: boolean;
  errorCode?: number;
  description?: string;
  throttled?: boolean;
  injectedFault?: boolean;
}

export type EventView =
  | { id: number; kind: "message" | "edit" | "delete" | "user_message"; chatId: number; message: MessageView }
  | { id: number; kind: "callback_answer"; chatId?: number; callbackAnswer: CallbackAnswer }
  | { id: number; kind: "call"; chatId?: number; call: CallView; rejection?: RejectionView };

export function photoPath(chatId: number, messageId: number): string {
  return `/play/api/photo/${chatId}/${messageId}`;
}

export function messageView(message: ChatMessage): MessageView {
  const { photo, service, ...rest } = message;
  const view: MessageView = { ...rest };
  // A service message (the chat picker's answer) shows what Telegram's app shows, never an empty bubble.
  if (service !== undefined && view.text === undefined && view.caption === undefined) {
    view.text = service;
    view.entities = [{ type: "italic", offset: 0, length: service.length }];
  }
  if (photo) {
    view.photo = {
      // The file id changes when the photo is replaced (editMessageMedia): the browser's cached copy must not be shown.
      src:
        photo.bytes.length > 0
          ? `${photoPath(message.chatId, message.messageId)}?file=${encodeURIComponent(photo.fileId)}`
          : null,
      bytes: photo.bytes.length,
      ...(photo.width !== undefined ? { width: photo.width } : {}),
      ...(photo.height !== undefined ? { height: photo.height } : {}),
      ...(photo.url ? { url: photo.url } : {}),
    };
  }
  return view;
}

/** The chat a call was about, when it names one (or answers a press in one). */
export function callChatId(call: ApiCall): number | undefined {
  if (call.chatId !== undefined) return call.chatId;
  const raw = call.params.chat_id;
  const id = typeof raw === "number" ? raw : typeof raw === "string" && /^-?\d+$/.test(raw) ? Number(raw) : undefined;
  return id;
}

/** Telegram would have refused it (not a 429, not a fault the playground injected). */
export function isRejection(call: ApiCall): boolean {
  return !call.ok && !call.throttled && !call.injectedFault;
}

const clip = (value: string, max = 60) => (value.length > max ? `${value.slice(0, max - 1)}…` : value);

/** A one-line digest of a call's parameters for the log. */
export function callSummary(call: ApiCall): string {
  const p = call.params;
  const parts: string[] = [];
  const chatId = callChatId(call);
  if (chatId !== undefined) parts.push(`chat ${chatId}`);
  if (p.message_id !== undefined) parts.push(`msg ${String(p.message_id)}`);
  for (const key of ["text", "caption"]) {
    if (typeof p[key] === "string") parts.push(JSON.stringify(clip((p[key] as string).replace(/\s+/g, " "))));
  }
  if (typeof p.callback_query_id === "string") parts.push(`query …${p.callback_query_id.slice(-4)}`);
  if (call.method === "answerCallbackQuery" && typeof p.text === "string") parts.push("(toast)");
  if (p.photo && typeof p.photo === "object")
    parts.push(`photo ${String((p.photo as { bytes?: unknown }).bytes ?? "?")} bytes`);
  if (p.reply_markup !== undefined) parts.push("+keyboard");
  if (call.method === "setMyCommands") {
    const commands = Array.isArray(p.commands) ? p.commands.length : "?";
    parts.push(`${commands} commands${typeof p.language_code === "string" ? ` (${p.language_code})` : ""}`);
  }
  if (call.method === "getUpdates" && p.offset !== undefined) parts.push(`offset ${String(p.offset)}`);
  return parts.join(" · ");
}

export function callView(call: ApiCall): CallView {
  const chatId = callChatId(call);
  return {
    seq: call.seq,
    at: call.at,
    method: call.method,
    ...(chatId !== undefined ? { chatId } : {}),
    summary: callSummary(call),
    ...(call.method === "sendChatAction" && typeof call.params.action === "string"
      ? { action: call.params.action }
      : {}),
    ok: call.ok,
    ...(call.errorCode !== undefined ? { errorCode: call.errorCode } : {}),
    ...(call.description !== undefined ? { description: call.description } : {}),
    ...(call.throttled ? { throttled: true } : {}),
    ...(call.injectedFault ? { injectedFault: true } : {}),
  };
}

export function eventView(event: FakeEvent, rejection: RejectionView | undefined): EventView | null {
  if (event.kind === "call" && event.call) {
    const call = callView(event.call);
    return {
      id: event.id,
      kind: "call",
      ...(call.chatId !== undefined ? { chatId: call.chatId } : {}),
      call,
      ...(rejection ? { rejection } : {}),
    };
  }
  if (event.kind === "callback_answer" && event.callbackAnswer) {
    return {
      id: event.id,
      kind: "callback_answer",
      ...(event.chatId !== undefined ? { chatId: event.chatId } : {}),
      callbackAnswer: event.callbackAnswer,
    };
  }
  if (event.message && event.kind !== "call" && event.kind !== "callback_answer" && event.kind !== "inline_answer") {
    return { id: event.id, kind: event.kind, chatId: event.message.chatId, message: messageView(event.message) };
  }
  return null;
}

/** A plain-text export of a chat, one block per message, oldest first. */
export function transcriptText(messages: MessageView[], rejections: RejectionView[], title: string): string {
  const lines: string[] = [title, ""];
  const time = (seconds: number) => new Date(seconds * 1000).toISOString().replace("T", " ").slice(0, 19);
  const rejectionsAfter = (messageId: number) => rejections.filter((r) => r.afterMessageId === messageId);
  const pushRejections = (messageId: number) => {
    for (const r of rejectionsAfter(messageId))
      lines.push(`!! ${r.method} rejected: ${r.errorCode ?? ""} ${r.description}`.replace(/ {2}/, " "), "");
  };
  pushRejections(0);
  for (const message of messages) {
    const marks = [message.edited ? "edited" : "", message.deleted ? "deleted" : ""].filter(Boolean).join(", ");
    lines.push(
      `[${time(message.date)}] ${message.from === "bot" ? "Bot" : "You"} #${message.messageId}${marks ? ` (${marks})` : ""}:`,
    );
    if (message.photo)
      lines.push(`  [photo${message.photo.width ? ` ${message.photo.width}x${message.photo.height}` : ""}]`);
    const body = message.text ?? message.caption;
    if (body) for (const line of body.split("\n")) lines.push(`  ${line}`);
    for (const row of message.replyMarkup?.inline_keyboard ?? [])
      lines.push(`  ${row.map((button) => `[${button.text}]`).join(" ")}`);
    lines.push("");
    pushRejections(message.messageId);
  }
  return `${lines.join("\n").trimEnd()}\n`;
}
