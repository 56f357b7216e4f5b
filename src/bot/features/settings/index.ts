import { Menu, type MenuFlavor } from "@grammyjs/menu";
import { type Composer, type Context, InlineKeyboard } from "grammy";
import { FlatComposer } from "#src/bot/middleware/flat-composer";
import { DIGEST_SETTING, MENU_IDS, SETTINGS_TAP } from "#src/chat/callback-data";
import { alertEnabled, findUser, setUserLanguage, toggleAlert, type AlertKind, type User } from "#src/db/repos/users";
import { followChosenLanguage } from "#src/bot/command-menu";
import type { BotContext } from "#src/bot/context";
import { editInPlace } from "#src/bot/edit-in-place";
import { LANGUAGES, pickLanguage, translatorFor, type Language, type Translate } from "#src/chat/i18n";
import type { MenuActions } from "#src/bot/context";
import { addDigestButtons, applyDigestSetting, digestSettingsLines } from "../stats/digest-settings";
import { applyAutoBuying, autoBuyingButton, autoBuyingLines, autoBuyingShown } from "./auto-buying";

export const ALERT_KINDS: AlertKind[] = ["orders", "rules", "deposits", "other", "prices"];

/** The settings a card shows; the menu's fingerprint. */
function settingsFingerprint(user: User, autoBuying: boolean): string {
  return JSON.stringify([
    user.language,
    ...ALERT_KINDS.map((kind) => alertEnabled(user, kind)),
    user.digest_enabled,
    user.digest_time_zone,
    autoBuying,
  ]);
}

function cardText(tr: Translate, lang: Language, user: User, autoBuying: boolean): string {
  const lines = [
    tr("settings-title"),
    tr("settings-language", { language: tr(`language-${lang}`) }),
    "",
    tr("settings-alerts"),
  ];
  for (const kind of ALERT_KINDS)
    lines.push(
      `${alertEnabled(user, kind) ? "🔔" : "🔕"} ${tr(`alerts-${kind}`)}: ${tr(alertEnabled(user, kind) ? "state-on" : "state-off")}`,
    );
  lines.push(...digestSettingsLines(tr, user));
  lines.push(...autoBuyingLines(tr, autoBuying));
  return lines.join("\n");
}

/**
 * /settings on @grammyjs/menu: language, which alerts are pushed, the weekly digest and its time
 * zone. The fingerprint is the settings shown, so a tap on a card that is no longer current (the
 * settings changed from another card) changes nothing and redraws it.
 */
export function settingsMenu(): { menu: Menu<BotContext>; show(ctx: BotContext): Promise<void> } {
  /** The user row a card is drawn from in this update: after a change, the row as it is now. */
  const drawnFrom = new WeakMap<Context, User>();
  const userOf = (ctx: BotContext) => drawnFrom.get(ctx) ?? ctx.account;

  function view(ctx: BotContext): { tr: Translate; lang: Language; user: User } {
    const user = userOf(ctx);
    const lang = pickLanguage(user.language ?? ctx.from?.language_code);
    return { tr: translatorFor(ctx.deps.i18n, lang), lang, user };
  }

  async function apply(ctx: BotContext & MenuFlavor): Promise<void> {
    const tap = SETTINGS_TAP.parse(typeof ctx.match === "string" ? ctx.match : "");
    const now = ctx.deps.now();
    const language =
      tap?.what === "l" && (LANGUAGES as readonly string[]).includes(tap.value) ? (tap.value as Language) : null;
    if (language) await setUserLanguage(ctx.deps.db, ctx.account.telegram_id, language, now);
    else if (tap?.what === "b" && (await applyAutoBuying(ctx, tap.value, now))) {
      // Applied (every auto-buy paused when turned off).
    } else if (tap?.what === "a" && (ALERT_KINDS as string[]).includes(tap.value))
      await toggleAlert(ctx.deps.db, ctx.account.telegram_id, tap.value as AlertKind, now);
    else if (
      !tap ||
      !(tap.what === "d" || tap.what === "z") ||
      !(await applyDigestSetting(ctx.deps.db, ctx.account, tap.what, tap.value, now))
    ) {
      await ctx.answerCallbackQuery({ text: ctx.tr("button-expired") });
      return;
    }
    drawnFrom.set(ctx, (await findUser(ctx.deps.db, ctx.account.telegram_id))!);
    await ctx.answerCallbackQuery();
    const { tr, lang, user } = view(ctx);
    await editInPlace(ctx, cardText(tr, lang, user, await autoBuyingShown(ctx)), menu);
    if (language && ctx.chat) await followChosenLanguage(ctx.api, ctx.deps, user, language);
  }

  const menu = new Menu<BotContext>(MENU_IDS.settings, {
    autoAnswer: false,
    fingerprint: async (ctx) => settingsFingerprint(userOf(ctx), await autoBuyingShown(ctx)),
    onMenuOutdated: async (ctx) => {
      await ctx.answerCallbackQuery({ text: ctx.tr("settings-toast-changed") });
      const { tr, lang, user } = view(ctx);
      await editInPlace(ctx, cardText(tr, lang, user, await autoBuyingShown(ctx)), menu);
    },
  });

  menu.dynamic(async (ctx, range) => {
    const { tr, lang, user } = view(ctx);
    for (const language of LANGUAGES)
      range.text(
        {
          text: `${language === lang ? "✅ " : ""}${tr(`language-${language}`)}`,
          payload: SETTINGS_TAP.data("l", language),
        },
        apply,
      );
    range.row();
    for (const kind of ALERT_KINDS)
      range
        .text(
          {
            text: `${alertEnabled(user, kind) ? "🔔" : "🔕"} ${tr(`alerts-${kind}`)}`,
            payload: SETTINGS_TAP.data("a", kind),
          },
          apply,
        )
        .row();
    // The digest's buttons as its module lays them out, each tap applied by that module.
    const digest = new InlineKeyboard();
    addDigestButtons(digest, tr, user);
    for (const row of digest.inline_keyboard) {
      for (const button of row) {
        const tap = "callback_data" in button ? DIGEST_SETTING.parse(button.callback_data) : null;
        if (tap) range.text({ text: button.text, payload: SETTINGS_TAP.data(tap.what, tap.value) }, apply);
      }
      if (row.length > 0) range.row();
    }
    const autoBuying = await autoBuyingShown(ctx);
    range.text(
      { text: autoBuyingButton(tr, autoBuying), payload: SETTINGS_TAP.data("b", autoBuying ? "off" : "on") },
      apply,
    );
  });

  async function show(ctx: BotContext): Promise<void> {
    const { tr, lang, user } = view(ctx);
    await ctx.reply(cardText(tr, lang, user, await autoBuyingShown(ctx)), { parse_mode: "HTML", reply_markup: menu });
  }

  return { menu, show };
}

/** /settings and the main menu's Settings. The menu itself is installed by the bot, before the features. */
export function settingsFeature(
  menu: MenuActions,
  settings: { show(ctx: BotContext): Promise<void> },
): Composer<BotContext> {
  const composer = new FlatComposer<BotContext>();
  composer.command("settings", settings.show);
  menu.register("settings", settings.show);
  return composer;
}
