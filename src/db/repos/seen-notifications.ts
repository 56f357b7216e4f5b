import type { Kysely, Transaction } from "kysely";
import type { Database } from "../schema";

// The notifications each user's polls have already relayed or passed over.

/**
 * How long after it was first seen a notification is remembered once it has left the first page.
 * The poller reads further pages only until one holds a notification it remembers, and the ones on
 * the first page are never forgotten, so it always finds one; past that, a notification older than
 * the newest seen is never taken for new (`seen_until`).
 */
export const SEEN_NOTIFICATION_MS = 4 * 86_400_000;

/** Which of `ids` the user has already seen. */
export async function seenAmong(db: Kysely<Database>, telegramId: number, ids: string[]): Promise<Set<string>> {
  if (ids.length === 0) return new Set();
  const rows = await db
    .selectFrom("seen_notifications")
    .select("notification_id")
    .where("telegram_id", "=", telegramId)
    .where("notification_id", "in", ids)
    .execute();
  return new Set(rows.map((row) => row.notification_id));
}

/** Records notifications as seen (those already recorded stay as they are), inside the caller's transaction. */
export async function recordSeen(
  trx: Transaction<Database>,
  rows: { telegram_id: number; notification_id: string; seen_at: number }[],
): Promise<void> {
  for (let start = 0; start < rows.length; start += 300) {
    await trx
      .insertInto("seen_notifications")
      .values(rows.slice(start, start + 300))
      .onConflict((oc) => oc.doNothing())
      .execute();
  }
}

/** Forgets a user's notifications seen before `before` that are no longer on the first page. */
export async function forgetSeenOffFirstPage(
  trx: Transaction<Database>,
  telegramId: number,
  firstPage: string[],
  before: number,
): Promise<void> {
  if (firstPage.length === 0) return;
  await trx
    .deleteFrom("seen_notifications")
    .where("telegram_id", "=", telegramId)
    .where("seen_at", "<", before)
    .where("notification_id", "not in", firstPage)
    .execute();
}
