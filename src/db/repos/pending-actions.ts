import type { Kysely, Selectable } from "kysely";
import type { Database, PendingActionsTable } from "../schema";

export type PendingAction = Selectable<PendingActionsTable>;

export async function createPendingAction(
  db: Kysely<Database>,
  action: { id: string; telegramId: number; kind: string; payload: unknown; idempotencyKey: string; chatId: number; now: number },
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

export async function findPendingAction(db: Kysely<Database>, telegramId: number, id: string): Promise<PendingAction | undefined> {
  return db.selectFrom("pending_actions").selectAll().where("id", "=", id).where("telegram_id", "=", telegramId).executeTakeFirst();
}

export async function setPendingActionMessage(db: Kysely<Database>, id: string, messageId: number): Promise<void> {
  await db.updateTable("pending_actions").set({ message_id: messageId }).where("id", "=", id).execute();
}

/**
 * Moves a card from one state to another only if it is still in `from`: the compare-and-set that
 * makes a Confirm tap one-shot even when two taps race (or reach two processes).
 */
export async function transitionPendingAction(db: Kysely<Database>, id: string, from: string[], to: string, now: number, result?: unknown): Promise<boolean> {
  const update = await db
    .updateTable("pending_actions")
    .set({ state: to, updated_at: now, ...(result === undefined ? {} : { result: JSON.stringify(result) }) })
    .where("id", "=", id)
    .where("state", "in", from)
    .executeTakeFirst();
  return Number(update.numUpdatedRows) > 0;
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

/** Records on a card that an attempt's outcome is unknown (see wasAttempted); keeps its state. */
export async function markPendingActionAttempted(db: Kysely<Database>, id: string): Promise<void> {
  await db.updateTable("pending_actions").set({ result: JSON.stringify({ attempted: true }) }).where("id", "=", id).where("result", "is", null).execute();
}

/**
 * Replaces what a still-pending card will do (a toggle on the card, a refreshed preview). Leaves
 * `updated_at` alone: it dates state changes. Returns false when the card is no longer pending.
 */
export async function setPendingActionPayload(db: Kysely<Database>, id: string, payload: unknown): Promise<boolean> {
  const update = await db.updateTable("pending_actions").set({ payload: JSON.stringify(payload) }).where("id", "=", id).where("state", "=", "pending").executeTakeFirst();
  return Number(update.numUpdatedRows) > 0;
}

/**
 * Deletes up to `limit` cards whose state last changed before `before` (the retention job), in
 * any state but "processing": such a card is mid-Confirm, and the stuck-card release gives it back
 * as pending with a fresh date instead. Returns how many went.
 */
export async function deletePendingActionsChangedBefore(db: Kysely<Database>, before: number, limit: number): Promise<number> {
  const result = await db
    .deleteFrom("pending_actions")
    .where("id", "in", (eb) => eb.selectFrom("pending_actions").select("id").where("updated_at", "<", before).where("state", "!=", "processing").limit(limit))
    // Repeated outside: a card pressed while this runs is kept (PostgreSQL rechecks the new row).
    .where("updated_at", "<", before)
    .where("state", "!=", "processing")
    .executeTakeFirst();
  return Number(result.numDeletedRows);
}
