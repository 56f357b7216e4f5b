import type { Kysely } from "kysely";
import type { Database } from "../schema";
import { normaliseAutoBuy, type AutoBuy, type AutoBuyRent } from "./auto-buys";
import { countRents, rentsDue } from "./watch-rotation";

// What the buying engine reads and changes on every check: the rents to quote, the auto-buys a
// quote lets buy, and the ones whose day came or whose end passed.

/** The distinct rents of active auto-buys whose turn it is (checked longest ago first), at most `limit`. */
export function autoBuyRentsDue(db: Kysely<Database>, limit: number): Promise<AutoBuyRent[]> {
  return rentsDue(db, "auto_buys", limit);
}

/** How many distinct rents active auto-buys have in all. */
export function countAutoBuyRents(db: Kysely<Database>): Promise<number> {
  return countRents(db, "auto_buys");
}

/**
 * The active auto-buys on one rent whose cap the public quote `priceSun` is at or under (the quote
 * leaves out the activation fee, so it can only be lower than the user's total): only these read a
 * preview. The price seen is recorded on every active auto-buy of the rent in one write.
 */
export async function activeAutoBuysUnder(
  db: Kysely<Database>,
  rent: AutoBuyRent,
  priceSun: bigint,
  now: number,
): Promise<AutoBuy[]> {
  await db
    .updateTable("auto_buys")
    .set({ last_price_sun: priceSun.toString(), last_checked_at: now })
    .where("status", "=", "active")
    .where("resource", "=", rent.resource)
    .where("volume", "=", rent.volume)
    .where("duration", "=", rent.duration)
    .execute();
  const rows = await db
    .selectFrom("auto_buys")
    .selectAll()
    .where("status", "=", "active")
    .where("resource", "=", rent.resource)
    .where("volume", "=", rent.volume)
    .where("duration", "=", rent.duration)
    .orderBy("id")
    .execute();
  return rows.map(normaliseAutoBuy).filter((autoBuy) => priceSun <= BigInt(autoBuy.max_total_sun));
}

/** Waiting auto-buys whose UTC day came (the key's spend limit starts again): active again. Returns how many. */
export async function resumeWaitingAutoBuys(db: Kysely<Database>, now: number): Promise<number> {
  const result = await db
    .updateTable("auto_buys")
    .set({ status: "active", reason: null, resume_at: null, updated_at: now })
    .where("status", "=", "waiting")
    .where("resume_at", "<=", now)
    .where("ends_at", ">", now)
    .executeTakeFirst();
  return Number(result.numUpdatedRows);
}

/** Auto-buys past their end date that have not ended yet (each is ended and told once). */
export async function autoBuysPastEnd(db: Kysely<Database>, now: number, limit: number): Promise<AutoBuy[]> {
  const rows = await db
    .selectFrom("auto_buys")
    .selectAll()
    .where("status", "in", ["active", "paused", "waiting", "stopped"])
    .where("ends_at", "<=", now)
    .orderBy("ends_at")
    .limit(limit)
    .execute();
  return rows.map(normaliseAutoBuy);
}
