import { TelegramApiError, badRequest } from "./api-error";
import { parseTelegramHtml } from "./html";
import { readString } from "./param-readers";
import type { Params } from "./request-params";
import type { MessageEntityLike } from "./types";

export interface FormattedText {
  /** What the user sees. */
  text: string;
  /** The raw text when parse_mode was HTML. */
  html?: string;
  entities?: MessageEntityLike[];
}

const TEXT_LIMIT = 4096;
const CAPTION_LIMIT = 1024;

/** `text` of sendMessage/editMessageText: required, 1–4096 UTF-16 units after entity parsing. */
export function readMessageText(params: Params): FormattedText {
  const formatted = format(params, readString(params, "text") ?? "", "entities");
  if (formatted.text.trim() === "") throw badRequest("message text is empty");
  if (formatted.text.length > TEXT_LIMIT) throw badRequest("message is too long");
  return formatted;
}

/** `caption` of sendPhoto/editMessageCaption: optional, at most 1024 UTF-16 units after parsing. */
export function readCaption(params: Params): FormattedText | undefined {
  const raw = readString(params, "caption");
  if (raw === undefined || raw === "") return undefined;
  const formatted = format(params, raw, "caption_entities");
  if (formatted.text.length > CAPTION_LIMIT) throw badRequest("message caption is too long");
  return formatted.text.trim() === "" ? undefined : formatted;
}

function format(params: Params, raw: string, entitiesField: string): FormattedText {
  const parseMode = readString(params, "parse_mode") ?? "";
  if (parseMode === "") {
    const entities = params[entitiesField];
    return Array.isArray(entities) ? { text: raw, entities: entities as MessageEntityLike[] } : { text: raw };
  }
  // Telegram also knows Markdown and MarkdownV2; the bot formats with HTML only, so the fake
  // refuses the others rather than pretend to render them.
  if (parseMode.toLowerCase() !== "html") throw badRequest("unsupported parse_mode");
  const parsed = parseTelegramHtml(raw);
  if (!parsed.ok) throw new TelegramApiError(400, parsed.description);
  return { text: parsed.text, html: raw, entities: parsed.entities };
}
