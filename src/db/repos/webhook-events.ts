import type { ExpressionBuilder, Kysely, Transaction } from "kysely";
import type { Database } from "../schema";
import { deleteChunk } from "../chunked-delete";

// Marketplace webhook events received: their dedupe keys, so a redelivery is acknowledged and queues nothing.

/**
 * Records events' dedupe keys (those already recorded stay as they are), inside the caller's
 * transaction, in statements of at most `chunk` rows. Returns the keys that were new.
 */
export async function recordWebhookEvents(
  trx: Transaction<Database>,
  events: { dedupe_key: string; received_at: number }[],
  chunk: number,
): Promise<Set<string>> {
  const fresh = new Set<string>();
  for (let start = 0; start < events.length; start += chunk) {
    const rows = await trx
      .insertInto("webhook_events")
      .values(events.slice(start, start + chunk))
      .onConflict((oc) => oc.doNothing())
      .returning("dedupe_key")
      .execute();
    for (const row of rows) fresh.add(row.dedupe_key);
  }
  return fresh;
}

/** How long a webhook's dedupe key is kept: 4 days (senders retry for up to 3). */
export const WEBHOOK_DEDUPE_MS = 4 * 86_400_000;

/** Forgets dedupe keys past WEBHOOK_DEDUPE_MS, at most `limit` of them a call. Returns how many went. */
export async function pruneWebhookEvents(db: Kysely<Database>, now: number, limit = 10_000): Promise<number> {
  const before = now - WEBHOOK_DEDUPE_MS;
  const old = (eb: ExpressionBuilder<Database, "webhook_events">) => eb("received_at", "<", before);
  return deleteChunk(db, "webhook_events", "dedupe_key", limit, old, old);
}
