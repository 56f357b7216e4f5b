import { randomUUID } from "node:crypto";
import type { Kysely } from "kysely";
import type { Database } from "../schema";
import { deleteChunk } from "../chunked-delete";

export interface AttemptCap {
  limit: number;
  windowMs: number;
}

/**
 * Records a /connect attempt unless the user already made `cap.limit` in the last `cap.windowMs`.
 * The row is written first and the window counted after, so concurrent attempts (other replicas
 * included) can never all pass: a later count sees every earlier row. An attempt over the cap
 * takes its row back, so refusals do not extend the wait. Rows past the window are pruned here,
 * which keeps the table at about one hour of attempts without a separate job.
 */
export async function tryConnectAttempt(
  db: Kysely<Database>,
  telegramId: number,
  now: number,
  cap: AttemptCap,
): Promise<boolean> {
  const since = now - cap.windowMs;
  await db.deleteFrom("connect_attempts").where("attempted_at", "<=", since).execute();
  const id = randomUUID();
  await db.insertInto("connect_attempts").values({ id, telegram_id: telegramId, attempted_at: now }).execute();
  const row = await db
    .selectFrom("connect_attempts")
    .select((eb) => eb.fn.countAll<number | string>().as("count"))
    .where("telegram_id", "=", telegramId)
    .where("attempted_at", ">", since)
    .executeTakeFirstOrThrow();
  // PostgreSQL returns count(*) as a string (bigint).
  if (Number(row.count) <= cap.limit) return true;
  await db.deleteFrom("connect_attempts").where("id", "=", id).execute();
  return false;
}

/** Deletes up to `limit` attempts made before `before` (the retention job, for a bot nobody /connects to). */
export async function deleteConnectAttemptsBefore(
  db: Kysely<Database>,
  before: number,
  limit: number,
): Promise<number> {
  return deleteChunk(db, "connect_attempts", "id", limit, (eb) => eb("attempted_at", "<", before));
}
