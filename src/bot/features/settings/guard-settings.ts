import type { MenuFlavor, MenuRange } from "@grammyjs/menu";
import type { BotContext } from "#src/bot/context";
import { SETTINGS_TAP } from "#src/chat/callback-data";
import { trxText } from "#src/chat/format";
import type { Language, Translate } from "#src/chat/i18n";
import {
  findGuardSettings,
  updateGuardSettings,
  WARNING_HOURS,
  type GuardSettings,
  type WarningHours,
} from "#src/db/repos/guard-settings";
import { sunToTrx } from "#src/marketplace/money";
import { spentTodayThroughBot } from "#src/spend-guard/index";
import { checkBalanceSoon } from "#src/db/repos/balance-watch";

/*
 * The spend guard's and the reminders' part of /settings: the "ends" and "delivered" alert
 * switches, the low-balance warning time, Ask again above and the daily cap. Taps are menu
 * payloads "g.<value>" (SETTINGS_TAP): "ends", "deliveries" switch an alert, "w12", "w24", "w72",
 * "w0" set the warning time, "ask" and "cap" ask for an amount (guard-amount.ts).
 */

/** What the settings card shows of the guard: the settings and today's buying through the bot. */
export interface GuardView {
  settings: GuardSettings;
  spentTodaySun: bigint;
}

export async function loadGuardView(ctx: BotContext): Promise<GuardView> {
  const [settings, spentTodaySun] = await Promise.all([
    findGuardSettings(ctx.deps.db, ctx.account.telegram_id),
    spentTodayThroughBot(ctx.deps.db, ctx.account.telegram_id, ctx.deps.now()),
  ]);
  return { settings, spentTodaySun };
}

/** The warning time in words ("24 h", "3 days", "off"). */
export function warningText(tr: Translate, hours: WarningHours): string {
  return tr(`warning-${hours}`);
}

/** The two alert switches, as lines of the card's alert list. */
export function guardAlertLines(tr: Translate, settings: GuardSettings): string[] {
  const line = (on: boolean, key: string) => `${on ? "🔔" : "🔕"} ${tr(key)}: ${tr(on ? "state-on" : "state-off")}`;
  return [line(settings.alertEnds, "alerts-ends"), line(settings.alertDeliveries, "alerts-deliveries")];
}

/** The warning time and the spend guard, as lines of the card. */
export function guardSettingsLines(tr: Translate, lang: Language, view: GuardView): string[] {
  const { settings } = view;
  const amount = (sun: bigint) => trxText(sunToTrx(sun), lang);
  return [
    "",
    tr("settings-balance-warning", { value: warningText(tr, settings.warningHours) }),
    "",
    tr("settings-guard-title"),
    tr("settings-ask-above", {
      value: settings.askAboveSun === null ? tr("state-off") : amount(settings.askAboveSun),
    }),
    settings.dailyCapSun === null
      ? tr("settings-daily-cap", { value: tr("state-off") })
      : tr("settings-daily-cap-set", { value: amount(settings.dailyCapSun), today: amount(view.spentTodaySun) }),
  ];
}

type Tap = (ctx: BotContext & MenuFlavor, next: () => Promise<void>) => Promise<void>;

/** The alert switches' buttons, one row each, for the alert list of the menu. */
export function addGuardAlertButtons(range: MenuRange<BotContext>, tr: Translate, view: GuardView, tap: Tap): void {
  const { settings } = view;
  range
    .text(
      { text: `${settings.alertEnds ? "🔔" : "🔕"} ${tr("alerts-ends")}`, payload: SETTINGS_TAP.data("g", "ends") },
      tap,
    )
    .row()
    .text(
      {
        text: `${settings.alertDeliveries ? "🔔" : "🔕"} ${tr("alerts-deliveries")}`,
        payload: SETTINGS_TAP.data("g", "deliveries"),
      },
      tap,
    )
    .row();
}

/** The warning times (one row, the current one ticked) and the two amounts of the spend guard. */
export function addGuardButtons(range: MenuRange<BotContext>, tr: Translate, view: GuardView, tap: Tap): void {
  for (const hours of WARNING_HOURS)
    range.text(
      {
        text: `${hours === view.settings.warningHours ? "✅ " : ""}${warningText(tr, hours)}`,
        payload: SETTINGS_TAP.data("g", `w${hours}`),
      },
      tap,
    );
  range
    .row()
    .text({ text: tr("button-ask-above"), payload: SETTINGS_TAP.data("g", "ask") }, tap)
    .text({ text: tr("button-daily-cap"), payload: SETTINGS_TAP.data("g", "cap") }, tap)
    .row();
}

/**
 * Applies a guard tap that changes a setting at once (a switch, a warning time); "ask" and "cap"
 * are left to the caller (they ask for an amount). False for a value this module does not know.
 */
export async function applyGuardTap(ctx: BotContext, value: string): Promise<boolean> {
  const { db } = ctx.deps;
  const telegramId = ctx.account.telegram_id;
  const now = ctx.deps.now();
  if (value === "ends" || value === "deliveries") {
    const settings = await findGuardSettings(db, telegramId);
    await updateGuardSettings(
      db,
      telegramId,
      value === "ends" ? { alertEnds: !settings.alertEnds } : { alertDeliveries: !settings.alertDeliveries },
      now,
    );
    return true;
  }
  const hours = /^w(\d{1,2})$/.exec(value)?.[1];
  const warning = WARNING_HOURS.find((candidate) => String(candidate) === hours);
  if (warning === undefined) return false;
  await updateGuardSettings(db, telegramId, { warningHours: warning }, now);
  // A new warning time applies from the next poll, not after the interval the old one set.
  await checkBalanceSoon(db, telegramId, now);
  return true;
}
