import { type Bot, type Composer, InlineKeyboard } from "grammy";
import type { Config } from "#src/config";
import { FlatComposer } from "#src/bot/middleware/flat-composer";
import type { BotContext, BotDeps } from "#src/bot/context";
import { translatorFor } from "#src/chat/i18n";

/** Where the dashboard Mini App is served, or null: Telegram opens Mini Apps from https addresses only. */
export function dashboardUrl(config: Pick<Config, "PUBLIC_URL">): string | null {
  return config.PUBLIC_URL?.startsWith("https://") ? `${config.PUBLIC_URL}/app` : null;
}

/** The Dashboard button (a web_app button opening the Mini App), or null without an https PUBLIC_URL. */
export function dashboardButton(ctx: BotContext): { text: string; url: string } | null {
  const url = dashboardUrl(ctx.deps.config);
  return url ? { text: ctx.tr("button-dashboard"), url } : null;
}

/** /dashboard: the Dashboard button, or what it takes to have one. */
export function dashboardFeature(): Composer<BotContext> {
  const composer = new FlatComposer<BotContext>();
  composer.command("dashboard", async (ctx) => {
    const button = dashboardButton(ctx);
    if (button) {
      await ctx.reply(ctx.tr("dashboard-open"), {
        parse_mode: "HTML",
        reply_markup: new InlineKeyboard().webApp(button.text, button.url),
      });
      return;
    }
    await ctx.reply(ctx.tr(ctx.deps.config.playground ? "dashboard-playground" : "dashboard-needs-https"), {
      parse_mode: "HTML",
    });
  });
  return composer;
}

/**
 * Makes the chat's menu button (beside the message field) open the dashboard in every private
 * chat, when there is an https PUBLIC_URL, in English: the default for a chat given none in its
 * user's language (see showMenuButtonIn). A failure is logged, never fatal: the button is a
 * convenience, and /dashboard still offers the Mini App.
 */
export async function registerMenuButton(bot: Bot<BotContext>, deps: BotDeps): Promise<void> {
  const url = dashboardUrl(deps.config);
  if (!url) return;
  try {
    await bot.api.setChatMenuButton({
      menu_button: { type: "web_app", text: translatorFor(deps.i18n, "en")("menu-button"), web_app: { url } },
    });
  } catch (error) {
    deps.logger.warn({ err: error }, "setChatMenuButton failed; the chat's menu button does not open the dashboard");
  }
}
