import type { MiddlewareFn } from "grammy";
import type { BotContext } from "../context";
import { currentFlow } from "../flows";

const PRIVATE_KEY = /(?:^|[^0-9a-fA-F])(?:0x)?[0-9a-fA-F]{64}(?:$|[^0-9a-fA-F])/;

/** True when the text looks like a TRON private key (64 hex) or a 12/24-word seed phrase. */
export function looksLikeWalletSecret(text: string): boolean {
  if (PRIVATE_KEY.test(text)) return true;
  const words = text.trim().toLowerCase().split(/\s+/);
  return (words.length === 12 || words.length === 24) && words.every((word) => /^[a-z]{3,8}$/.test(word));
}

/**
 * A private key or seed phrase pasted by mistake is deleted at once and never logged or stored.
 * The /connect key step is exempt (API keys may look alike); that step deletes its message itself.
 */
export function secretPasteGuard(): MiddlewareFn<BotContext> {
  return async (ctx, next) => {
    const text = ctx.message?.text ?? ctx.message?.caption;
    if (!text || !looksLikeWalletSecret(text)) return next();
    if (/^\/connect(@\w+)?(\s|$)/.test(text)) return next();
    const flow = await currentFlow(ctx);
    if (flow?.flow === "connect" && flow.step === "key") return next();
    await ctx.deleteMessage().catch((error: unknown) => ctx.deps.logger.warn({ err: error, userId: ctx.from?.id }, "could not delete a pasted wallet secret"));
    ctx.deps.logger.warn({ userId: ctx.from?.id }, "a message that looked like a wallet secret was deleted (content not logged)");
    await ctx.reply(ctx.tr("secret-pasted"), { parse_mode: "HTML" });
  };
}
