import type { MiddlewareFn } from "grammy";
import type { BotContext } from "../context";
import { deleteDroppedKey } from "./secret-paste";

const WINDOW_MS = 10_000;
const MAX_UPDATES = 20;

/**
 * Per-user flood control: more than 20 updates in 10 s gets one polite warning, then the rest of
 * the window is dropped. In memory on purpose: it protects this process, and losing it on a
 * restart costs nothing. Wallet secrets are deleted by the guard before this runs; a dropped
 * message carrying an API key is still deleted here.
 */
export function rateLimit(): MiddlewareFn<BotContext> {
  const windows = new Map<number, { start: number; count: number; warned: boolean }>();
  return async (ctx, next) => {
    const userId = ctx.from?.id;
    if (userId === undefined) return next();
    const now = ctx.deps.now();
    let window = windows.get(userId);
    if (!window || now - window.start > WINDOW_MS) {
      window = { start: now, count: 0, warned: false };
      windows.set(userId, window);
      if (windows.size > 50_000) for (const [id, w] of windows) if (now - w.start > WINDOW_MS) windows.delete(id);
    }
    window.count += 1;
    if (window.count <= MAX_UPDATES) return next();
    await deleteDroppedKey(ctx);
    if (ctx.callbackQuery) await ctx.answerCallbackQuery().catch(() => undefined);
    if (!window.warned) {
      window.warned = true;
      ctx.deps.logger.warn({ userId }, "flood: updates dropped for the rest of the window");
      await ctx.reply(ctx.tr("flood-warning"), { parse_mode: "HTML" });
    }
  };
}
