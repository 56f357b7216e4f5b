import {
  sql,
  type ExpressionBuilder,
  type InsertQueryBuilder,
  type InsertResult,
  type Kysely,
  type QueryCreator,
} from "kysely";
import type { Database } from "../schema";
import { prepared, type ParamFn } from "../prepared";
import { coordinating } from "../dialect";
import { deleteChunk } from "../chunked-delete";

/**
 * Counts one update of a user in their flood-limit window and returns its place in the window
 * (1 for the first). A window opens at a user's first update and lasts `windowMs`; the next update
 * after it opens a new one. One upsert, so replicas counting the same user at once each get their
 * own place: exactly one of them sees any given number.
 */
export async function countUpdateInWindow(
  db: Kysely<Database>,
  telegramId: number,
  now: number,
  windowMs: number,
): Promise<number> {
  // Compiled once: on PostgreSQL this runs for every update (see src/db/prepared.ts).
  // Committed asynchronously on PostgreSQL (see coordinating).
  const [row] = (await countQuery(coordinating(db), { telegramId, now, openedBefore: now - windowMs })).rows;
  if (!row) throw new Error("the update window upsert returned no row");
  return Number(row.updates);
}

const countQuery = prepared(
  (db: Kysely<Database>, param: ParamFn<{ telegramId: number; now: number; openedBefore: number }>) =>
    updateWindowUpsert(db, param),
);

/** The window's upsert, returning the user and their place in the window (also the source row of findUserWithState's counted read). */
export function updateWindowUpsert(
  db: QueryCreator<Database>,
  param: ParamFn<{ telegramId: number; now: number; openedBefore: number }>,
) {
  return updateWindowUpsertFrom(
    db
      .insertInto("update_windows")
      .values({ telegram_id: param("telegramId"), window_start: param("now"), updates: 1 }),
    param,
  );
}

/** The window's upsert of the rows `insert` inserts (each user once, window_start the update's time, updates 1), returning each user's place. */
export function updateWindowUpsertFrom(
  insert: InsertQueryBuilder<Database, "update_windows", InsertResult>,
  param: ParamFn<{ now: number; openedBefore: number }>,
) {
  const expired = sql<boolean>`update_windows.window_start < ${param("openedBefore")}`;
  return insert
    .onConflict((oc) =>
      oc.column("telegram_id").doUpdateSet({
        // Both read the row as it was before this update.
        window_start: sql<number>`case when ${expired} then ${param("now")} else update_windows.window_start end`,
        updates: sql<number>`case when ${expired} then 1 else update_windows.updates + 1 end`,
      }),
    )
    .returning(["telegram_id", "updates"]);
}

/** Deletes up to `limit` windows opened before `before` (the retention job). Returns how many went. */
export async function deleteUpdateWindowsBefore(db: Kysely<Database>, before: number, limit: number): Promise<number> {
  const old = (eb: ExpressionBuilder<Database, "update_windows">) => eb("window_start", "<", before);
  // Repeated outside: a window reopened while this runs is kept.
  return deleteChunk(db, "update_windows", "telegram_id", limit, old, old);
}
