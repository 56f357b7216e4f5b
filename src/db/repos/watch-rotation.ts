import type { Kysely } from "kysely";
import type { Database } from "../schema";
import type { WatchTarget } from "./watches";

/**
 * The distinct targets of active watches whose turn it is: those checked longest ago first (never
 * checked before all), at most `limit`. A target's time is its least recently checked watch, so
 * a check of the target (which records the time on all its watches) sends it to the back.
 */
export async function watchTargetsDue(db: Kysely<Database>, limit: number): Promise<WatchTarget[]> {
  const rows = await db
    .selectFrom("price_watches")
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

/** How many distinct targets active watches have in all. */
export async function countWatchTargets(db: Kysely<Database>): Promise<number> {
  const row = await db
    .selectFrom((eb) =>
      eb
        .selectFrom("price_watches")
        .select(["resource", "volume", "duration"])
        .where("status", "=", "active")
        .distinct()
        .as("targets"),
    )
    .select((eb) => eb.fn.countAll<number>().as("n"))
    .executeTakeFirst();
  return Number(row?.n ?? 0);
}
