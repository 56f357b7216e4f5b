import type { ExpressionBuilder, Kysely, Selectable } from "kysely";
import type { Database, PendingActionsTable } from "../schema";
import { deleteChunk } from "../chunked-delete";

export type PendingAction = Selectable<PendingActionsTable>;

export async function createPendingAction(
  db: Kysely<Database>,
  action: {
    id: string;
    telegramId: number;
    kind: string;
    payload: unknown;
    idempotencyKey: string;
    chatId: number;
    now: number;
  },
): Promise<void> {
  await db
    .insertInto("pending_actions")
    .values({
      id: action.id,
      telegram_id: action.telegramId,
      kind: action.kind,
      payload: JSON.stringify(action.payload),
      idempotency_key: action.idempotencyKey,
      state: "pending",
      result: null,
      chat_id: action.chatId,
      message_id: null,
      created_at: action.now,
      updated_at: action.now,
    })
    .execute();
}

export async function findPendingAction(
  db: Kysely<Database>,
  telegramId: number,
  id: string,
): Promise<PendingAction | undefined> {
  return db
    .selectFrom("pending_actions")
    .selectAll()
    .where("id", "=", id)
    .where("telegram_id", "=", telegramId)
    .executeTakeFirst();
}

export async function setPendingActionMessage(db: Kysely<Database>, id: string, messageId: number): Promise<void> {
  await db.updateTable("pending_actions").set({ message_id: messageId }).where("id", "=", id).execute();
}

/**
 * Moves a card from one state to another only if it is still in `from`: the compare-and-set that
 * makes a Confirm tap one-shot even when two taps race (or reach two processes).
 */
export async function transitionPendingAction(
  db: Kysely<Database>,
  id: string,
  from: string[],
  to: string,
  now: number,
  result?: unknown,
  claim?: number,
): Promise<boolean> {
  let query = db
    .updateTable("pending_actions")
    .set({ state: to, updated_at: now, ...(result === undefined ? {} : { result: JSON.stringify(result) }) })
    .where("id", "=", id)
    .where("state", "in", from);
  // A Confirm's own outcome lands only while the card is still its claim (see claimPendingAction).
  if (claim !== undefined) query = query.where("updated_at", "=", claim);
  const update = await query.executeTakeFirst();
  return Number(update.numUpdatedRows) > 0;
}

/**
 * Closes the user's cards still waiting for Confirm (cancelled): they were previewed, and any
 * attempt of theirs made, under a key the user has just replaced, maybe of another account, where
 * a Confirm would now spend. A card being confirmed right now is left to finish.
 */
export async function closeOpenCards(db: Kysely<Database>, telegramId: number, now: number): Promise<number> {
  const update = await db
    .updateTable("pending_actions")
    .set({ state: "cancelled", updated_at: now })
    .where("telegram_id", "=", telegramId)
    .where("state", "=", "pending")
    .executeTakeFirst();
  return Number(update.numUpdatedRows);
}

/**
 * Whether Confirm already reached (or may have reached) the marketplace without a known outcome:
 * a timeout, a network error, a 5xx or a crash mid-call. Only such an attempt writes `result`
 * while the card is still pending or processing (cards written before this marker existed stored
 * JSON `null` there, which counts too). Such a card must keep its Idempotency-Key and never tell
 * the user that nothing happened.
 */
export function wasAttempted(action: PendingAction): boolean {
  return (action.state === "pending" || action.state === "processing") && action.result !== null;
}

/**
 * Records on a card that an attempt's outcome is unknown (see wasAttempted), with the time of the
 * first such attempt (a later call keeps it); keeps its state.
 */
export async function markPendingActionAttempted(db: Kysely<Database>, id: string, now: number): Promise<void> {
  await db
    .updateTable("pending_actions")
    .set({ result: JSON.stringify({ attempted: true, at: now }) })
    .where("id", "=", id)
    .where("result", "is", null)
    .execute();
}

/**
 * When a card's first attempt with an unknown outcome was made. Cards marked before the time was
 * recorded answer with their creation: the earliest the attempt can have been, so a window
 * measured from it closes early rather than late.
 */
export function firstAttemptAt(action: PendingAction): number {
  try {
    const at = (JSON.parse(action.result ?? "null") as { at?: unknown } | null)?.at;
    if (typeof at === "number" && Number.isFinite(at)) return at;
  } catch {
    // unreadable marker: fall through to the conservative answer
  }
  return action.created_at;
}

/**
 * Takes a card for a Confirm: moves it to "processing" from one of `from` and returns the claim
 * (its new `updated_at`), or null when another tap or replica has it. Every later write of that
 * Confirm is fenced by the claim, so a Confirm that was given up on (see processingDeadlineMs)
 * can no longer act on the card.
 */
export async function claimPendingAction(
  db: Kysely<Database>,
  id: string,
  from: string[],
  now: number,
): Promise<number | null> {
  return (await transitionPendingAction(db, id, from, "processing", now)) ? now : null;
}

/**
 * Renews a Confirm's claim before its next marketplace call; false when the card is no longer
 * this Confirm's (released as stuck, then maybe taken by another tap): the caller must stop.
 */
export async function renewClaim(db: Kysely<Database>, id: string, claim: number, now: number): Promise<number | null> {
  const next = Math.max(now, claim + 1);
  const update = await db
    .updateTable("pending_actions")
    .set({ updated_at: next })
    .where("id", "=", id)
    .where("state", "=", "processing")
    .where("updated_at", "=", claim)
    .executeTakeFirst();
  return Number(update.numUpdatedRows) > 0 ? next : null;
}

/** Marketplace calls one Confirm makes between two renewals of its claim (order lookup pages and the order itself). */
export const CALLS_PER_CLAIM = 3;
/** Room for the database writes, the pause before the second look, and a busy event loop. */
const PROCESSING_MARGIN_MS = 30_000;

/**
 * How long a card may stay in "processing" without its claim being renewed before it counts as
 * abandoned (a crash mid-call): longer than the longest stretch a live Confirm spends between two
 * renewals, which is CALLS_PER_CLAIM marketplace calls, each with every retry the client makes.
 * @param longestCallMs the longest one marketplace call can take (see longestMarketplaceCallMs)
 */
export function processingDeadlineMs(longestCallMs: number): number {
  return CALLS_PER_CLAIM * longestCallMs + PROCESSING_MARGIN_MS;
}

/**
 * Replaces what a still-pending card will do (a toggle on the card, a refreshed preview). Leaves
 * `updated_at` alone: it dates state changes. Returns false when the card is no longer pending.
 */
export async function setPendingActionPayload(db: Kysely<Database>, id: string, payload: unknown): Promise<boolean> {
  const update = await db
    .updateTable("pending_actions")
    .set({ payload: JSON.stringify(payload) })
    .where("id", "=", id)
    .where("state", "=", "pending")
    .executeTakeFirst();
  return Number(update.numUpdatedRows) > 0;
}

/**
 * Deletes up to `limit` cards whose state last changed before `before` (the retention job), in
 * any state but "processing": such a card is mid-Confirm, and the stuck-card release gives it back
 * as pending with a fresh date instead. Returns how many went.
 */
export async function deletePendingActionsChangedBefore(
  db: Kysely<Database>,
  before: number,
  limit: number,
): Promise<number> {
  const idle = (eb: ExpressionBuilder<Database, "pending_actions">) =>
    eb.and([eb("updated_at", "<", before), eb("state", "!=", "processing")]);
  // Repeated outside: a card pressed while this runs is kept.
  return deleteChunk(db, "pending_actions", "id", limit, idle, idle);
}

/** The stored results of a user's order cards other than `exceptId` that have one (JSON text, as written by the card). */
export async function otherOrderCardResults(
  db: Kysely<Database>,
  telegramId: number,
  exceptId: string,
): Promise<string[]> {
  const cards = await db
    .selectFrom("pending_actions")
    .select("result")
    .where("telegram_id", "=", telegramId)
    .where("kind", "=", "order")
    .where("id", "!=", exceptId)
    .where("result", "is not", null)
    .execute();
  return cards.map((row) => row.result!);
}

/** Up to `limit` cards left in "processing" since before `before` (a crash mid-Confirm): the stuck-card release gives them back. */
export async function findStuckPendingActions(db: Kysely<Database>, before: number, limit: number) {
  return db
    .selectFrom("pending_actions")
    .select(["id", "telegram_id", "message_id", "updated_at"])
    .where("state", "=", "processing")
    .where("updated_at", "<", before)
    .limit(limit)
    .execute();
}
