import type { Context } from "grammy";
import type { InlineKeyboardMarkup } from "grammy/types";
import type { CallbackKind } from "#src/chat/callback-data";

/**
 * Whether the message the callback came from carries a button with this callback data. Telegram
 * sends the pressed message with its keyboard as it is now, so data missing from it was made up
 * (or the keyboard has changed since): the button is no longer valid. A message Telegram no
 * longer shows (date 0) comes without its content; then the handler's own checks decide.
 */
export function pressedButtonExists(ctx: Context): boolean {
  const query = ctx.callbackQuery;
  if (!query?.message || query.message.date === 0) return true;
  const markup = (query.message as { reply_markup?: InlineKeyboardMarkup }).reply_markup;
  return (markup?.inline_keyboard ?? []).some((row) =>
    row.some((button) => "callback_data" in button && button.callback_data === query.data),
  );
}

/**
 * The values of the pressed button's data, read by its kind's own parser. A handler registered on
 * the kind's pattern always gets them; anything else is a programming error, never user input.
 */
export function buttonValues<Values>(ctx: Context, kind: CallbackKind<Values>): Values {
  const values = kind.parse(ctx.callbackQuery?.data ?? "");
  if (values === null) throw new Error(`the pressed button's data is not of the kind ${kind.prefix}`);
  return values;
}
