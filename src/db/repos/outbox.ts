import { sql, type Kysely, type Selectable, type Transaction } from "kysely";
import type { Database, OutboxTable } from "../schema";
import { claimedKeys, leaseFor, leaseFree } from "../lease-claim";
import { deleteChunk } from "../chunked-delete";

export type OutboxRow = Selectable<OutboxTable>;
export interface OutboxPayload {
  /**
   * editMessageText: a card a crash left on "processing…" is given its buttons back (stuck-cards.ts).
   * sendDigest: not a Bot API method; the sender has the weekly digest built when it is due (digest.ts).
   */
  method: "sendMessage" | "sendPhoto" | "editMessageText" | "sendDigest";
  params: Record<string, unknown>;
}

/**
 * Queues one pushed message. The (user, dedupe key) pair is unique, so the same event reaching us
 * by webhook, notification poll and order poll is queued once. Returns false for a duplicate.
 * Call inside the transaction that records the event, so "acknowledged" implies "queued".
 */
export async function enqueueAlert(
  db: Kysely<Database> | Transaction<Database>,
  alert: {
    telegramId: number;
    chatId: number;
    dedupeKey: string;
    payload: OutboxPayload;
    now: number;
    notBefore?: number;
  },
): Promise<boolean> {
  const result = await db
    .insertInto("outbox")
    .values({
      telegram_id: alert.telegramId,
      chat_id: alert.chatId,
      dedupe_key: alert.dedupeKey,
      payload: JSON.stringify(alert.payload),
      status: "queued",
      attempts: 0,
      next_attempt_at: alert.notBefore ?? alert.now,
      last_error: null,
      lease_owner: null,
      lease_until: null,
      created_at: alert.now,
      sent_at: null,
    })
    .onConflict((oc) => oc.columns(["telegram_id", "dedupe_key"]).doNothing())
    .executeTakeFirst();
  return (result.numInsertedOrUpdatedRows ?? 0n) > 0n;
}

/** An alert to queue in a batch: its payload already serialised (see enqueueAlert). */
export interface QueuedAlert {
  telegramId: number;
  chatId: number;
  dedupeKey: string;
  payload: string;
  at: number;
}

/**
 * Queues many alerts in one statement, each once per (user, dedupe key) as enqueueAlert does.
 * Returns how many were new. Call inside the transaction that records their events.
 */
export async function enqueueAlerts(
  db: Kysely<Database> | Transaction<Database>,
  alerts: readonly QueuedAlert[],
): Promise<number> {
  if (alerts.length === 0) return 0;
  const inserted = await db
    .insertInto("outbox")
    .values(
      alerts.map((alert) => ({
        telegram_id: alert.telegramId,
        chat_id: alert.chatId,
        dedupe_key: alert.dedupeKey,
        payload: alert.payload,
        status: "queued",
        attempts: 0,
        next_attempt_at: alert.at,
        last_error: null,
        lease_owner: null,
        lease_until: null,
        created_at: alert.at,
        sent_at: null,
      })),
    )
    .onConflict((oc) => oc.columns(["telegram_id", "dedupe_key"]).doNothing())
    .returning("id")
    .execute();
  return inserted.length;
}

/**
 * Queues copies of alerts into groups (team alerts; chat ids below zero). One per event in each
 * group: a copy whose group already has that event's key (another member's copy of the same
 * event) is left out, as is one whose owner already queued it. Returns how many were new. Call
 * inside the transaction that queues the private alerts.
 */
export async function enqueueGroupAlerts(
  db: Kysely<Database> | Transaction<Database>,
  alerts: readonly QueuedAlert[],
): Promise<number> {
  let queued = 0;
  for (const alert of alerts) {
    if (alert.chatId >= 0) throw new Error("a group alert needs a group's chat id (below zero)");
    const result = await db
      .insertInto("outbox")
      .values({
        telegram_id: alert.telegramId,
        chat_id: alert.chatId,
        dedupe_key: alert.dedupeKey,
        payload: alert.payload,
        status: "queued",
        attempts: 0,
        next_attempt_at: alert.at,
        last_error: null,
        lease_owner: null,
        lease_until: null,
        created_at: alert.at,
        sent_at: null,
      })
      // No target: either unique key (the owner's, or the group's) makes it a duplicate.
      .onConflict((oc) => oc.doNothing())
      .executeTakeFirst();
    if ((result.numInsertedOrUpdatedRows ?? 0n) > 0n) queued += 1;
  }
  return queued;
}

/** Drops what was still queued for one user's group (the link ended: nothing is sent into the void). Returns how many. */
export async function dropQueuedGroupAlerts(
  db: Kysely<Database> | Transaction<Database>,
  telegramId: number,
  groupChatId: number,
  reason: string,
): Promise<number> {
  const result = await db
    .updateTable("outbox")
    .set({ status: "dropped", last_error: reason, lease_owner: null, lease_until: null })
    .where("telegram_id", "=", telegramId)
    .where("chat_id", "=", groupChatId)
    .where("status", "=", "queued")
    .executeTakeFirst();
  return Number(result.numUpdatedRows);
}

/** Drops every alert still queued for a user (they blocked the bot: each would meet the same 403). Returns how many. */
export async function dropQueuedAlerts(
  db: Kysely<Database> | Transaction<Database>,
  telegramId: number,
  reason: string,
): Promise<number> {
  const result = await db
    .updateTable("outbox")
    .set({ status: "dropped", last_error: reason, lease_owner: null, lease_until: null })
    .where("telegram_id", "=", telegramId)
    .where("status", "=", "queued")
    .executeTakeFirst();
  return Number(result.numUpdatedRows);
}

/**
 * Deletes every alert of a user, queued or sent, their group copies included (/disconnect: an
 * alert's text is theirs). A row a sender holds right now is deleted too; its send goes out once
 * and its outcome is recorded on nothing.
 */
export async function deleteAlertsOf(db: Kysely<Database> | Transaction<Database>, telegramId: number): Promise<void> {
  await db.deleteFrom("outbox").where("telegram_id", "=", telegramId).execute();
}

/**
 * Claims due rows with a lease: only the oldest queued row of each chat (so a chat's alerts leave
 * in order, and a row backing off or leased holds the ones behind it), only rows nobody holds, and
 * only in chats whose next turn (chat_send, shared by every replica) has come. One claim
 * ({@link claimedKeys}): replicas claiming at the same moment take disjoint rows.
 */
export async function claimDue(
  db: Kysely<Database>,
  owner: string,
  now: number,
  limit: number,
  leaseMs: number,
): Promise<OutboxRow[]> {
  const candidates = db
    .selectFrom("outbox as o")
    .select("o.id")
    .where("o.status", "=", "queued")
    .where("o.next_attempt_at", "<=", now)
    .where(leaseFree(now, "o.lease_until"))
    .where("o.id", "=", (e) =>
      e
        .selectFrom("outbox as p")
        .select((f) => f.fn.min("p.id").as("min_id"))
        .where("p.chat_id", "=", e.ref("o.chat_id"))
        .where("p.status", "=", "queued"),
    )
    .where((e) =>
      e.not(
        e.exists(
          e
            .selectFrom("chat_send as cs")
            .select("cs.chat_id")
            .whereRef("cs.chat_id", "=", "o.chat_id")
            .where("cs.next_send_at", ">", now),
        ),
      ),
    )
    .orderBy("o.next_attempt_at")
    .orderBy("o.id")
    .limit(limit);
  const rows = await db
    .updateTable("outbox")
    .set(leaseFor(owner, now + leaseMs))
    .where(claimedKeys(db, "id", candidates, now))
    .where("status", "=", "queued")
    .returningAll()
    .execute();
  return rows.sort((a, b) => a.next_attempt_at - b.next_attempt_at || a.id - b.id);
}

/**
 * Records a row as sent. Only the lease holder may (a replica whose lease ran out and was taken
 * over must not overwrite the new holder's outcome); returns false when the lease was lost.
 */
export async function markSent(db: Kysely<Database>, id: number, now: number, owner?: string): Promise<boolean> {
  const result = await db
    .updateTable("outbox")
    .set({ status: "sent", sent_at: now, lease_owner: null, lease_until: null, attempts: sql`attempts + 1` })
    .where("id", "=", id)
    .$if(owner !== undefined, (qb) => qb.where("lease_owner", "=", owner!))
    .executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}

/** The number of queued rows this replica holds a lease on (for /metrics). */
export async function leasedBy(db: Kysely<Database>, owner: string, now: number): Promise<number> {
  const row = await db
    .selectFrom("outbox")
    .select((eb) => eb.fn.countAll<number>().as("n"))
    .where("status", "=", "queued")
    .where("lease_owner", "=", owner)
    .where("lease_until", ">=", now)
    .executeTakeFirst();
  return Number(row?.n ?? 0);
}

/**
 * Puts a row back for another attempt later. Like markSent, only the lease holder may when
 * `owner` is given: a replica whose lease ran out must not overwrite the new holder's outcome
 * (a sent row turned back to queued would be sent twice). Returns false when the lease was lost.
 */
export async function markRetry(
  db: Kysely<Database>,
  id: number,
  nextAttemptAt: number,
  error: string,
  owner?: string,
): Promise<boolean> {
  const result = await db
    .updateTable("outbox")
    .set({
      next_attempt_at: nextAttemptAt,
      last_error: error.slice(0, 500),
      lease_owner: null,
      lease_until: null,
      attempts: sql`attempts + 1`,
    })
    .where("id", "=", id)
    .$if(owner !== undefined, (qb) => qb.where("lease_owner", "=", owner!))
    .executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}

/** Gives a row up for good; with `owner`, only while this replica holds its lease (see markRetry). */
export async function markDropped(db: Kysely<Database>, id: number, error: string, owner?: string): Promise<boolean> {
  const result = await db
    .updateTable("outbox")
    .set({ status: "dropped", last_error: error.slice(0, 500), lease_owner: null, lease_until: null })
    .where("id", "=", id)
    .$if(owner !== undefined, (qb) => qb.where("lease_owner", "=", owner!))
    .executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}

/** Releases a lease without counting an attempt (the chat was not due yet). */
export async function releaseLease(
  db: Kysely<Database>,
  id: number,
  nextAttemptAt: number,
  owner?: string,
): Promise<void> {
  await db
    .updateTable("outbox")
    .set({ lease_owner: null, lease_until: null, next_attempt_at: nextAttemptAt })
    .where("id", "=", id)
    .$if(owner !== undefined, (qb) => qb.where("lease_owner", "=", owner!))
    .execute();
}

/**
 * Gives back every queued row this replica still holds a lease on. Only for a stopped sender
 * (no send in flight): a row released while its send is in flight could be sent twice.
 */
export async function releaseLeasesOf(db: Kysely<Database>, owner: string): Promise<number> {
  const result = await db
    .updateTable("outbox")
    .set({ lease_owner: null, lease_until: null })
    .where("lease_owner", "=", owner)
    .where("status", "=", "queued")
    .executeTakeFirst();
  return Number(result.numUpdatedRows);
}

/**
 * When a queued row may next be claimable, at or after `now`: the earliest future attempt time,
 * or the earliest next turn of a chat with queued rows (null when nothing is queued).
 */
export async function nextClaimableAt(db: Kysely<Database>, now: number): Promise<number | null> {
  const due = await nextDueAt(db);
  if (due === null) return null;
  if (due > now) return due;
  const row = await db
    .selectFrom("chat_send as cs")
    .select((eb) => eb.fn.min("cs.next_send_at").as("at"))
    .where("cs.next_send_at", ">", now)
    .where((eb) =>
      eb.exists(
        eb
          .selectFrom("outbox as o")
          .select("o.id")
          .whereRef("o.chat_id", "=", "cs.chat_id")
          .where("o.status", "=", "queued"),
      ),
    )
    .executeTakeFirst();
  return row?.at === null || row?.at === undefined ? now : Number(row.at);
}

/** When the earliest queued row becomes due (null when nothing is queued). */
export async function nextDueAt(db: Kysely<Database>): Promise<number | null> {
  const row = await db
    .selectFrom("outbox")
    .select((eb) => eb.fn.min("next_attempt_at").as("at"))
    .where("status", "=", "queued")
    .executeTakeFirst();
  return row?.at === null || row?.at === undefined ? null : Number(row.at);
}

export async function queueDepth(db: Kysely<Database>): Promise<number> {
  const row = await db
    .selectFrom("outbox")
    .select((eb) => eb.fn.countAll<number>().as("n"))
    .where("status", "=", "queued")
    .executeTakeFirst();
  return Number(row?.n ?? 0);
}

/**
 * Deletes up to `limit` finished rows: sent before `before`, or dropped with their last attempt
 * before it (the retention job). A queued row is never touched, whatever its age. Deleting a row
 * frees its dedupe key, so `before` must lie past every path's own dedupe window. Returns how many went.
 */
export async function deleteFinishedAlerts(db: Kysely<Database>, before: number, limit: number): Promise<number> {
  const finished = (status: "sent" | "dropped", at: "sent_at" | "next_attempt_at", most: number) =>
    deleteChunk(
      db,
      "outbox",
      "id",
      most,
      (eb) => eb.and([eb("status", "=", status), eb(at, "<", before)]),
      (eb) => eb("status", "=", status),
    );
  const sent = await finished("sent", "sent_at", limit);
  const left = limit - sent;
  if (left <= 0) return limit;
  return sent + (await finished("dropped", "next_attempt_at", left));
}
