import type { Kysely, Selectable, Transaction } from "kysely";
import type { Database } from "../schema";
import type { AutoBuyOrdersTable } from "../tables/auto-buys";
import { leaseFree } from "../lease-claim";
import { deleteChunk } from "../chunked-delete";

type Db = Kysely<Database> | Transaction<Database>;

export type AutoBuyOrder = Selectable<AutoBuyOrdersTable>;

/**
 * The Idempotency-Key of an auto-buy's `n`-th order of UTC day `day`: derived, never random, so
 * whoever sends that order (a retry, the process after a crash, another replica) sends the same
 * key and the marketplace places it once.
 */
export function autoBuyOrderKey(autoBuyId: string, day: string, n: number): string {
  return `autobuy-${autoBuyId}-${day}-${n}`;
}

function normalise(row: AutoBuyOrder): AutoBuyOrder {
  return {
    ...row,
    n: Number(row.n),
    telegram_id: Number(row.telegram_id),
    rental_ends_at: Number(row.rental_ends_at),
    lease_until: row.lease_until === null ? null : Number(row.lease_until),
    created_at: Number(row.created_at),
    updated_at: Number(row.updated_at),
  };
}

/** What an auto-buy may still do today: its orders and spend of `day`, and whether a rental it placed is running. */
export interface AutoBuyUse {
  /** Orders of the day that count (placing or placed). */
  orders: number;
  /** Their total, in sun. */
  spentSun: bigint;
  /** Attempts of the day, refused ones included: the next attempt's number is this plus one. */
  attempts: number;
  /** An order (placing or placed) whose rental has not ended: the address is covered. */
  running: boolean;
  /** An attempt whose outcome is not recorded yet (any day): it is settled before anything new. */
  open: AutoBuyOrder | null;
}

const COUNTED = ["placing", "placed"];

/** One read of what limits an auto-buy now. */
export async function autoBuyUse(db: Db, autoBuyId: string, day: string, now: number): Promise<AutoBuyUse> {
  const rows = (
    await db
      .selectFrom("auto_buy_orders")
      .selectAll()
      .where("auto_buy_id", "=", autoBuyId)
      .where((eb) =>
        eb.or([
          eb("day", "=", day),
          eb.and([eb("state", "in", COUNTED), eb("rental_ends_at", ">", now)]),
          eb("state", "=", "placing"),
        ]),
      )
      .execute()
  ).map(normalise);
  const today = rows.filter((row) => row.day === day);
  const counted = today.filter((row) => COUNTED.includes(row.state));
  return {
    orders: counted.length,
    spentSun: counted.reduce((sum, row) => sum + BigInt(row.total_sun), 0n),
    attempts: today.reduce((most, row) => Math.max(most, row.n), 0),
    running: rows.some((row) => COUNTED.includes(row.state) && row.rental_ends_at > now),
    open: rows.find((row) => row.state === "placing") ?? null,
  };
}

export interface NewAttempt {
  autoBuyId: string;
  telegramId: number;
  day: string;
  n: number;
  totalSun: bigint;
  rentalEndsAt: number;
  owner: string;
  leaseMs: number;
}

/**
 * Writes an attempt ("placing", leased to `owner`) before its order is sent. Its key (auto-buy,
 * day, n) is the table's primary key, so of two replicas that decided on the same order one
 * writes it and the other is refused (false) and sends nothing.
 */
export async function insertAttempt(db: Db, attempt: NewAttempt, now: number): Promise<boolean> {
  const result = await db
    .insertInto("auto_buy_orders")
    .values({
      auto_buy_id: attempt.autoBuyId,
      day: attempt.day,
      n: attempt.n,
      telegram_id: attempt.telegramId,
      idempotency_key: autoBuyOrderKey(attempt.autoBuyId, attempt.day, attempt.n),
      state: "placing",
      order_id: null,
      total_sun: attempt.totalSun.toString(),
      rental_ends_at: attempt.rentalEndsAt,
      lease_owner: attempt.owner,
      lease_until: now + attempt.leaseMs,
      created_at: now,
      updated_at: now,
    })
    .onConflict((oc) => oc.columns(["auto_buy_id", "day", "n"]).doNothing())
    .executeTakeFirst();
  return Number(result.numInsertedOrUpdatedRows ?? 0n) > 0;
}

type AttemptKey = Pick<AutoBuyOrder, "auto_buy_id" | "day" | "n">;

/**
 * Takes a "placing" attempt whose outcome is unknown (a crash, a timeout) for `owner`, unless
 * another replica holds it: true when taken.
 */
export async function claimAttempt(
  db: Db,
  key: AttemptKey,
  owner: string,
  now: number,
  leaseMs: number,
): Promise<boolean> {
  const result = await db
    .updateTable("auto_buy_orders")
    .set({ lease_owner: owner, lease_until: now + leaseMs, updated_at: now })
    .where("auto_buy_id", "=", key.auto_buy_id)
    .where("day", "=", key.day)
    .where("n", "=", key.n)
    .where("state", "=", "placing")
    .where(leaseFree(now))
    .executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}

/** Lets a "placing" attempt go (its outcome still unknown): the next check takes it again. */
export async function releaseAttempt(db: Db, key: AttemptKey, owner: string): Promise<void> {
  await db
    .updateTable("auto_buy_orders")
    .set({ lease_owner: null, lease_until: null })
    .where("auto_buy_id", "=", key.auto_buy_id)
    .where("day", "=", key.day)
    .where("n", "=", key.n)
    .where("state", "=", "placing")
    .where("lease_owner", "=", owner)
    .execute();
}

/**
 * Records an attempt's outcome: placed (with its order and what the order says it cost) or
 * failed (refused, or given up as "unknown"). Only a "placing" attempt is recorded, once: false
 * when another replica recorded it first (the caller then queues nothing).
 */
export async function recordAttempt(
  db: Db,
  key: AttemptKey,
  outcome: { state: "placed"; orderId: string; totalSun: bigint } | { state: "failed" | "unknown" },
  now: number,
): Promise<boolean> {
  const result = await db
    .updateTable("auto_buy_orders")
    .set({
      state: outcome.state,
      lease_owner: null,
      lease_until: null,
      updated_at: now,
      ...(outcome.state === "placed" ? { order_id: outcome.orderId, total_sun: outcome.totalSun.toString() } : {}),
    })
    .where("auto_buy_id", "=", key.auto_buy_id)
    .where("day", "=", key.day)
    .where("n", "=", key.n)
    .where("state", "=", "placing")
    .executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}

/**
 * An order an auto-buy placed failed and was refunded (the follower saw it): it no longer counts
 * against the day's budget, and its rental no longer covers the address. Returns the auto-buy's
 * id when the order was one of an auto-buy's.
 */
export async function markAutoBuyOrderFailed(db: Db, orderId: string, now: number): Promise<string | null> {
  const row = await db
    .updateTable("auto_buy_orders")
    .set({ state: "failed", updated_at: now })
    .where("order_id", "=", orderId)
    .where("state", "=", "placed")
    .returning("auto_buy_id")
    .executeTakeFirst();
  return row?.auto_buy_id ?? null;
}

/** An auto-buy's newest orders (placed or refunded), newest first. */
export async function lastAutoBuyOrders(db: Db, autoBuyId: string, limit: number): Promise<AutoBuyOrder[]> {
  const rows = await db
    .selectFrom("auto_buy_orders")
    .selectAll()
    .where("auto_buy_id", "=", autoBuyId)
    .where("order_id", "is not", null)
    .orderBy("created_at", "desc")
    .limit(limit)
    .execute();
  return rows.map(normalise);
}

/** What each of these auto-buys spent on UTC day `day` (placing and placed orders), in sun, by id. */
export async function spentOn(db: Db, autoBuyIds: string[], day: string): Promise<Map<string, bigint>> {
  const spent = new Map<string, bigint>();
  if (autoBuyIds.length === 0) return spent;
  const rows = await db
    .selectFrom("auto_buy_orders")
    .select(["auto_buy_id", "total_sun"])
    .where("auto_buy_id", "in", autoBuyIds)
    .where("day", "=", day)
    .where("state", "in", COUNTED)
    .execute();
  for (const row of rows) spent.set(row.auto_buy_id, (spent.get(row.auto_buy_id) ?? 0n) + BigInt(row.total_sun));
  return spent;
}

/** Gives back every attempt this replica holds (a clean stop): the next check takes them at once. */
export async function releaseAttemptLeases(db: Kysely<Database>, owner: string): Promise<number> {
  const result = await db
    .updateTable("auto_buy_orders")
    .set({ lease_owner: null, lease_until: null })
    .where("lease_owner", "=", owner)
    .executeTakeFirst();
  return Number(result.numUpdatedRows);
}

/** "placing" attempts no replica holds (their outcome unknown): a check settles them before anything new. */
export async function openAttemptsDue(db: Db, now: number, limit: number): Promise<AutoBuyOrder[]> {
  const rows = await db
    .selectFrom("auto_buy_orders")
    .selectAll()
    .where("state", "=", "placing")
    .where(leaseFree(now))
    .orderBy("created_at")
    .limit(limit)
    .execute();
  return rows.map(normalise);
}

/** The orders the user's auto-buys recorded as theirs: an order found in the list is never taken for two attempts. */
export async function takenOrderIds(db: Db, telegramId: number): Promise<Set<string>> {
  const rows = await db
    .selectFrom("auto_buy_orders")
    .select("order_id")
    .where("telegram_id", "=", telegramId)
    .where("order_id", "is not", null)
    .execute();
  return new Set(rows.map((row) => row.order_id!));
}

/**
 * Deletes up to `limit` settled attempts (placed, refunded or given up) created before `before`
 * whose rental has ended (the retention job). An open ("placing") attempt is never deleted: its
 * order may still have to be found.
 */
export async function deleteSettledAutoBuyOrdersBefore(
  db: Kysely<Database>,
  before: number,
  limit: number,
): Promise<number> {
  return deleteChunk(
    db,
    "auto_buy_orders",
    ["auto_buy_id", "day", "n"],
    limit,
    (eb) => eb.and([eb("state", "!=", "placing"), eb("created_at", "<", before), eb("rental_ends_at", "<", before)]),
    (eb) => eb("state", "!=", "placing"),
  );
}
