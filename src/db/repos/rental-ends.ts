/**
 * Rentals the bot knows of and the "ends" alert each is due: recorded in the transaction that
 * sees the order filled (webhook, order follower, notification poll), alerted once by the
 * rental-ends job (push/rental-ends.ts), whose marker moves in the transaction that queues it.
 */
import type { Kysely, Selectable, Transaction } from "kysely";
import type { Database } from "../schema";
import type { RentalEndsTable } from "../tables/rental-ends";
import { deleteChunk } from "../chunked-delete";

type Db = Kysely<Database> | Transaction<Database>;
export type Rental = Selectable<RentalEndsTable>;

/** What a filled order tells of its rental; a field the path did not see is undefined. */
export interface RentalFacts {
  telegramId: number;
  orderId: string;
  resource?: string;
  volume?: string;
  duration?: string;
  targetAddress?: string;
  /** The order's creation time (ISO), the start of the rental as far as the bot can tell. */
  createdAt?: string;
}

/** The rental facts of an order as a path saw it (the marketplace's order, or a webhook's facts). */
export function rentalOf(
  telegramId: number,
  order: {
    id: string;
    resource?: string;
    volume?: string | number;
    duration?: string;
    targetAddress?: string;
    createdAt?: string;
  },
): RentalFacts {
  return {
    telegramId,
    orderId: order.id,
    resource: order.resource,
    volume: order.volume === undefined ? undefined : String(order.volume),
    duration: order.duration,
    targetAddress: order.targetAddress,
    createdAt: order.createdAt,
  };
}

const MINUTE = 60_000;
const UNIT_MS = { m: MINUTE, h: 60 * MINUTE, d: 24 * 60 * MINUTE } as const;

/** A marketplace duration ("15m", "1h", "3d") in ms; null when it is written otherwise. */
export function durationMs(duration: string): number | null {
  const match = /^(\d{1,6})([mhd])$/i.exec(duration.trim());
  if (!match) return null;
  const ms = Number(match[1]) * UNIT_MS[match[2]!.toLowerCase() as keyof typeof UNIT_MS];
  return ms > 0 ? ms : null;
}

/** How long before its end a rental's alert comes: 10 minutes for an hour and longer, a quarter of shorter ones. */
export function alertLeadMs(rentalMs: number): number {
  return rentalMs >= 60 * MINUTE ? 10 * MINUTE : Math.floor(rentalMs / 4);
}

/**
 * The rows of the facts that say enough (resource, volume, a duration the bot can read, the
 * target), with their end and alert times. The end is the order's creation plus its duration: the
 * marketplace gives no delegation time, and a delegation starts at or after its order, so the
 * alert is never later than its lead before the real end. `seenAt` stands in for a creation time
 * the path did not see.
 */
export function rentalRows(facts: readonly RentalFacts[], seenAt: number) {
  return facts.flatMap((fact) => {
    const rentalMs = fact.duration ? durationMs(fact.duration) : null;
    if (rentalMs === null || !fact.resource || !fact.volume || !fact.targetAddress) return [];
    if (fact.orderId.length === 0 || fact.orderId.length > 100 || fact.targetAddress.length > 100) return [];
    const created = fact.createdAt ? Date.parse(fact.createdAt) : NaN;
    const endsAt = (Number.isFinite(created) ? created : seenAt) + rentalMs;
    return [
      {
        telegram_id: fact.telegramId,
        order_id: fact.orderId,
        resource: fact.resource.slice(0, 50),
        volume: fact.volume.slice(0, 30),
        duration: fact.duration!.slice(0, 20),
        target_address: fact.targetAddress,
        ends_at: endsAt,
        alert_at: endsAt - alertLeadMs(rentalMs),
        state: "waiting",
        created_at: seenAt,
      },
    ];
  });
}

/**
 * Records filled orders' rentals (once each: a second path seeing the same order changes nothing).
 * Call inside the transaction that records the settlement.
 */
export async function recordRentals(db: Db, facts: readonly RentalFacts[], seenAt: number): Promise<number> {
  const rows = rentalRows(facts, seenAt);
  if (rows.length === 0) return 0;
  const inserted = await db
    .insertInto("rental_ends")
    .values(rows)
    .onConflict((oc) => oc.columns(["telegram_id", "order_id"]).doNothing())
    .returning("order_id")
    .execute();
  return inserted.length;
}

/** Rentals whose alert is due at `now` and not given yet, soonest first. */
export function dueRentals(db: Kysely<Database>, now: number, limit: number): Promise<Rental[]> {
  return db
    .selectFrom("rental_ends")
    .selectAll()
    .where("state", "=", "waiting")
    .where("alert_at", "<=", now)
    .orderBy("alert_at")
    .limit(limit)
    .execute();
}

/**
 * Moves a waiting rental to `state` (alerted, or missed); false when it was no longer waiting
 * (another replica, or a pass before a restart, took it). Call inside the transaction that queues
 * its alert, so the marker and the alert commit together.
 */
export async function settleRental(
  db: Db,
  rental: Pick<Rental, "telegram_id" | "order_id">,
  state: "alerted" | "missed",
): Promise<boolean> {
  const result = await db
    .updateTable("rental_ends")
    .set({ state })
    .where("telegram_id", "=", rental.telegram_id)
    .where("order_id", "=", rental.order_id)
    .where("state", "=", "waiting")
    .executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}

/**
 * Moves a waiting rental's end forward so its alert is due now (the playground's panel: "the
 * rental ends soon", seen in a minute instead of an hour): the user's rental of `orderId`, or their
 * newest waiting one. Returns it, or null when there is none waiting.
 */
export async function endRentalSoon(
  db: Kysely<Database>,
  telegramId: number,
  orderId: string | null,
  now: number,
): Promise<Rental | null> {
  let query = db
    .selectFrom("rental_ends")
    .selectAll()
    .where("telegram_id", "=", telegramId)
    .where("state", "=", "waiting");
  if (orderId !== null) query = query.where("order_id", "=", orderId);
  const rental = await query.orderBy("created_at", "desc").limit(1).executeTakeFirst();
  if (!rental) return null;
  const lead = alertLeadMs(durationMs(rental.duration) ?? 60 * MINUTE);
  const moved = { ends_at: now + lead, alert_at: now };
  await db
    .updateTable("rental_ends")
    .set(moved)
    .where("telegram_id", "=", telegramId)
    .where("order_id", "=", rental.order_id)
    .where("state", "=", "waiting")
    .execute();
  return { ...rental, ...moved };
}

/** Deletes up to `limit` rentals that ended before `before` (retention), whatever their state. */
export function deleteRentalsEndedBefore(db: Kysely<Database>, before: number, limit: number): Promise<number> {
  return deleteChunk(db, "rental_ends", ["telegram_id", "order_id"], limit, (eb) => eb("ends_at", "<", before));
}
