import type { Kysely, Transaction } from "kysely";
import type { Database } from "../schema";
import { prepared, type ParamFn } from "../prepared";

/** A stored guided flow: the conversations plugin's state (a JSON string, versioned inside) and where the user is. */
export interface StoredConversation {
  flow: string;
  step: string;
  state: string;
  updatedAt: number;
}

/** A stored flow from its row's columns (also when read joined to the user's row). */
export function storedConversation(row: { flow: string; step: string; state: string; updated_at: number | string }): StoredConversation {
  return { flow: row.flow, step: row.step, state: row.state, updatedAt: Number(row.updated_at) };
}

const findQuery = prepared((db: Kysely<Database>, param: ParamFn<{ chatId: number }>) => db.selectFrom("conversations").select(["flow", "step", "state", "updated_at"]).where("chat_id", "=", param("chatId")));

/** The guided flow of a chat, if one is stored. */
export async function findConversation(db: Kysely<Database>, chatId: number): Promise<StoredConversation | null> {
  const [row] = (await findQuery(db, { chatId })).rows;
  return row ? storedConversation(row) : null;
}

type SaveParams = { chatId: number; flow: string; step: string; state: string; now: number };

/** The upsert of a flow's state; on conflict it replaces the stored step, or keeps it (`keepStep`). */
function saveQuery(keepStep: boolean) {
  return prepared((db: Kysely<Database>, param: ParamFn<SaveParams>) => {
    const update = { flow: param("flow"), state: param("state"), updated_at: param("now") };
    return db
      .insertInto("conversations")
      .values({ chat_id: param("chatId"), step: param("step"), ...update })
      .onConflict((oc) => oc.column("chat_id").doUpdateSet(keepStep ? update : { ...update, step: param("step") }));
  });
}

const saveQueries = { newStep: saveQuery(false), sameStep: saveQuery(true) };

/**
 * Stores a chat's flow state. `step` null keeps the step already stored (an update that asked
 * nothing new, such as a refused answer or a button of another feature, leaves it as it was).
 * Compiled once: a guided flow writes on every step.
 */
export async function saveConversation(db: Kysely<Database> | Transaction<Database>, chatId: number, row: { flow: string; step: string | null; state: string }, now: number): Promise<void> {
  const query = row.step === null ? saveQueries.sameStep : saveQueries.newStep;
  await query(db, { chatId, flow: row.flow, step: row.step ?? "", state: row.state, now });
}

const deleteQuery = prepared((db: Kysely<Database>, param: ParamFn<{ chatId: number }>) => db.deleteFrom("conversations").where("chat_id", "=", param("chatId")));

export async function deleteConversation(db: Kysely<Database> | Transaction<Database>, chatId: number): Promise<void> {
  await deleteQuery(db, { chatId });
}

/**
 * Deletes up to `limit` flows untouched since `before` (the retention job: a step expires after
 * minutes, so these are long dead). Returns how many went.
 */
export async function deleteConversationsUpdatedBefore(db: Kysely<Database>, before: number, limit: number): Promise<number> {
  const stale = db.selectFrom("conversations").select("chat_id").where("updated_at", "<", before).limit(limit);
  const result = await db.deleteFrom("conversations").where("chat_id", "in", stale).executeTakeFirst();
  return Number(result.numDeletedRows);
}
