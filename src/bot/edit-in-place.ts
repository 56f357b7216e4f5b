import type { InlineKeyboard } from "grammy";
import type { InlineKeyboardButton, InlineKeyboardMarkup } from "grammy/types";
import type { BotContext } from "./context";

/** The text Telegram shows for our HTML: tags removed, the entities we emit decoded. */
export function visibleText(html: string): string {
  return html
    .replace(/<[^>]*>/g, "")
    .replace(/&#x([0-9a-fA-F]+);/g, (_, hex: string) => String.fromCodePoint(parseInt(hex, 16)))
    .replace(/&#(\d+);/g, (_, decimal: string) => String.fromCodePoint(Number(decimal)))
    .replace(/&lt;/g, "<")
    .replace(/&gt;/g, ">")
    .replace(/&quot;/g, '"')
    .replace(/&amp;/g, "&");
}

function buttonKey(button: InlineKeyboardButton): string {
  const record = button as { text: string; callback_data?: string; url?: string; copy_text?: { text: string } };
  return JSON.stringify([record.text, record.callback_data ?? null, record.url ?? null, record.copy_text?.text ?? null]);
}

function keyboardKey(rows: InlineKeyboardButton[][] | undefined): string {
  return JSON.stringify((rows ?? []).filter((row) => row.length > 0).map((row) => row.map(buttonKey)));
}

/** The view an update's handler last put on the pressed message (it may edit it more than once). */
const lastEdit = new WeakMap<object, { text: string; keyboard: string }>();

/** True when the message under the pressed button already shows this text and keyboard (an edit would be refused). */
export function sameAsShown(ctx: BotContext, html: string, keyboard: InlineKeyboard): boolean {
  const text = visibleText(html).trim();
  const keys = keyboardKey(keyboard.inline_keyboard);
  const edited = lastEdit.get(ctx.update);
  if (edited) return edited.text === text && edited.keyboard === keys;
  const message = ctx.callbackQuery?.message;
  if (!message || !("text" in message) || typeof message.text !== "string") return false;
  const shownMarkup = (message as { reply_markup?: InlineKeyboardMarkup }).reply_markup;
  return message.text.trim() === text && keyboardKey(shownMarkup?.inline_keyboard) === keys;
}

/**
 * Edits the message under the pressed button in place. An identical view is not sent at all
 * (Telegram refuses it with "message is not modified"), and that refusal is ignored if it comes
 * anyway. The view sent is remembered for the rest of the update, so a handler that shows
 * "processing…" and then the result back at the pressed view still edits it.
 */
export async function editInPlace(ctx: BotContext, html: string, keyboard: InlineKeyboard): Promise<void> {
  if (sameAsShown(ctx, html, keyboard)) return;
  await ctx.editMessageText(html, { parse_mode: "HTML", reply_markup: keyboard, link_preview_options: { is_disabled: true } }).catch((error: unknown) => {
    if (!String(error).includes("message is not modified")) throw error;
  });
  lastEdit.set(ctx.update, { text: visibleText(html).trim(), keyboard: keyboardKey(keyboard.inline_keyboard) });
}
