/**
 * The spend guard: the daily cap on what is bought through the bot and Ask again above. Every path
 * that buys (the /buy card, and so Buy again, Buy now and Renew, which open it; auto-buy) asks here:
 *
 * - {@link capCheck}: may this total be spent today, as things stand (what a card shows);
 * - {@link reserveSpend}: the same, decided and recorded at once, just before the order goes out
 *   (two spends of one user checked together cannot both pass the cap);
 * - {@link recordSpent} once the order is placed, {@link releaseSpend} when it certainly was not.
 *
 * Days are UTC calendar days, as the marketplace counts a key's own daily limit. Amounts are sun
 * (bigint): nothing here passes through a float.
 */
import type { Kysely } from "kysely";
import type { Database } from "#src/db/schema";
import { findGuardSettings, type GuardSettings } from "#src/db/repos/guard-settings";
import * as spends from "#src/db/repos/bot-spends";
import { utcDay } from "#src/db/utc-day";

/** What the cap says about a spend: the day's spends so far, the cap (null: none), and whether it fits. */
export interface CapCheck {
  spentSun: bigint;
  capSun: bigint | null;
  allowed: boolean;
}

/** What the user bought through this bot today (UTC), reservations of orders on their way included. */
export function spentTodayThroughBot(db: Kysely<Database>, telegramId: number, now: number): Promise<bigint> {
  return spends.spentOnDay(db, telegramId, utcDay(now));
}

/** Whether `totalSun` may be spent through the bot now, as the day stands (nothing is recorded). */
export async function capCheck(
  db: Kysely<Database>,
  telegramId: number,
  totalSun: bigint,
  now: number,
  settings?: GuardSettings,
): Promise<CapCheck> {
  const capSun = (settings ?? (await findGuardSettings(db, telegramId))).dailyCapSun;
  const spentSun = await spentTodayThroughBot(db, telegramId, now);
  return { spentSun, capSun, allowed: capSun === null || spentSun + totalSun <= capSun };
}

/**
 * Decides and records a spend just before its order goes out: reserved unless it would pass the
 * cap. `source` names the spend ("card:<id>", "autobuy:<id>:<n>"): the same source again (a retry
 * of an order whose outcome was unknown) keeps its reservation and is allowed.
 */
export async function reserveSpend(
  db: Kysely<Database>,
  spend: { source: string; telegramId: number; totalSun: bigint; now: number },
): Promise<CapCheck> {
  const reservation = await spends.reserveSpend(db, {
    id: spend.source,
    telegramId: spend.telegramId,
    day: utcDay(spend.now),
    totalSun: spend.totalSun,
    now: spend.now,
  });
  return { spentSun: reservation.spentSun, capSun: reservation.capSun, allowed: reservation.reserved };
}

/** The order was placed: the spend counts the order's own total. */
export function recordSpent(db: Kysely<Database>, source: string, totalSun: bigint, orderId: string): Promise<void> {
  return spends.markSpent(db, source, totalSun, orderId);
}

/** The order certainly was not placed (refused, failed and refunded at once): the spend no longer counts. */
export function releaseSpend(db: Kysely<Database>, source: string): Promise<void> {
  return spends.releaseSpend(db, source);
}

/** Ask again above: whether a card of this total needs the second tap that names the amount. */
export function needsSecondTap(settings: GuardSettings, totalSun: bigint): boolean {
  return settings.askAboveSun !== null && totalSun > settings.askAboveSun;
}
