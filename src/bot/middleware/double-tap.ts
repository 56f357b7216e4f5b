import type { MiddlewareFn } from "grammy";
import type { BotContext } from "../context";

/** How close behind a press of the same button a second press counts as the same tap twice. */
export const DEFAULT_DOUBLE_TAP_MS = 600;

interface Press {
  arrivedAt: number;
  handled: boolean;
}

/**
 * A double tap: a press of a button (same message, same callback data) that arrives while a press
 * of it is still being handled or waits for its turn in the chat, or within `windowMs` of that
 * press's arrival. Telegram sends both, each carrying the message as it was before the first was
 * handled, so the second would do it all again: a second question, a second deposit address, an
 * edit Telegram refuses. It is answered (its spinner stops) and goes no further. Installed before
 * the chat's updates are put in order, so it sees the second press on arrival. Kept per process:
 * with replicas, two presses landing on two replicas both run, as before (the cards and flows
 * guard what moves money).
 */
export function doubleTapGuard(
  windowMs = DEFAULT_DOUBLE_TAP_MS,
  now: () => number = Date.now,
): MiddlewareFn<BotContext> {
  const presses = new Map<string, Press>();
  return async (ctx, next) => {
    const query = ctx.callbackQuery;
    if (!query?.data || !query.message) return next();
    const key = `${query.message.chat.id}:${query.message.message_id}:${query.data}`;
    const at = now();
    const earlier = presses.get(key);
    if (earlier && (!earlier.handled || at - earlier.arrivedAt < windowMs)) {
      await ctx.answerCallbackQuery().catch(() => undefined);
      return;
    }
    const press: Press = { arrivedAt: at, handled: false };
    presses.set(key, press);
    try {
      await next();
    } finally {
      press.handled = true;
      // Forgotten once its window has passed too (a timer only while the window is still open).
      const left = press.arrivedAt + windowMs - now();
      const forget = () => {
        if (presses.get(key) === press) presses.delete(key);
      };
      if (left <= 0) forget();
      else setTimeout(forget, left).unref();
    }
  };
}
