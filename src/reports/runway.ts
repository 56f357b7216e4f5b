/**
 * The runway: what the user's active rules cost a day, from their deliveries of the last 7 days,
 * and how long the balance lasts at that pace. An estimate (a refill fires when energy runs low,
 * smart mode when the provider decides), worked in integer sun and milliseconds: nothing passes
 * through a float.
 */
import type { AutomationRule, Firing, MarketplaceClient } from "#src/marketplace/index";
import { sunToTrx, trxToSun } from "#src/marketplace/money";
import { ruleStatus } from "#src/marketplace/rule-words";
import { amountText } from "#src/chat/format";
import type { Language, Translate } from "#src/chat/i18n";

export const DAY_MS = 86_400_000;
/** The window the pace is read over. */
export const RUNWAY_WINDOW_MS = 7 * DAY_MS;
/** The marketplace lists a rule's newest 50 firings: a full list may not reach back over the window. */
const FIRINGS_LISTED = 50;
/** Active rules whose firings one estimate reads at most; with more, no estimate is shown. */
export const RUNWAY_RULES = 20;

/** A rule and its firings as the marketplace lists them (newest first). */
export interface RuleFirings {
  ruleId: string;
  firings: readonly Firing[];
}

export interface Runway {
  /** What the rules cost a day at the window's pace (sun). */
  perDaySun: bigint;
  /** How long the balance lasts at that pace (ms); 0 when it is already gone. */
  lastsMs: bigint;
}

/**
 * One rule's cost a day: its firings within the window over the window's length; when the
 * marketplace's list is full and its oldest firing is inside the window (the list may have left
 * older ones of the window out), over the span from that firing to now instead.
 */
function perDayOf(rule: RuleFirings, now: number): { sun: bigint; fired: boolean } {
  const from = now - RUNWAY_WINDOW_MS;
  let sum = 0n;
  let fired = false;
  let oldest = now;
  for (const firing of rule.firings) {
    const at = Date.parse(firing.createdAt);
    if (!Number.isFinite(at) || at < from || at > now) continue;
    sum += trxToSun(firing.priceTrx);
    fired = true;
    oldest = Math.min(oldest, at);
  }
  const truncated = rule.firings.length >= FIRINGS_LISTED && fired && oldest > from;
  const spanMs = BigInt(truncated ? Math.max(now - oldest, 60 * 60_000) : RUNWAY_WINDOW_MS);
  return { sun: (sum * BigInt(DAY_MS)) / spanMs, fired };
}

/** What these rules cost a day at the window's pace (sun); null when none of them fired in the window. */
export function costPerDay(rules: readonly RuleFirings[], now: number): bigint | null {
  let perDaySun = 0n;
  let fired = false;
  for (const rule of rules) {
    const one = perDayOf(rule, now);
    perDaySun += one.sun;
    fired ||= one.fired;
  }
  return fired && perDaySun > 0n ? perDaySun : null;
}

/** How long `balanceSun` lasts at `perDaySun` a day (ms); 0 when it is already gone. */
export function lastsFor(balanceSun: bigint, perDaySun: bigint): bigint {
  return balanceSun <= 0n ? 0n : (balanceSun * BigInt(DAY_MS)) / perDaySun;
}

/** The runway of these rules' firings against `balanceSun`; null when none of them fired in the window. */
export function estimateRunway(rules: readonly RuleFirings[], balanceSun: bigint, now: number): Runway | null {
  const perDaySun = costPerDay(rules, now);
  return perDaySun === null ? null : { perDaySun, lastsMs: lastsFor(balanceSun, perDaySun) };
}

/** The rules whose firings count: the active ones (a paused rule costs nothing until resumed). */
export function activeRules(rules: readonly AutomationRule[]): AutomationRule[] {
  return rules.filter((rule) => ruleStatus(rule.status) === "active");
}

/**
 * Reads the firings of the active rules (one request each, at most RUNWAY_RULES) and estimates
 * the runway; null without an active rule, with more of them than that, or without a firing in
 * the window. The caller has the rule list and the balance already.
 */
export async function readRunway(
  client: MarketplaceClient,
  rules: readonly AutomationRule[],
  balanceTrx: string,
  now: number,
): Promise<Runway | null> {
  const active = activeRules(rules);
  if (active.length === 0 || active.length > RUNWAY_RULES) return null;
  const firings = await Promise.all(
    active.map(async (rule) => ({ ruleId: rule.id, firings: await client.automationFires(rule.id) })),
  );
  return estimateRunway(firings, trxToSun(balanceTrx), now);
}

/** A rough amount for an estimate: whole TRX from 10, one decimal from 1, two below (at least 0.01). */
export function roughTrx(sun: bigint): string {
  const step = sun >= 10_000_000n ? 1_000_000n : sun >= 1_000_000n ? 100_000n : 10_000n;
  const rounded = ((sun + step / 2n) / step) * step;
  return sunToTrx(rounded > 0n ? rounded : 10_000n);
}

/** "about 9 days", "about 20 hours", "less than an hour": never more than the estimate says. */
export function lastsText(tr: Translate, lastsMs: bigint): string {
  const hour = 3_600_000n;
  const days = lastsMs / BigInt(DAY_MS);
  if (days >= 2n) return tr("runway-days", { count: Number(days) });
  const hours = lastsMs / hour;
  if (hours >= 1n) return tr("runway-hours", { count: Number(hours) });
  return tr("runway-under-hour");
}

/** The runway in one line: "about 4.6 TRX a day; your balance lasts about 9 days", said to be an estimate. */
export function runwayLine(tr: Translate, lang: Language, runway: Runway): string {
  return tr("runway-line", {
    perDay: amountText(roughTrx(runway.perDaySun), lang),
    lasts: lastsText(tr, runway.lastsMs),
  });
}
