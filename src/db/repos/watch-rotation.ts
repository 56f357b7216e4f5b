import type { Kysely } from "kysely";
import type { Database } from "../schema";
import type { WatchTarget } from "./watches";

/** The tables whose active rows are checked by rent (resource, volume, duration) on each price tick. */
export type RentTable = "price_watches" | "auto_buys";

/**
 * The distinct rents of a table's active rows whose turn it is: those checked longest ago first
 * (never checked before all), at most `limit`. A rent's time is its least recently checked row, so
 * a check of the rent (which records the time on all its rows) sends it to the back.
 */
export async function rentsDue(db: Kysely<Database>, table: RentTable, limit: number): Promise<WatchTarget[]> {
  const rows = await db
    .selectFrom(table)
    .select((eb) => [
      "resource",
      "volume",
      "duration",
      eb.fn.min(eb.fn.coalesce("last_checked_at", eb.lit(0))).as("checked"),
    ])
    .where("status", "=", "active")
    .groupBy(["resource", "volume", "duration"])
    .orderBy("checked")
    .orderBy("resource")
    .orderBy("volume")
    .orderBy("duration")
    .limit(limit)
    .execute();
  return rows.map(({ resource, volume, duration }) => ({ resource, volume, duration }));
}

/** How many distinct rents a table's active rows have in all. */
export async function countRents(db: Kysely<Database>, table: RentTable): Promise<number> {
  const row = await db
    .selectFrom((eb) =>
      eb
        .selectFrom(table)
        .select(["resource", "volume", "duration"])
        .where("status", "=", "active")
        .distinct()
        .as("rents"),
    )
    .select((eb) => eb.fn.countAll<number>().as("n"))
    .executeTakeFirst();
  return Number(row?.n ?? 0);
}

/** The distinct targets of active watches whose turn it is (see rentsDue). */
export function watchTargetsDue(db: Kysely<Database>, limit: number): Promise<WatchTarget[]> {
  return rentsDue(db, "price_watches", limit);
}

/** How many distinct targets active watches have in all. */
export function countWatchTargets(db: Kysely<Database>): Promise<number> {
  return countRents(db, "price_watches");
}
