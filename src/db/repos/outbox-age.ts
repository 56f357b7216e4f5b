import type { Kysely } from "kysely";
import type { Database } from "../schema";

/**
 * How long the oldest alert still queued has waited, in seconds at `now` (ms); 0 when none waits.
 * Its row's created_at is its event's time. Reads only queued rows (the outbox_due index), once a
 * scrape: the outbox_oldest_alert_age_seconds gauge.
 */
export async function oldestQueuedAlertAgeSeconds(db: Kysely<Database>, now: number): Promise<number> {
  const row = await db
    .selectFrom("outbox")
    .select((eb) => eb.fn.min<number | string | null>("created_at").as("oldest"))
    .where("status", "=", "queued")
    .executeTakeFirst();
  if (row?.oldest === null || row?.oldest === undefined) return 0;
  return Math.max(0, (now - Number(row.oldest)) / 1000);
}
