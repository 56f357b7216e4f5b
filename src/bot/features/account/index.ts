import { type Composer, InlineKeyboard } from "grammy";
import { FlatComposer } from "#src/bot/middleware/flat-composer";
import { findCredential, forgetUserData } from "#src/db/repos/credentials";
import { hasWebhookToken, rotateWebhookToken } from "#src/db/repos/webhook-tokens";
import type { BotContext } from "#src/bot/context";
import { endFlow } from "#src/bot/flows";
import { code } from "#src/chat/html";
import { DISCONNECT_NO, DISCONNECT_YES, WEBHOOK_ROTATE } from "#src/chat/callback-data";
import { connectButton } from "#src/bot/marketplace-access";
import { forgetPrefetched } from "#src/bot/prefetched";
import type { MenuActions } from "#src/bot/context";

/** /disconnect and /webhook: the user's link to the marketplace and where its events go (/settings is a feature of its own). */
export function accountFeature(menu: MenuActions): Composer<BotContext> {
  const composer = new FlatComposer<BotContext>();

  composer.command("disconnect", async (ctx) => {
    const credential = await findCredential(ctx.deps.db, ctx.account.telegram_id);
    if (!credential) {
      await ctx.reply(ctx.tr("disconnect-nothing"), { parse_mode: "HTML" });
      return;
    }
    const keyboard = new InlineKeyboard()
      .text(ctx.tr("button-confirm"), DISCONNECT_YES.data(credential.linked_at))
      .success()
      .text(ctx.tr("button-cancel"), DISCONNECT_NO.data)
      .danger();
    await ctx.reply(ctx.tr("disconnect-ask", { last4: credential.last4 }), {
      parse_mode: "HTML",
      reply_markup: keyboard,
    });
  });

  composer.callbackQuery(DISCONNECT_YES.pattern, async (ctx) => {
    // The question named one key; once another is linked (or none is), it forgets nothing.
    const asked = DISCONNECT_YES.parse(ctx.callbackQuery.data);
    const credential = await findCredential(ctx.deps.db, ctx.account.telegram_id);
    if (!credential || credential.linked_at !== asked) {
      await ctx.answerCallbackQuery({ text: ctx.tr("button-expired") });
      return;
    }
    await ctx.answerCallbackQuery();
    // An open flow is left first: its state is saved when the update ends, after the rows below are gone.
    await endFlow(ctx);
    forgetPrefetched(ctx, "credential");
    await forgetUserData(ctx.deps.db, ctx.account.telegram_id);
    ctx.deps.options.forget(ctx.account.telegram_id);
    ctx.deps.logger.info({ userId: ctx.account.telegram_id }, "user disconnected; key and personal data deleted");
    await ctx.editMessageText(ctx.tr("disconnect-done"), { parse_mode: "HTML" });
  });

  composer.callbackQuery(DISCONNECT_NO.pattern, async (ctx) => {
    await ctx.answerCallbackQuery();
    await ctx.editMessageText(ctx.tr("disconnect-kept"), { parse_mode: "HTML" });
  });

  async function webhookText(ctx: BotContext, token: string): Promise<{ text: string; keyboard: InlineKeyboard }> {
    const url = `${webhookOrigin(ctx)}/webhooks/marketplace/${token}`;
    const how = ctx.deps.config.PUBLIC_URL ? "webhook-how" : "webhook-how-playground";
    const text = [ctx.tr("webhook-title"), "", code(url), "", ctx.tr(how)].join("\n");
    const keyboard = new InlineKeyboard()
      .copyText(ctx.tr("button-copy"), url)
      .row()
      .text(ctx.tr("button-rotate"), WEBHOOK_ROTATE.data);
    return { text, keyboard };
  }

  async function showWebhook(ctx: BotContext): Promise<void> {
    if (!webhookOrigin(ctx)) {
      await ctx.reply(ctx.tr("webhook-no-public-url"), { parse_mode: "HTML" });
      return;
    }
    if (!(await findCredential(ctx.deps.db, ctx.account.telegram_id))) {
      await ctx.reply(ctx.tr("connect-needed"), { parse_mode: "HTML", reply_markup: connectButton(ctx) });
      return;
    }
    if (await hasWebhookToken(ctx.deps.db, ctx.account.telegram_id)) {
      await ctx.reply(ctx.tr("webhook-exists"), {
        parse_mode: "HTML",
        reply_markup: new InlineKeyboard().text(ctx.tr("button-rotate"), WEBHOOK_ROTATE.data),
      });
      return;
    }
    const token = await rotateWebhookToken(ctx.deps.db, ctx.account.telegram_id, ctx.deps.now());
    ctx.deps.rememberSecret(token);
    const { text, keyboard } = await webhookText(ctx, token);
    await ctx.reply(text, { parse_mode: "HTML", reply_markup: keyboard });
  }

  composer.command("webhook", showWebhook);
  menu.register("webhook", showWebhook);

  composer.callbackQuery(WEBHOOK_ROTATE.pattern, async (ctx) => {
    await ctx.answerCallbackQuery();
    if (!webhookOrigin(ctx) || !(await findCredential(ctx.deps.db, ctx.account.telegram_id))) return;
    const token = await rotateWebhookToken(ctx.deps.db, ctx.account.telegram_id, ctx.deps.now());
    ctx.deps.rememberSecret(token);
    ctx.deps.logger.info(
      { userId: ctx.account.telegram_id },
      "personal webhook token rotated; the old URL stopped working",
    );
    const { text, keyboard } = await webhookText(ctx, token);
    await ctx.editMessageText(`${text}\n\n${ctx.tr("webhook-rotated")}`, {
      parse_mode: "HTML",
      reply_markup: keyboard,
    });
  });

  return composer;
}

/**
 * Where a personal webhook URL points: PUBLIC_URL; in the playground without one, this server's
 * own address, which the sandbox next to it reaches (the panel registers it there); else nowhere.
 */
function webhookOrigin(ctx: BotContext): string | null {
  if (ctx.deps.config.PUBLIC_URL) return ctx.deps.config.PUBLIC_URL;
  return ctx.deps.config.playground ? (ctx.deps.ownUrl?.() ?? null) : null;
}
