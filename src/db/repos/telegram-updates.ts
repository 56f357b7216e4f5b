import { sql, type Kysely, type Transaction } from "kysely";
import type { Database } from "../schema";
import { isPostgres } from "../dialect";
import { deleteChunk } from "../chunked-delete";

// Telegram updates in webhook mode: one row per update_id (its dedupe), with the turn its chat takes.
// done: 0 waiting, 2 being handled, 1 done. Times are wall-clock milliseconds.

type Db = Kysely<Database> | Transaction<Database>;

/** First key of the two-key advisory locks taken for chat turns (the second is the chat's hash). */
const TURN_LOCK_SPACE = 7_340_121;

/**
 * Records an update as waiting for its turn, held by `owner`; also takes over a waiting update
 * whose holder's lease ran out, or one this replica took and whose handling is over without a
 * record of it. Returns false for a duplicate.
 */
export async function claimWaitingUpdate(
  db: Db,
  updateId: number,
  chatId: number,
  owner: string,
  now: number,
  leaseMs: number,
): Promise<boolean> {
  const claimed = await db
    .insertInto("telegram_updates")
    .values({ update_id: updateId, chat_id: chatId, owner, lease_until: now + leaseMs, done: 0, received_at: now })
    .onConflict((oc) =>
      oc
        .column("update_id")
        .doUpdateSet({ owner, lease_until: now + leaseMs })
        // A waiting update whose holder's lease ran out; or one this replica took and whose
        // handling is over without a record of it (the database went away before the turn could
        // be given back): a chat's updates run one at a time here, so none of its handling runs now.
        .where((eb) =>
          eb.or([
            eb.and([eb("telegram_updates.done", "=", 0), eb("telegram_updates.lease_until", "<", now)]),
            eb.and([eb("telegram_updates.owner", "=", owner), eb("telegram_updates.done", "!=", 1)]),
          ]),
        ),
    )
    .executeTakeFirst();
  return Number(claimed.numInsertedOrUpdatedRows ?? 0n) > 0;
}

/**
 * Records an update as being handled by `owner` at once (one process: no turn to wait for);
 * also takes over a row not done. Returns false for a duplicate (a row already done).
 */
export async function claimUpdateNow(
  db: Db,
  updateId: number,
  chatId: number,
  owner: string,
  now: number,
  leaseMs: number,
): Promise<boolean> {
  const claimed = await db
    .insertInto("telegram_updates")
    .values({ update_id: updateId, chat_id: chatId, owner, lease_until: now + leaseMs, done: 2, received_at: now })
    .onConflict((oc) =>
      oc
        .column("update_id")
        .doUpdateSet({ owner, lease_until: now + leaseMs, done: 2 })
        .where("telegram_updates.done", "!=", 1),
    )
    .executeTakeFirst();
  return Number(claimed.numInsertedOrUpdatedRows ?? 0n) > 0;
}

/** Renews the lease `owner` holds on an update while its handler runs. */
export async function renewUpdateLease(
  db: Kysely<Database>,
  updateId: number,
  owner: string,
  leaseUntil: number,
): Promise<void> {
  await db
    .updateTable("telegram_updates")
    .set({ lease_until: leaseUntil })
    .where("update_id", "=", updateId)
    .where("owner", "=", owner)
    .execute();
}

/**
 * In one transaction: when no live earlier update of the chat is waiting and none is being
 * handled, marks this one as being handled and returns true. The check and the mark run under a
 * per-chat lock (pg_advisory_xact_lock on PostgreSQL; SQLite has one writer), so two replicas
 * cannot both go. Reads the wall clock once the lock is held.
 */
export async function startTurnIfFree(
  trx: Transaction<Database>,
  updateId: number,
  chatId: number,
  leaseMs: number,
): Promise<boolean> {
  if (isPostgres<Database>(trx))
    await sql`select pg_advisory_xact_lock(${TURN_LOCK_SPACE}::int, hashtext(${String(chatId)}))`.execute(trx);
  const current = Date.now();
  const blocker = await trx
    .selectFrom("telegram_updates")
    .select("update_id")
    .where("chat_id", "=", chatId)
    .where("lease_until", ">=", current)
    .where("update_id", "!=", updateId)
    .where((eb) => eb.or([eb.and([eb("done", "=", 0), eb("update_id", "<", updateId)]), eb("done", "=", 2)]))
    .limit(1)
    .executeTakeFirst();
  if (blocker) return false;
  await trx
    .updateTable("telegram_updates")
    .set({ done: 2, lease_until: current + leaseMs })
    .where("update_id", "=", updateId)
    .execute();
  return true;
}

/** Marks an update as being handled without its turn (it waited far too long). */
export async function markUpdateHandling(db: Db, updateId: number): Promise<void> {
  await db.updateTable("telegram_updates").set({ done: 2 }).where("update_id", "=", updateId).execute();
}

/** Marks an update as handled: a redelivery from now on is a duplicate. */
export async function markUpdateDone(db: Db, updateId: number): Promise<void> {
  await db.updateTable("telegram_updates").set({ done: 1 }).where("update_id", "=", updateId).execute();
}

/** Forgets an update `owner` failed to handle, so a redelivery by Telegram tries again at once. */
export async function forgetUpdate(db: Db, updateId: number, owner: string): Promise<void> {
  await db.deleteFrom("telegram_updates").where("update_id", "=", updateId).where("owner", "=", owner).execute();
}

/** How long a received update is remembered for redelivery dedupe (Telegram gives up well before). */
export const UPDATE_DEDUPE_MS = 86_400_000;

/**
 * Forgets updates received over UPDATE_DEDUPE_MS ago that nobody holds: finished ones, and those
 * whose handler died with its replica (their lease ran out). At most `limit` a call; wall-clock
 * `now`, as the turns' own times. Returns how many went.
 */
export async function pruneTelegramUpdates(db: Kysely<Database>, now: number, limit = 10_000): Promise<number> {
  const before = now - UPDATE_DEDUPE_MS;
  return deleteChunk(
    db,
    "telegram_updates",
    "update_id",
    limit,
    (eb) => eb.and([eb("received_at", "<", before), eb("lease_until", "<", now)]),
    (eb) => eb("lease_until", "<", now),
  );
}
