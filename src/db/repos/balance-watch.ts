/**
 * The low-balance check's and the delivery alerts' state per user with an active rule (see
 * push/guard-poll.ts), read for a batch of polled users at once and written with their outcomes.
 */
import type { Kysely, Transaction } from "kysely";
import type { Database } from "../schema";

type Db = Kysely<Database> | Transaction<Database>;

/** An active rule as the check keeps it: what its alerts name, and its next delivery's cost. */
export interface WatchedRule {
  id: string;
  type: string;
  targetAddress: string;
  volume: string | null;
  duration: string | null;
  /** Sun (decimal string): its last firing's price, or its preview's; null when neither could be read. */
  nextCostSun?: string | null;
}

/** A user's watch as the check reads and writes it (sun as bigint, times in ms). */
export interface BalanceWatch {
  nextCheckAt: number;
  armed: boolean;
  crossings: number;
  alertedBalanceSun: bigint | null;
  checkedAt: number | null;
  rules: WatchedRule[] | null;
  rulesReadAt: number | null;
  perDaySun: bigint | null;
}

const sun = (value: string | null): bigint | null => (value !== null && /^-?\d+$/.test(value) ? BigInt(value) : null);
const ms = (value: number | string | null): number | null => (value === null ? null : Number(value));

function rulesOf(json: string | null): WatchedRule[] | null {
  if (json === null) return null;
  try {
    const parsed = JSON.parse(json) as unknown;
    return Array.isArray(parsed) ? (parsed as WatchedRule[]) : null;
  } catch {
    return null;
  }
}

/** The watches of these users (absent: never checked). */
export async function findBalanceWatches(db: Db, telegramIds: number[]): Promise<Map<number, BalanceWatch>> {
  if (telegramIds.length === 0) return new Map();
  const rows = await db.selectFrom("balance_watch").selectAll().where("telegram_id", "in", telegramIds).execute();
  return new Map(
    rows.map((row) => [
      Number(row.telegram_id),
      {
        nextCheckAt: Number(row.next_check_at),
        armed: row.armed === 1,
        crossings: Number(row.crossings),
        alertedBalanceSun: sun(row.alerted_balance_sun),
        checkedAt: ms(row.checked_at),
        rules: rulesOf(row.active_rules),
        rulesReadAt: ms(row.rules_read_at),
        perDaySun: sun(row.per_day_sun),
      },
    ]),
  );
}

/** Stores users' watches as their polls left them (inside the transaction recording the polls). */
export async function saveBalanceWatches(
  db: Db,
  watches: ReadonlyArray<{ telegramId: number; watch: BalanceWatch }>,
): Promise<void> {
  for (const { telegramId, watch } of watches) {
    const row = {
      next_check_at: watch.nextCheckAt,
      armed: watch.armed ? 1 : 0,
      crossings: watch.crossings,
      alerted_balance_sun: watch.alertedBalanceSun?.toString() ?? null,
      checked_at: watch.checkedAt,
      active_rules: watch.rules === null ? null : JSON.stringify(watch.rules),
      rules_read_at: watch.rulesReadAt,
      per_day_sun: watch.perDaySun?.toString() ?? null,
    };
    await db
      .insertInto("balance_watch")
      .values({ telegram_id: telegramId, ...row })
      .onConflict((oc) => oc.column("telegram_id").doUpdateSet(row))
      .execute();
  }
}

/** The balance is read at the user's next poll (a deposit was seen, or the user asked). */
export async function checkBalanceSoon(db: Db, telegramId: number, now: number): Promise<void> {
  await db
    .updateTable("balance_watch")
    .set({ next_check_at: now })
    .where("telegram_id", "=", telegramId)
    .where("next_check_at", ">", now)
    .execute();
}

/**
 * Every user with an active rule has their balance read at their next poll (the playground's
 * panel, after it fired a rule: the alert shows at once rather than within 10 minutes).
 */
export async function checkAllBalancesSoon(db: Kysely<Database>, now: number): Promise<void> {
  const ruled = await db.selectFrom("poll_state").select("telegram_id").where("rule_active", "=", 1).execute();
  for (const { telegram_id } of ruled) {
    await db
      .insertInto("balance_watch")
      .values({ telegram_id, next_check_at: now, armed: 1, crossings: 0 })
      .onConflict((oc) => oc.column("telegram_id").doUpdateSet({ next_check_at: now }))
      .execute();
  }
}
