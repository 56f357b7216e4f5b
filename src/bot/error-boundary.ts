import { GrammyError, HttpError, type BotError } from "grammy";
import { randomBytes } from "node:crypto";
import { translatorFor, pickLanguage } from "#src/chat/i18n";
import { markUserInactive } from "#src/db/repos/users";
import type { BotContext, BotDeps } from "./context";

/**
 * The error boundary around every update: the failure is logged with a short id, the user is told
 * (with that id) and the bot goes on. A 403 from a private chat means the user blocked the bot:
 * pushing to them stops instead.
 */
export function updateErrorHandler(deps: BotDeps): (error: BotError<BotContext>) => Promise<void> {
  return async (error) => {
    const errorId = randomBytes(4).toString("hex");
    const ctx = error.ctx;
    const cause = error.error;
    deps.logger.error(
      {
        errorId,
        updateId: ctx.update.update_id,
        userId: ctx.from?.id,
        err: cause instanceof Error ? cause : new Error(String(cause)),
      },
      "update handler failed; the user was told and the bot goes on",
    );
    if (cause instanceof GrammyError && cause.error_code === 403) {
      // The user blocked the bot or deleted their account: stop pushing to them (their key stays
      // linked). A 403 from a group (the bot was kicked) says nothing about the user.
      if (ctx.from && (!ctx.chat || ctx.chat.type === "private"))
        await markUserInactive(deps.db, ctx.from.id, deps.now()).catch(() => undefined);
      return;
    }
    if (!ctx.chat || cause instanceof HttpError) return;
    const tr = ctx.tr ?? translatorFor(deps.i18n, pickLanguage(ctx.from?.language_code));
    try {
      if (ctx.callbackQuery) await ctx.answerCallbackQuery().catch(() => undefined);
      await ctx.reply(tr("error-generic", { id: errorId }), { parse_mode: "HTML" });
    } catch (replyError) {
      deps.logger.warn({ errorId, err: replyError }, "could not tell the user about the error");
    }
  };
}
