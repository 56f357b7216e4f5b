import { Composer, InlineKeyboard } from "grammy";
import { findCredential, forgetUserData } from "../../db/repos/credentials";
import { alertEnabled, findUser, setUserLanguage, toggleAlert, type AlertKind } from "../../db/repos/users";
import { hasWebhookToken, rotateWebhookToken } from "../../db/repos/webhook-tokens";
import type { BotContext } from "../context";
import { editInPlace } from "../edit-in-place";
import { code } from "../html";
import { LANGUAGES, pickLanguage, translatorFor } from "../i18n";
import type { MenuActions } from "./start";

const ALERT_KINDS: AlertKind[] = ["orders", "rules", "deposits", "other"];

/** /disconnect, /settings and /webhook: the user's link to the marketplace and what is pushed to them. */
export function accountFeature(menu: MenuActions): Composer<BotContext> {
  const composer = new Composer<BotContext>();

  composer.command("disconnect", async (ctx) => {
    const credential = await findCredential(ctx.deps.db, ctx.account.telegram_id);
    if (!credential) {
      await ctx.reply(ctx.tr("disconnect-nothing"), { parse_mode: "HTML" });
      return;
    }
    const keyboard = new InlineKeyboard().text(ctx.tr("button-confirm"), "dc:y").text(ctx.tr("button-cancel"), "dc:n");
    await ctx.reply(ctx.tr("disconnect-ask", { last4: credential.last4 }), { parse_mode: "HTML", reply_markup: keyboard });
  });

  composer.callbackQuery("dc:y", async (ctx) => {
    await ctx.answerCallbackQuery();
    await forgetUserData(ctx.deps.db, ctx.account.telegram_id);
    ctx.deps.options.forget(ctx.account.telegram_id);
    ctx.deps.logger.info({ userId: ctx.account.telegram_id }, "user disconnected; key and personal data deleted");
    await ctx.editMessageText(ctx.tr("disconnect-done"), { parse_mode: "HTML" });
  });

  composer.callbackQuery("dc:n", async (ctx) => {
    await ctx.answerCallbackQuery();
    await ctx.editMessageText(ctx.tr("disconnect-kept"), { parse_mode: "HTML" });
  });

  async function settingsCard(ctx: BotContext): Promise<{ text: string; keyboard: InlineKeyboard }> {
    const user = (await findUser(ctx.deps.db, ctx.account.telegram_id))!;
    const lang = pickLanguage(user.language ?? ctx.from?.language_code);
    const tr = translatorFor(ctx.deps.i18n, lang);
    const keyboard = new InlineKeyboard();
    for (const language of LANGUAGES) keyboard.text(`${language === lang ? "✅ " : ""}${tr(`language-${language}`)}`, `st:l:${language}`);
    keyboard.row();
    for (const kind of ALERT_KINDS) keyboard.text(`${alertEnabled(user, kind) ? "🔔" : "🔕"} ${tr(`alerts-${kind}`)}`, `st:a:${kind}`).row();
    const lines = [tr("settings-title"), tr("settings-language", { language: tr(`language-${lang}`) }), "", tr("settings-alerts")];
    for (const kind of ALERT_KINDS) lines.push(`${alertEnabled(user, kind) ? "🔔" : "🔕"} ${tr(`alerts-${kind}`)}: ${tr(alertEnabled(user, kind) ? "state-on" : "state-off")}`);
    return { text: lines.join("\n"), keyboard };
  }

  async function showSettings(ctx: BotContext): Promise<void> {
    const { text, keyboard } = await settingsCard(ctx);
    await ctx.reply(text, { parse_mode: "HTML", reply_markup: keyboard });
  }

  composer.command("settings", showSettings);
  menu.settings = showSettings;

  composer.callbackQuery(/^st:(l|a):([a-z]{2,10})$/, async (ctx) => {
    const [, what, value] = ctx.match;
    if (what === "l" && (LANGUAGES as readonly string[]).includes(value!)) {
      await setUserLanguage(ctx.deps.db, ctx.account.telegram_id, value!, ctx.deps.now());
    } else if (what === "a" && (ALERT_KINDS as string[]).includes(value!)) {
      await toggleAlert(ctx.deps.db, ctx.account.telegram_id, value as AlertKind, ctx.deps.now());
    } else {
      await ctx.answerCallbackQuery({ text: ctx.tr("button-expired") });
      return;
    }
    const { text, keyboard } = await settingsCard(ctx);
    await ctx.answerCallbackQuery();
    await editInPlace(ctx, text, keyboard);
  });

  async function webhookText(ctx: BotContext, token: string): Promise<{ text: string; keyboard: InlineKeyboard }> {
    const url = `${ctx.deps.config.PUBLIC_URL}/webhooks/marketplace/${token}`;
    const text = [ctx.tr("webhook-title"), "", code(url), "", ctx.tr("webhook-how")].join("\n");
    const keyboard = new InlineKeyboard().copyText(ctx.tr("button-copy"), url).row().text(ctx.tr("button-rotate"), "wh:rot");
    return { text, keyboard };
  }

  composer.command("webhook", async (ctx) => {
    if (!ctx.deps.config.PUBLIC_URL) {
      await ctx.reply(ctx.tr("webhook-no-public-url"), { parse_mode: "HTML" });
      return;
    }
    if (!(await findCredential(ctx.deps.db, ctx.account.telegram_id))) {
      await ctx.reply(ctx.tr("connect-needed"), { parse_mode: "HTML", reply_markup: new InlineKeyboard().text(ctx.tr("button-connect"), "m:connect") });
      return;
    }
    if (await hasWebhookToken(ctx.deps.db, ctx.account.telegram_id)) {
      await ctx.reply(ctx.tr("webhook-exists"), { parse_mode: "HTML", reply_markup: new InlineKeyboard().text(ctx.tr("button-rotate"), "wh:rot") });
      return;
    }
    const token = await rotateWebhookToken(ctx.deps.db, ctx.account.telegram_id, ctx.deps.now());
    ctx.deps.rememberSecret(token);
    const { text, keyboard } = await webhookText(ctx, token);
    await ctx.reply(text, { parse_mode: "HTML", reply_markup: keyboard });
  });

  composer.callbackQuery("wh:rot", async (ctx) => {
    await ctx.answerCallbackQuery();
    if (!ctx.deps.config.PUBLIC_URL || !(await findCredential(ctx.deps.db, ctx.account.telegram_id))) return;
    const token = await rotateWebhookToken(ctx.deps.db, ctx.account.telegram_id, ctx.deps.now());
    ctx.deps.rememberSecret(token);
    ctx.deps.logger.info({ userId: ctx.account.telegram_id }, "personal webhook token rotated; the old URL stopped working");
    const { text, keyboard } = await webhookText(ctx, token);
    await ctx.editMessageText(`${text}\n\n${ctx.tr("webhook-rotated")}`, { parse_mode: "HTML", reply_markup: keyboard });
  });

  return composer;
}
