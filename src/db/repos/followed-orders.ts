import type { Kysely, Transaction } from "kysely";
import type { Database } from "../schema";
import { claimedKeys, leaseFor, leaseFree } from "../lease-claim";
import { deleteChunk } from "../chunked-delete";

type Db = Kysely<Database> | Transaction<Database>;

/** Records an order placed through the bot, to be checked until it settles. */
export async function followOrder(
  db: Kysely<Database>,
  telegramId: number,
  orderId: string,
  now: number,
): Promise<void> {
  await db
    .insertInto("followed_orders")
    .values({
      order_id: orderId,
      telegram_id: telegramId,
      attempts: 0,
      next_check_at: now + 2_000,
      done: 0,
      created_at: now,
    })
    .onConflict((oc) => oc.doNothing())
    .execute();
}

/** Which followed orders a pass takes: by default those due; a nudge takes one user's (or every) open order now. */
export interface FollowScope {
  /** Only this user's orders. */
  telegramId?: number;
  /** Ignore the back-off schedule (a nudge after a settlement the caller knows about). */
  now?: boolean;
}

/**
 * Claims due followed orders with a lease ({@link claimedKeys}), so replicas share them and each
 * order is checked by one replica at a time.
 */
export async function claimDueOrders(
  db: Kysely<Database>,
  owner: string,
  now: number,
  limit: number,
  leaseMs: number,
  scope: FollowScope = {},
) {
  const candidates = db
    .selectFrom("followed_orders as f")
    .select("f.order_id")
    .where("f.done", "=", 0)
    .$if(!scope.now, (qb) => qb.where("f.next_check_at", "<=", now))
    .$if(scope.telegramId !== undefined, (qb) => qb.where("f.telegram_id", "=", scope.telegramId!))
    .where(leaseFree(now, "f.lease_until"))
    .orderBy("f.next_check_at")
    .limit(limit);
  const rows = await db
    .updateTable("followed_orders")
    .set(leaseFor(owner, now + leaseMs))
    .where(claimedKeys(db, "order_id", candidates, now))
    .where("done", "=", 0)
    .returningAll()
    .execute();
  return rows.sort((a, b) => a.next_check_at - b.next_check_at);
}

/** Closes a follow (settled, given up, or its key gone) and lets its lease go; inside the caller's transaction when it queues the alert. */
export async function markFollowDone(db: Db, orderId: string): Promise<void> {
  await db
    .updateTable("followed_orders")
    .set({ done: 1, lease_owner: null, lease_until: null })
    .where("order_id", "=", orderId)
    .execute();
}

/** Counts one more check of a follow, sets when it is looked at again, and lets its lease go. */
export async function rescheduleFollow(
  db: Kysely<Database>,
  orderId: string,
  attempts: number,
  nextCheckAt: number,
): Promise<void> {
  await db
    .updateTable("followed_orders")
    .set({ attempts, next_check_at: nextCheckAt, lease_owner: null, lease_until: null })
    .where("order_id", "=", orderId)
    .execute();
}

/**
 * Deletes up to `limit` finished follows created before `before` (the retention job). Kept as long
 * as a card can still be pressed: checking an old card again finds its order, and a follow still
 * on record stops that order from being followed, and alerted on, a second time.
 */
export async function deleteFinishedFollowsBefore(
  db: Kysely<Database>,
  before: number,
  limit: number,
): Promise<number> {
  return deleteChunk(
    db,
    "followed_orders",
    "order_id",
    limit,
    (eb) => eb.and([eb("done", "=", 1), eb("created_at", "<", before)]),
    (eb) => eb("done", "=", 1),
  );
}

/**
 * Gives back every followed order this replica holds a lease on (a clean stop), so another
 * replica or the next start checks them at once. A check still in flight may then settle the
 * order too; the alert's dedupe key keeps that to one alert.
 */
export async function releaseFollowLeases(db: Kysely<Database>, owner: string): Promise<number> {
  const result = await db
    .updateTable("followed_orders")
    .set({ lease_owner: null, lease_until: null })
    .where("lease_owner", "=", owner)
    .executeTakeFirst();
  return Number(result.numUpdatedRows);
}

/** How many followed orders are still open (for /metrics). */
export async function countOpenFollows(db: Kysely<Database>): Promise<number> {
  const row = await db
    .selectFrom("followed_orders")
    .select((eb) => eb.fn.countAll<number>().as("n"))
    .where("done", "=", 0)
    .executeTakeFirst();
  return Number(row?.n ?? 0);
}
