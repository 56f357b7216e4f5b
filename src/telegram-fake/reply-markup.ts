import { badRequest } from "./api-error";
import { readObject } from "./param-readers";
import type { Params } from "./request-params";
import type { InlineButtonLike, InlineKeyboardMarkupLike } from "./types";
import { validateRequestChat } from "./request-chat";

const INLINE_ACTIONS = [
  "callback_data",
  "url",
  "copy_text",
  "login_url",
  "web_app",
  "switch_inline_query",
  "switch_inline_query_current_chat",
  "switch_inline_query_chosen_chat",
  "callback_game",
  "pay",
];
/** Bot API 9.4: a button's colour. Any other value is refused. */
const BUTTON_STYLES = ["success", "danger", "primary"];
const MAX_PER_ROW = 8;
const MAX_BUTTONS = 100;
const MARKUP_INVALID = "can't parse reply keyboard markup JSON object";

/**
 * Validates `reply_markup` like Telegram. Returns the inline keyboard, or undefined when there is
 * none or it is a reply keyboard / removal / force-reply (allowed only when `inlineOnly` is false,
 * as edits take inline keyboards only).
 */
export function readReplyMarkup(params: Params, inlineOnly: boolean): InlineKeyboardMarkupLike | undefined {
  const markup = readObject(params, "reply_markup", MARKUP_INVALID);
  if (markup === undefined) return undefined;
  if (!isRecord(markup)) throw badRequest(MARKUP_INVALID);
  if ("inline_keyboard" in markup)
    return { inline_keyboard: validateRows(markup.inline_keyboard, validateInlineButton) };
  if (inlineOnly) throw badRequest("inline keyboard expected");
  if ("keyboard" in markup) validateRows(markup.keyboard, validateReplyButton);
  else if (markup.remove_keyboard !== true && markup.force_reply !== true) throw badRequest(MARKUP_INVALID);
  return undefined;
}

function validateRows<T>(rows: unknown, validateButton: (button: unknown) => T): T[][] {
  if (!Array.isArray(rows) || !rows.every(Array.isArray)) throw badRequest(MARKUP_INVALID);
  const typedRows = rows as unknown[][];
  if (typedRows.some((row) => row.length > MAX_PER_ROW)) throw badRequest("BUTTONS_TOO_MUCH");
  if (typedRows.reduce((total, row) => total + row.length, 0) > MAX_BUTTONS) throw badRequest("BUTTONS_TOO_MUCH");
  return typedRows.map((row) => row.map(validateButton));
}

function validateInlineButton(button: unknown): InlineButtonLike {
  if (!isRecord(button)) throw badRequest(MARKUP_INVALID);
  if (typeof button.text !== "string") {
    throw badRequest(`can't parse inline keyboard button: Field "text" must be of type String`);
  }
  if (button.text.trim() === "") throw badRequest("BUTTON_TEXT_INVALID");
  validateStyle(button.style);
  const actions = INLINE_ACTIONS.filter((action) => button[action] !== undefined && button[action] !== null);
  if (actions.length === 0) {
    throw badRequest("can't parse inline keyboard button: Text buttons are unallowed in the inline keyboard");
  }
  if (actions.length > 1) {
    throw badRequest(
      `can't parse inline keyboard button: exactly one of the optional fields must be used, found ${actions.join(", ")}`,
    );
  }
  if (actions[0] === "callback_data") validateCallbackData(button.callback_data);
  if (actions[0] === "url") validateUrl(button.url);
  if (actions[0] === "copy_text") validateCopyText(button.copy_text);
  if (actions[0] === "web_app") validateWebApp(button.web_app);
  return button as InlineButtonLike;
}

function validateStyle(style: unknown): void {
  if (style === undefined || style === null) return;
  if (typeof style !== "string" || !BUTTON_STYLES.includes(style))
    throw badRequest(
      `can't parse inline keyboard button: Field "style" must be one of "success", "danger" or "primary"`,
    );
}

function validateCallbackData(data: unknown): void {
  const bytes = typeof data === "string" ? new TextEncoder().encode(data).length : 0;
  if (bytes < 1 || bytes > 64) throw badRequest("BUTTON_DATA_INVALID");
}

function validateUrl(url: unknown): void {
  if (typeof url !== "string" || !/^(https?|tg):\/\/[^\s]+$/i.test(url)) throw badRequest("BUTTON_URL_INVALID");
  if (/^https?:/i.test(url) && !URL.canParse(url)) throw badRequest("BUTTON_URL_INVALID");
}

/** A Mini App button: `web_app: {url}` with an https URL, as Telegram opens Mini Apps from https only. */
export function validateWebApp(webApp: unknown): void {
  const url = isRecord(webApp) ? webApp.url : undefined;
  if (typeof url !== "string" || !/^https:\/\/[^\s]+$/i.test(url) || !URL.canParse(url)) {
    throw badRequest(
      `BUTTON_URL_INVALID: a web_app button needs an https URL, got ${JSON.stringify(typeof url === "string" ? url : null)}`,
    );
  }
}

function validateCopyText(copyText: unknown): void {
  const text = isRecord(copyText) ? copyText.text : undefined;
  if (typeof text !== "string" || text.length < 1 || text.length > 256) {
    throw badRequest(
      `can't parse inline keyboard button: Field "copy_text" must be an object with text of 1-256 characters`,
    );
  }
}

function validateReplyButton(button: unknown): unknown {
  const text = typeof button === "string" ? button : isRecord(button) ? button.text : undefined;
  if (typeof text !== "string" || text.trim() === "") throw badRequest("BUTTON_TEXT_INVALID");
  if (isRecord(button)) validateStyle(button.style);
  if (isRecord(button) && button.request_chat !== undefined) validateRequestChat(button.request_chat);
  return button;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
