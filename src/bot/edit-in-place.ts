import type { Menu } from "@grammyjs/menu";
import type { InlineKeyboard, MiddlewareFn } from "grammy";
import type { InlineKeyboardButton, InlineKeyboardMarkup, MaybeInaccessibleMessage } from "grammy/types";
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
  return JSON.stringify([
    record.text,
    record.callback_data ?? null,
    record.url ?? null,
    record.copy_text?.text ?? null,
  ]);
}

function keyboardKey(rows: InlineKeyboardButton[][] | undefined): string {
  return JSON.stringify((rows ?? []).filter((row) => row.length > 0).map((row) => row.map(buttonKey)));
}

interface Shown {
  text: string;
  keyboard: string;
}

/** What the pressed message shows, when Telegram sent it (a text message, still accessible). */
function shownBy(message: MaybeInaccessibleMessage): Shown | null {
  if (message.date === 0 || !("text" in message) || typeof message.text !== "string") return null;
  return {
    text: message.text.trim(),
    keyboard: keyboardKey((message as { reply_markup?: InlineKeyboardMarkup }).reply_markup?.inline_keyboard),
  };
}

const EDITS = new Set(["editMessageText", "editMessageReplyMarkup"]);

/**
 * For a button press: an edit of the pressed message that would show exactly what it shows
 * already is not sent (Telegram refuses it with "message is not modified"), and one Telegram
 * refuses all the same (a press older than the message's last edit) counts as done. Installed on the
 * update's own API before the menus, so it sees every edit as it goes out, a menu's rendered
 * keyboard included; what each edit showed is remembered for the rest of the update, so a
 * handler that shows "processing…" and then the pressed view again still edits it.
 */
export function skipIdenticalEdits(): MiddlewareFn<BotContext> {
  return (ctx, next) => {
    const message = ctx.callbackQuery?.message;
    if (!message) return next();
    let shown = shownBy(message);
    ctx.api.config.use(async (prev, method, payload, signal) => {
      const edit = payload as {
        chat_id?: number | string;
        message_id?: number;
        text?: string;
        reply_markup?: InlineKeyboardMarkup;
      };
      if (
        !EDITS.has(method) ||
        String(edit.chat_id) !== String(message.chat.id) ||
        edit.message_id !== message.message_id
      )
        return prev(method, payload, signal);
      const next: Shown = {
        text: method === "editMessageText" ? visibleText(edit.text ?? "").trim() : (shown?.text ?? ""),
        keyboard: keyboardKey(edit.reply_markup?.inline_keyboard),
      };
      if (shown && shown.text === next.text && shown.keyboard === next.keyboard)
        return { ok: true, result: true } as Awaited<ReturnType<typeof prev>>;
      const result = await prev(method, payload, signal);
      // A press made before the message changed (a double tap) carries its older copy: Telegram
      // then finds the edit already shown. The message shows what was asked, so it succeeded.
      if (!result.ok && result.description?.includes("message is not modified"))
        return { ok: true, result: true } as Awaited<ReturnType<typeof prev>>;
      if (result.ok) shown = next;
      return result;
    });
    return next();
  };
}

/**
 * Edits the message under the pressed button in place, with an inline keyboard or a menu. An
 * identical view is never sent (see skipIdenticalEdits), and a "message is not modified" refusal
 * is ignored should one come anyway.
 */
export async function editInPlace(
  ctx: BotContext,
  html: string,
  keyboard: InlineKeyboard | Menu<BotContext>,
): Promise<void> {
  await ctx
    .editMessageText(html, { parse_mode: "HTML", reply_markup: keyboard, link_preview_options: { is_disabled: true } })
    .catch((error: unknown) => {
      if (!String(error).includes("message is not modified")) throw error;
    });
}
