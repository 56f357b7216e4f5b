import { Menu, type MenuFlavor, type MenuRange } from "@grammyjs/menu";
import { type Composer, type Context, InlineKeyboard } from "grammy";
import { FlatComposer } from "#src/bot/middleware/flat-composer";
import { DIGEST_SETTING, MENU_IDS, SETTINGS_TAP } from "#src/chat/callback-data";
import { alertEnabled, findUser, setUserLanguage, toggleAlert, type AlertKind, type User } from "#src/db/repos/users";
import { followChosenLanguage } from "#src/bot/command-menu";
import type { BotContext } from "#src/bot/context";
import { editInPlace } from "#src/bot/edit-in-place";
import { enterFlow } from "#src/bot/guided/install";
import { endFlow } from "#src/bot/flows";
import { LANGUAGES, pickLanguage, translatorFor, type Language, type Translate } from "#src/chat/i18n";
import type { MenuActions } from "#src/bot/context";
import { splitArguments } from "#src/input/arguments";
import { addDigestButtons, applyDigestSetting, digestSettingsLines } from "../stats/digest-settings";
import {
  addGuardAlertButtons,
  addGuardButtons,
  applyGuardTap,
  guardAlertLines,
  guardSettingsLines,
  loadGuardView,
  type GuardView,
} from "./guard-settings";
import { readGuardAmount, saveGuardAmount, type GuardAmount } from "./guard-amount";
import { applyAutoBuying, autoBuyingButton, autoBuyingLines, autoBuyingShown } from "./auto-buying";

export { guardAmountConversation } from "./guard-amount";

export const ALERT_KINDS: AlertKind[] = ["orders", "rules", "deposits", "other", "prices"];

/** What a settings card is drawn from: the user's row and the spend guard's settings. */
interface SettingsView {
  tr: Translate;
  lang: Language;
  user: User;
  guard: GuardView;
  /** Automatic buying's switch, as shown. */
  autoBuying: boolean;
}

/** The settings a card shows; the menu's fingerprint. */
function settingsFingerprint({ user, guard, autoBuying }: SettingsView): string {
  return JSON.stringify(
    [
      user.language,
      ...ALERT_KINDS.map((kind) => alertEnabled(user, kind)),
      user.digest_enabled,
      user.digest_time_zone,
      guard.settings,
      guard.spentTodaySun,
      autoBuying,
    ],
    (_key, value: unknown) => (typeof value === "bigint" ? value.toString() : value),
  );
}

function cardText({ tr, lang, user, guard, autoBuying }: SettingsView): string {
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
  lines.push(...guardAlertLines(tr, guard.settings));
  lines.push(...guardSettingsLines(tr, lang, guard));
  lines.push(...digestSettingsLines(tr, user));
  lines.push(...autoBuyingLines(tr, autoBuying));
  return lines.join("\n");
}

type Tap = (ctx: BotContext & MenuFlavor, next: () => Promise<void>) => Promise<void>;

/** The menu's buttons: languages, alert switches, the warning time and the spend guard, the digest. */
function drawButtons(range: MenuRange<BotContext>, view: SettingsView, tap: Tap): void {
  const { tr, lang, user } = view;
  for (const language of LANGUAGES)
    range.text(
      {
        text: `${language === lang ? "✅ " : ""}${tr(`language-${language}`)}`,
        payload: SETTINGS_TAP.data("l", language),
      },
      tap,
    );
  range.row();
  for (const kind of ALERT_KINDS)
    range
      .text(
        {
          text: `${alertEnabled(user, kind) ? "🔔" : "🔕"} ${tr(`alerts-${kind}`)}`,
          payload: SETTINGS_TAP.data("a", kind),
        },
        tap,
      )
      .row();
  addGuardAlertButtons(range, tr, view.guard, tap);
  addGuardButtons(range, tr, view.guard, tap);
  // The digest's buttons as its module lays them out, each tap applied by that module.
  const digest = new InlineKeyboard();
  addDigestButtons(digest, tr, user);
  for (const row of digest.inline_keyboard) {
    for (const button of row) {
      const digestTap = "callback_data" in button ? DIGEST_SETTING.parse(button.callback_data) : null;
      if (digestTap)
        range.text({ text: button.text, payload: SETTINGS_TAP.data(digestTap.what, digestTap.value) }, tap);
    }
    if (row.length > 0) range.row();
  }
  range.text(
    { text: autoBuyingButton(tr, view.autoBuying), payload: SETTINGS_TAP.data("b", view.autoBuying ? "off" : "on") },
    tap,
  );
}

/**
 * Ask again above… and Daily cap… open a guided step, which a menu's handler cannot enter (menus
 * run before the guided flows are installed): the tap is marked here and passed down the chain,
 * where settingsFeature enters the step.
 */
const amountAsked = new WeakMap<Context, GuardAmount>();

/**
 * Applies a tap: true when a setting changed, "asked" when an amount is to be asked instead,
 * false for a tap that is not a setting (crafted, or from an older menu).
 */
async function applyTap(ctx: BotContext, now: number): Promise<boolean | "asked"> {
  const tap = SETTINGS_TAP.parse(typeof ctx.match === "string" ? ctx.match : "");
  if (!tap) return false;
  if (tap.what === "l" && (LANGUAGES as readonly string[]).includes(tap.value)) {
    await setUserLanguage(ctx.deps.db, ctx.account.telegram_id, tap.value, now);
    return true;
  }
  if (tap.what === "a" && (ALERT_KINDS as string[]).includes(tap.value)) {
    await toggleAlert(ctx.deps.db, ctx.account.telegram_id, tap.value as AlertKind, now);
    return true;
  }
  if (tap.what === "g" && (tap.value === "ask" || tap.value === "cap")) {
    amountAsked.set(ctx, tap.value);
    return "asked";
  }
  if (tap.what === "g") return applyGuardTap(ctx, tap.value);
  // Automatic buying: turned off, every auto-buy is paused.
  if (tap.what === "b") return applyAutoBuying(ctx, tap.value, now);
  return (
    (tap.what === "d" || tap.what === "z") && applyDigestSetting(ctx.deps.db, ctx.account, tap.what, tap.value, now)
  );
}

/**
 * /settings on @grammyjs/menu: language, which alerts are pushed, the low-balance warning, the
 * spend guard, the weekly digest and its time zone. The fingerprint is the settings shown, so a tap
 * on a card that is no longer current (the settings changed from another card) changes nothing
 * and redraws it.
 */
export function settingsMenu(): { menu: Menu<BotContext>; show(ctx: BotContext): Promise<void> } {
  /** The user row and guard settings a card is drawn from in this update: after a change, as they are now. */
  const drawnFrom = new WeakMap<Context, { user: User; guard: Promise<GuardView>; autoBuying: Promise<boolean> }>();
  const freshView = (ctx: BotContext, user: User) => ({
    user,
    guard: loadGuardView(ctx),
    autoBuying: autoBuyingShown(ctx),
  });

  function view(ctx: BotContext): Promise<SettingsView> {
    let drawn = drawnFrom.get(ctx);
    if (!drawn) {
      drawn = freshView(ctx, ctx.account);
      drawnFrom.set(ctx, drawn);
    }
    const { user } = drawn;
    const lang = pickLanguage(user.language ?? ctx.from?.language_code);
    return Promise.all([drawn.guard, drawn.autoBuying]).then(([guard, autoBuying]) => ({
      tr: translatorFor(ctx.deps.i18n, lang),
      lang,
      user,
      guard,
      autoBuying,
    }));
  }

  async function apply(ctx: BotContext & MenuFlavor, next: () => Promise<void>): Promise<void> {
    const changed = await applyTap(ctx, ctx.deps.now());
    if (changed === "asked") {
      await ctx.answerCallbackQuery();
      return next();
    }
    if (!changed) return void (await ctx.answerCallbackQuery({ text: ctx.tr("button-expired") }));
    const user = (await findUser(ctx.deps.db, ctx.account.telegram_id))!;
    drawnFrom.set(ctx, freshView(ctx, user));
    await ctx.answerCallbackQuery();
    await editInPlace(ctx, cardText(await view(ctx)), menu);
    const tap = SETTINGS_TAP.parse(ctx.match as string)!;
    if (tap.what === "l" && ctx.chat) await followChosenLanguage(ctx.api, ctx.deps, user, tap.value as Language);
  }

  const menu = new Menu<BotContext>(MENU_IDS.settings, {
    autoAnswer: false,
    fingerprint: async (ctx) => settingsFingerprint(await view(ctx)),
    onMenuOutdated: async (ctx) => {
      await ctx.answerCallbackQuery({ text: ctx.tr("settings-toast-changed") });
      await editInPlace(ctx, cardText(await view(ctx)), menu);
    },
  });

  menu.dynamic(async (ctx, range) => drawButtons(range, await view(ctx), apply));

  async function show(ctx: BotContext): Promise<void> {
    // Read afresh: a step that just changed an amount shows the settings as they are now.
    const user = (await findUser(ctx.deps.db, ctx.account.telegram_id)) ?? ctx.account;
    drawnFrom.set(ctx, freshView(ctx, user));
    await ctx.reply(cardText(await view(ctx)), { parse_mode: "HTML", reply_markup: menu });
  }

  return { menu, show };
}

/**
 * /settings and the main menu's Settings; `/settings ask <TRX|off>` and `/settings cap <TRX|off>`
 * set the spend guard's amounts on one line (without the amount, it is asked). The menu itself is
 * installed by the bot, before the features.
 */
export function settingsFeature(
  menu: MenuActions,
  settings: { show(ctx: BotContext): Promise<void> },
): Composer<BotContext> {
  const composer = new FlatComposer<BotContext>();
  // Ask again above… or Daily cap… tapped in the settings menu: the amount's guided step.
  composer.use((ctx, next) => {
    const which = amountAsked.get(ctx);
    return which ? enterFlow(ctx, "guard-amount", which) : next();
  });
  composer.command("settings", async (ctx) => {
    const [which, ...rest] = splitArguments(ctx.match);
    const what = which?.toLowerCase();
    if (what !== "ask" && what !== "cap") return settings.show(ctx);
    if (rest.length === 0) return enterFlow(ctx, "guard-amount", what);
    await endFlow(ctx);
    const read = readGuardAmount(ctx, rest.join(" "));
    if (!read.ok) return void (await ctx.reply(read.message, { parse_mode: "HTML" }));
    await saveGuardAmount(ctx, what, read.sun);
    await settings.show(ctx);
  });
  menu.register("settings", settings.show);
  return composer;
}
