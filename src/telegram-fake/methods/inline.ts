import { badRequest } from "../api-error";
import { readMessageText } from "../message-content";
import type { MethodHandler } from "../method-context";
import { readBoolean, readInteger, readObject, readString } from "../param-readers";
import { readReplyMarkup } from "../reply-markup";
import type { InlineAnswer, InlineResult } from "../types";

const QUERY_INVALID = "query is too old and response timeout expired or query ID is invalid";
/** Telegram drops an inline query the bot has not answered within about 10 s. */
export const INLINE_ANSWER_WINDOW_MS = 10_000;
const MAX_RESULTS = 50;
const DEFAULT_CACHE_SECONDS = 300;
const RESULT_TYPES = new Set([
  "article",
  "photo",
  "gif",
  "mpeg4_gif",
  "video",
  "audio",
  "voice",
  "document",
  "location",
  "venue",
  "contact",
  "game",
  "sticker",
]);

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/**
 * answerInlineQuery with Telegram's rules: a query answered once, within 10 s; at most 50 results
 * with unique ids of 1–64 bytes; each article with a title and a message Telegram can parse; an
 * inline keyboard only; a non-negative cache_time; a button's start parameter as deep links allow.
 */
export const answerInlineQuery: MethodHandler = (context, params) => {
  const id = readString(params, "inline_query_id") ?? "";
  const query = context.state.inlineQueries.get(id);
  if (!query || query.answer || context.now() - query.createdAt > INLINE_ANSWER_WINDOW_MS)
    throw badRequest(QUERY_INVALID);
  const raw = readObject(params, "results", "can't parse inline query results JSON object");
  if (!Array.isArray(raw)) throw badRequest("can't parse inline query results JSON object");
  if (raw.length > MAX_RESULTS) throw badRequest("RESULTS_TOO_MUCH");
  const seen = new Set<string>();
  const results = raw.map((entry) => {
    const result = readResult(entry);
    if (seen.has(result.id)) throw badRequest("RESULT_ID_DUPLICATE");
    seen.add(result.id);
    return result;
  });
  const cacheTime = readInteger(params, "cache_time") ?? DEFAULT_CACHE_SECONDS;
  if (cacheTime < 0) throw badRequest('field "cache_time" must be a non-negative Integer');
  const button = readButton(readObject(params, "button", "can't parse inline query results button JSON object"));
  const answer: InlineAnswer = {
    inlineQueryId: id,
    results,
    cacheTime,
    isPersonal: readBoolean(params, "is_personal"),
    ...(button ? { button } : {}),
  };
  query.answer = answer;
  context.events.emit({ kind: "inline_answer", inlineAnswer: answer });
  return true;
};

function readResult(entry: unknown): InlineResult {
  if (!isRecord(entry)) throw badRequest("can't parse inline query result JSON object");
  const type = typeof entry.type === "string" ? entry.type : "";
  if (!RESULT_TYPES.has(type)) throw badRequest("RESULT_TYPE_INVALID");
  const id = typeof entry.id === "string" ? entry.id : "";
  const bytes = new TextEncoder().encode(id).length;
  if (bytes < 1 || bytes > 64) throw badRequest("RESULT_ID_INVALID");
  // The fake renders articles only (the bot sends nothing else); other types are checked for an id alone.
  const title = typeof entry.title === "string" ? entry.title : "";
  if (type === "article" && title.trim() === "") throw badRequest("RESULT_TITLE_EMPTY");
  const content = entry.input_message_content;
  if (type === "article" && !isRecord(content))
    throw badRequest('can\'t parse InputMessageContent: field "message_text" must be of type String');
  const message = isRecord(content)
    ? readMessageText({ text: content.message_text, parse_mode: content.parse_mode, entities: content.entities })
    : { text: "" };
  const replyMarkup = readReplyMarkup({ reply_markup: entry.reply_markup }, true);
  return {
    id,
    type,
    title,
    ...(typeof entry.description === "string" ? { description: entry.description } : {}),
    message,
    ...(replyMarkup ? { replyMarkup } : {}),
  };
}

function readButton(button: unknown): InlineAnswer["button"] {
  if (button === undefined) return undefined;
  if (!isRecord(button) || typeof button.text !== "string" || button.text.trim() === "")
    throw badRequest("BUTTON_TEXT_INVALID");
  const start = button.start_parameter;
  if (typeof start !== "string" || !/^[A-Za-z0-9_-]{1,64}$/.test(start)) throw badRequest("START_PARAM_INVALID");
  return { text: button.text, startParameter: start };
}
