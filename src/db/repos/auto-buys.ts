import type { Kysely, Selectable, Transaction } from "kysely";
import type { Database } from "../schema";
import type { AutoBuysTable } from "../tables/auto-buys";

type Db = Kysely<Database> | Transaction<Database>;

export type AutoBuy = Selectable<AutoBuysTable>;
export type AutoBuyStatus = "active" | "paused" | "waiting" | "stopped" | "ended";
/**
 * Why an auto-buy is not buying: paused by the user or the switch; stopped by itself (balance,
 * scope, key, provider, rejected), until resumed; relinked (another key) and ended (its end date,
 * or Stop) for good; spend_limit: waiting for the next UTC day.
 */
export type AutoBuyReason =
  "user" | "switch" | "balance" | "scope" | "key" | "provider" | "rejected" | "relinked" | "spend_limit" | "ended";

/** At most this many auto-buys per user, whatever their state. */
export const MAX_AUTO_BUYS_PER_USER = 5;
/** Orders a day: the default, and the choices a card offers. */
export const DEFAULT_ORDERS_PER_DAY = 1;
export const ORDERS_PER_DAY_CHOICES = [1, 2, 3, 5, 10] as const;
/** How long an auto-buy lasts, in days: the default, the most, and the choices a card offers. */
export const DEFAULT_AUTO_BUY_DAYS = 7;
export const MAX_AUTO_BUY_DAYS = 30;
export const AUTO_BUY_DAY_CHOICES = [1, 3, 7, 14, 30] as const;
const DAY_MS = 24 * 60 * 60_000;

/** The rent an auto-buy buys: one public quote serves every auto-buy and watch on it. */
export interface AutoBuyRent {
  resource: string;
  volume: string;
  duration: string;
}

export interface NewAutoBuy extends AutoBuyRent {
  id: string;
  telegramId: number;
  address: string;
  maxTotalSun: bigint;
  dailyBudgetSun: bigint;
  ordersPerDay: number;
  days: number;
  keyLinkedAt: number;
}

/** A stopped auto-buy may be resumed once its cause is fixed; relinked and ended ones never. */
export function canResume(autoBuy: Pick<AutoBuy, "status" | "reason" | "ends_at">, now: number): boolean {
  if (autoBuy.ends_at <= now) return false;
  return autoBuy.status === "paused" || (autoBuy.status === "stopped" && autoBuy.reason !== "relinked");
}

export function normaliseAutoBuy(row: AutoBuy): AutoBuy {
  // PostgreSQL returns bigint columns as strings.
  return {
    ...row,
    telegram_id: Number(row.telegram_id),
    orders_per_day: Number(row.orders_per_day),
    ends_at: Number(row.ends_at),
    resume_at: row.resume_at === null ? null : Number(row.resume_at),
    provider_failures: Number(row.provider_failures),
    key_linked_at: Number(row.key_linked_at),
    last_checked_at: row.last_checked_at === null ? null : Number(row.last_checked_at),
    created_at: Number(row.created_at),
    updated_at: Number(row.updated_at),
  };
}

/** A user's auto-buys, oldest first (the order /autobuys numbers them in). */
export async function listAutoBuys(db: Db, telegramId: number): Promise<AutoBuy[]> {
  const rows = await db
    .selectFrom("auto_buys")
    .selectAll()
    .where("telegram_id", "=", telegramId)
    .orderBy("created_at")
    .orderBy("id")
    .execute();
  return rows.map(normaliseAutoBuy);
}

export async function findAutoBuy(db: Db, telegramId: number, id: string): Promise<AutoBuy | null> {
  const row = await db
    .selectFrom("auto_buys")
    .selectAll()
    .where("telegram_id", "=", telegramId)
    .where("id", "=", id)
    .executeTakeFirst();
  return row ? normaliseAutoBuy(row) : null;
}

/**
 * Creates an auto-buy (its id is its confirmation card's, so a second Confirm of the card finds
 * it made), unless the user has MAX_AUTO_BUYS_PER_USER. A user's updates are handled one at a
 * time (across replicas too), so counting then inserting holds the limit.
 */
export async function createAutoBuy(
  db: Kysely<Database>,
  autoBuy: NewAutoBuy,
  now: number,
): Promise<"created" | "exists" | "limit"> {
  return db.transaction().execute(async (trx) => {
    if (await findAutoBuy(trx, autoBuy.telegramId, autoBuy.id)) return "exists";
    const row = await trx
      .selectFrom("auto_buys")
      .select((eb) => eb.fn.countAll<number>().as("n"))
      .where("telegram_id", "=", autoBuy.telegramId)
      .executeTakeFirst();
    if (Number(row?.n ?? 0) >= MAX_AUTO_BUYS_PER_USER) return "limit";
    await trx
      .insertInto("auto_buys")
      .values({
        id: autoBuy.id,
        telegram_id: autoBuy.telegramId,
        resource: autoBuy.resource,
        volume: autoBuy.volume,
        duration: autoBuy.duration,
        address: autoBuy.address,
        max_total_sun: autoBuy.maxTotalSun.toString(),
        daily_budget_sun: autoBuy.dailyBudgetSun.toString(),
        orders_per_day: autoBuy.ordersPerDay,
        ends_at: now + autoBuy.days * DAY_MS,
        status: "active",
        reason: null,
        resume_at: null,
        provider_failures: 0,
        key_linked_at: autoBuy.keyLinkedAt,
        last_price_sun: null,
        last_checked_at: null,
        created_at: now,
        updated_at: now,
      })
      .execute();
    return "created";
  });
}

/**
 * Moves an auto-buy to `status` (with `reason`) only from one of `from`: every change is a
 * compare-and-set, so a user's Pause and the engine's stop never undo each other. Returns
 * whether it changed. `telegramId` null: any user's (the engine, which read the row itself).
 */
export async function setAutoBuyStatus(
  db: Db,
  change: {
    id: string;
    telegramId: number | null;
    from: readonly AutoBuyStatus[];
    status: AutoBuyStatus;
    reason: AutoBuyReason | null;
    resumeAt?: number | null;
  },
  now: number,
): Promise<boolean> {
  const result = await db
    .updateTable("auto_buys")
    .set({
      status: change.status,
      reason: change.reason,
      resume_at: change.resumeAt ?? null,
      updated_at: now,
      ...(change.status === "active" ? { provider_failures: 0 } : {}),
    })
    .where("id", "=", change.id)
    .$if(change.telegramId !== null, (qb) => qb.where("telegram_id", "=", change.telegramId!))
    .where("status", "in", [...change.from])
    .executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}

/**
 * Moves every auto-buy of the user in one of `from` to `status` (one cause for them all: the
 * key, the switch, another key linked); returns the ids that changed.
 */
export async function setUserAutoBuysStatus(
  db: Db,
  telegramId: number,
  from: readonly AutoBuyStatus[],
  status: AutoBuyStatus,
  reason: AutoBuyReason,
  now: number,
  resumeAt: number | null = null,
): Promise<string[]> {
  const rows = await db
    .updateTable("auto_buys")
    .set({ status, reason, resume_at: resumeAt, updated_at: now })
    .where("telegram_id", "=", telegramId)
    .where("status", "in", [...from])
    .returning("id")
    .execute();
  return rows.map((row) => row.id);
}

export async function deleteAutoBuy(db: Kysely<Database>, telegramId: number, id: string): Promise<boolean> {
  return db.transaction().execute(async (trx) => {
    const result = await trx
      .deleteFrom("auto_buys")
      .where("telegram_id", "=", telegramId)
      .where("id", "=", id)
      .executeTakeFirst();
    if (Number(result.numDeletedRows) === 0) return false;
    await trx.deleteFrom("auto_buy_orders").where("auto_buy_id", "=", id).execute();
    return true;
  });
}

/** Counts one more provider failure (502) in a row; returns the count now. */
export async function countProviderFailure(db: Db, id: string, now: number): Promise<number> {
  const row = await db
    .updateTable("auto_buys")
    .set((eb) => ({ provider_failures: eb("provider_failures", "+", 1), updated_at: now }))
    .where("id", "=", id)
    .returning("provider_failures")
    .executeTakeFirst();
  return Number(row?.provider_failures ?? 0);
}

export async function resetProviderFailures(db: Db, id: string): Promise<void> {
  await db.updateTable("auto_buys").set({ provider_failures: 0 }).where("id", "=", id).execute();
}
