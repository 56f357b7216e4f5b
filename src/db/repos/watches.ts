import type { Kysely, Selectable, Transaction } from "kysely";
import type { Database, PriceWatchesTable } from "../schema";

export type PriceWatch = Selectable<PriceWatchesTable>;
export type WatchRearm = "above" | "cooldown";

/** At most this many watches per user (each is checked on the cron ticks; see watch-rotation.ts). */
export const MAX_WATCHES_PER_USER = 10;
/** The cooldowns the watch card offers, in ms; a new watch gets DEFAULT_WATCH_COOLDOWN. */
export const WATCH_COOLDOWNS = { "15m": 15 * 60_000, "1h": 60 * 60_000, "1d": 24 * 60 * 60_000 } as const;
export type WatchCooldown = keyof typeof WATCH_COOLDOWNS;
export const DEFAULT_WATCH_COOLDOWN: WatchCooldown = "1h";

/** What a watch looks at: one public quote serves every watch on the same target. */
export interface WatchTarget {
  resource: string;
  volume: string;
  duration: string;
}

export interface NewWatch extends WatchTarget {
  id: string;
  telegramId: number;
  address: string | null;
  thresholdSun: bigint;
  lastPriceSun: bigint | null;
}

function normalise(row: PriceWatch): PriceWatch {
  // PostgreSQL returns bigint columns as strings.
  return {
    ...row,
    telegram_id: Number(row.telegram_id),
    armed: Number(row.armed),
    cooldown_ms: Number(row.cooldown_ms),
    quiet_until: Number(row.quiet_until),
    crossings: Number(row.crossings),
    last_checked_at: row.last_checked_at === null ? null : Number(row.last_checked_at),
    created_at: Number(row.created_at),
    updated_at: Number(row.updated_at),
  };
}

/** A user's watches, oldest first (the order /watches numbers them in). */
export async function listWatches(db: Kysely<Database>, telegramId: number): Promise<PriceWatch[]> {
  const rows = await db
    .selectFrom("price_watches")
    .selectAll()
    .where("telegram_id", "=", telegramId)
    .orderBy("created_at")
    .orderBy("id")
    .execute();
  return rows.map(normalise);
}

export async function findWatch(db: Kysely<Database>, telegramId: number, id: string): Promise<PriceWatch | null> {
  const row = await db
    .selectFrom("price_watches")
    .selectAll()
    .where("telegram_id", "=", telegramId)
    .where("id", "=", id)
    .executeTakeFirst();
  return row ? normalise(row) : null;
}

/** The user's watch on exactly this target and address, if any (a second /watch of it updates that one). */
export async function findSameWatch(
  db: Kysely<Database>,
  telegramId: number,
  target: WatchTarget,
  address: string | null,
): Promise<PriceWatch | null> {
  const row = await db
    .selectFrom("price_watches")
    .selectAll()
    .where("telegram_id", "=", telegramId)
    .where("resource", "=", target.resource)
    .where("volume", "=", target.volume)
    .where("duration", "=", target.duration)
    .where((eb) => (address === null ? eb("address", "is", null) : eb("address", "=", address)))
    .executeTakeFirst();
  return row ? normalise(row) : null;
}

/**
 * Creates a watch unless the user already has MAX_WATCHES_PER_USER; false when at the limit.
 * A user's updates are handled one at a time (across replicas too), so counting then inserting
 * holds the limit.
 */
export async function createWatch(db: Kysely<Database>, watch: NewWatch, now: number): Promise<boolean> {
  return db.transaction().execute(async (trx) => {
    const row = await trx
      .selectFrom("price_watches")
      .select((eb) => eb.fn.countAll<number>().as("n"))
      .where("telegram_id", "=", watch.telegramId)
      .executeTakeFirst();
    if (Number(row?.n ?? 0) >= MAX_WATCHES_PER_USER) return false;
    await trx
      .insertInto("price_watches")
      .values({
        id: watch.id,
        telegram_id: watch.telegramId,
        resource: watch.resource,
        volume: watch.volume,
        duration: watch.duration,
        address: watch.address,
        threshold_sun: watch.thresholdSun.toString(),
        status: "active",
        armed: 1,
        rearm: "above",
        cooldown_ms: WATCH_COOLDOWNS[DEFAULT_WATCH_COOLDOWN],
        quiet_until: 0,
        crossings: 0,
        last_price_sun: watch.lastPriceSun === null ? null : watch.lastPriceSun.toString(),
        last_checked_at: watch.lastPriceSun === null ? null : now,
        created_at: now,
        updated_at: now,
      })
      .execute();
    return true;
  });
}

/** A new threshold for an existing watch: it is active and armed again (its cooldown still holds). */
export async function setWatchThreshold(
  db: Kysely<Database>,
  telegramId: number,
  id: string,
  thresholdSun: bigint,
  lastPriceSun: bigint | null,
  now: number,
): Promise<void> {
  await db
    .updateTable("price_watches")
    .set({
      threshold_sun: thresholdSun.toString(),
      status: "active",
      armed: 1,
      updated_at: now,
      ...(lastPriceSun === null ? {} : { last_price_sun: lastPriceSun.toString(), last_checked_at: now }),
    })
    .where("telegram_id", "=", telegramId)
    .where("id", "=", id)
    .execute();
}

/** Pause or resume; a resumed watch is armed again. False when the user has no such watch. */
export async function setWatchStatus(
  db: Kysely<Database>,
  telegramId: number,
  id: string,
  status: "active" | "paused",
  now: number,
): Promise<boolean> {
  const result = await db
    .updateTable("price_watches")
    .set({ status, updated_at: now, ...(status === "active" ? { armed: 1 } : {}) })
    .where("telegram_id", "=", telegramId)
    .where("id", "=", id)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}

export async function setWatchCooldown(
  db: Kysely<Database>,
  telegramId: number,
  id: string,
  cooldown: WatchCooldown,
  now: number,
): Promise<boolean> {
  const result = await db
    .updateTable("price_watches")
    .set({ cooldown_ms: WATCH_COOLDOWNS[cooldown], updated_at: now })
    .where("telegram_id", "=", telegramId)
    .where("id", "=", id)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}

export async function setWatchRearm(
  db: Kysely<Database>,
  telegramId: number,
  id: string,
  rearm: WatchRearm,
  now: number,
): Promise<boolean> {
  const result = await db
    .updateTable("price_watches")
    .set({ rearm, updated_at: now })
    .where("telegram_id", "=", telegramId)
    .where("id", "=", id)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}

export async function deleteWatch(db: Kysely<Database>, telegramId: number, id: string): Promise<boolean> {
  const result = await db
    .deleteFrom("price_watches")
    .where("telegram_id", "=", telegramId)
    .where("id", "=", id)
    .executeTakeFirst();
  return Number(result.numDeletedRows) > 0;
}

/**
 * Claims the check of cron tick `tick` (ms): true for the first replica only, and never for a tick
 * at or before one already claimed. Every replica's tick names the same scheduled second.
 */
export async function claimWatchCycle(db: Kysely<Database>, tick: number): Promise<boolean> {
  const result = await db
    .insertInto("price_watch_cycles")
    .values({ name: "price", tick })
    .onConflict((oc) => oc.column("name").doUpdateSet({ tick }).where("price_watch_cycles.tick", "<", tick))
    .executeTakeFirst();
  return Number(result.numInsertedOrUpdatedRows ?? 0n) > 0;
}

/** The active watches on one target, with the price just seen recorded on all of them in one write. */
export async function activeWatchesOn(
  db: Kysely<Database>,
  target: WatchTarget,
  priceSun: bigint,
  now: number,
): Promise<PriceWatch[]> {
  await db
    .updateTable("price_watches")
    .set({ last_price_sun: priceSun.toString(), last_checked_at: now })
    .where("status", "=", "active")
    .where("resource", "=", target.resource)
    .where("volume", "=", target.volume)
    .where("duration", "=", target.duration)
    .execute();
  const rows = await db
    .selectFrom("price_watches")
    .selectAll()
    .where("status", "=", "active")
    .where("resource", "=", target.resource)
    .where("volume", "=", target.volume)
    .where("duration", "=", target.duration)
    .orderBy("id")
    .execute();
  return rows.map(normalise);
}

/**
 * Records an alert for crossing `crossings + 1`: the watch rests until `quietUntil` and is
 * disarmed. Conditional on the crossing count read before, so a second checker (a replica that
 * lost its lease mid-check) changes nothing. Call in the transaction that queues the alert.
 */
export async function markWatchFired(
  db: Kysely<Database> | Transaction<Database>,
  watch: PriceWatch,
  quietUntil: number,
  now: number,
): Promise<boolean> {
  const result = await db
    .updateTable("price_watches")
    .set({ armed: 0, crossings: watch.crossings + 1, quiet_until: quietUntil, updated_at: now })
    .where("id", "=", watch.id)
    .where("crossings", "=", watch.crossings)
    .where("status", "=", "active")
    .executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}

/** The price went back above the threshold: the next crossing alerts again. */
export async function rearmWatch(db: Kysely<Database>, watch: PriceWatch, now: number): Promise<void> {
  await db
    .updateTable("price_watches")
    .set({ armed: 1, updated_at: now })
    .where("id", "=", watch.id)
    .where("crossings", "=", watch.crossings)
    .execute();
}
