import type { MiddlewareFn, Transformer } from "grammy";
import type { BotContext } from "../context";
import { isDashboardPress } from "./rate-limit";

export interface TypingOptions {
  /** Quiet time (nothing sent to the chat) after which the user is told the bot is typing. */
  afterMs: number;
  /** Telegram shows "typing…" for about 5 s: said again this often while the work goes on. */
  everyMs: number;
}

export const DEFAULT_TYPING: TypingOptions = { afterMs: 300, everyMs: 4_500 };

/**
 * Calls that show the user something in the chat; "typing…" waits for a quiet spell after each.
 * Not the chat action itself: it would restart the quiet spell, and "typing…" would be said again
 * every `afterMs` instead of every `everyMs`.
 */
const VISIBLE = /^(send(?!ChatAction)|edit|copy|forward)/;

/**
 * Shows "typing…" in a private chat while the bot works on an update and has shown nothing for
 * `afterMs`: a reply that waits for the marketplace no longer looks like a bot that did not hear.
 * A fast reply never sends it. Telegram clears it when the next message arrives.
 */
export function typingWhileSlow(options: TypingOptions = DEFAULT_TYPING): MiddlewareFn<BotContext> {
  return async (ctx, next) => {
    const chat = ctx.chat;
    // A press the dashboard made to redraw a card: the user is in the Mini App, not waiting in the chat.
    if (!chat || chat.type !== "private" || (!ctx.message && !ctx.callbackQuery) || isDashboardPress(ctx))
      return next();
    let timer: ReturnType<typeof setTimeout> | null = null;
    let done = false;
    const arm = (delayMs: number) => {
      if (timer) clearTimeout(timer);
      timer = done ? null : setTimeout(sayTyping, delayMs);
    };
    const sayTyping = () => {
      timer = null;
      if (done) return;
      void ctx.api.sendChatAction(chat.id, "typing").catch(() => undefined);
      arm(options.everyMs);
    };
    // Only this update's calls: each message or edit restarts the quiet spell.
    const watchOutput: Transformer = async (prev, method, payload, signal) => {
      const visible = VISIBLE.test(method);
      if (visible && timer) clearTimeout(timer);
      try {
        return await prev(method, payload, signal);
      } finally {
        if (visible) arm(options.afterMs);
      }
    };
    ctx.api.config.use(watchOutput);
    arm(options.afterMs);
    try {
      await next();
    } finally {
      done = true;
      if (timer) clearTimeout(timer);
      timer = null;
    }
  };
}
