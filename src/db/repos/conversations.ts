import { sql, type Kysely, type Transaction } from "kysely";
import type { Database } from "../schema";
import { prepared, type ParamFn } from "../prepared";
import { isPostgres } from "../dialect";
import { perDatabase, type BatcherCounts, type StatementBatcherOptions } from "../statement-batcher";
import { deleteChunk } from "../chunked-delete";

/** A stored guided flow: the conversations plugin's state (a JSON string, versioned inside) and where the user is. */
export interface StoredConversation {
  flow: string;
  step: string;
  state: string;
  updatedAt: number;
}

/** A stored flow from its row's columns (also when read joined to the user's row). */
export function storedConversation(row: {
  flow: string;
  step: string;
  state: string;
  updated_at: number | string;
}): StoredConversation {
  return { flow: row.flow, step: row.step, state: row.state, updatedAt: Number(row.updated_at) };
}

const findQuery = prepared((db: Kysely<Database>, param: ParamFn<{ chatId: number }>) =>
  db.selectFrom("conversations").select(["flow", "step", "state", "updated_at"]).where("chat_id", "=", param("chatId")),
);

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
export async function saveConversation(
  db: Kysely<Database> | Transaction<Database>,
  chatId: number,
  row: { flow: string; step: string | null; state: string },
  now: number,
): Promise<void> {
  // Outside a transaction on PostgreSQL, concurrent chats' saves share a statement (and its commit) while the replica is busy.
  if (!db.isTransaction && isPostgres(db))
    return conversationSaves(db).run({ chatId, flow: row.flow, step: row.step, state: row.state, now });
  const query = row.step === null ? saveQueries.sameStep : saveQueries.newStep;
  await query(db, { chatId, flow: row.flow, step: row.step ?? "", state: row.state, now });
}

interface Save {
  chatId: number;
  flow: string;
  /** Null keeps the stored step. */
  step: string | null;
  state: string;
  now: number;
}

/** Per PostgreSQL database, the batcher of the flows' saves (see StatementBatcher). */
const conversationSaves = perDatabase((db: Kysely<Database>): StatementBatcherOptions<Save, void> => ({
  key: (save) => save.chatId,
  one: async (save) => {
    await (save.step === null ? saveQueries.sameStep : saveQueries.newStep)(db, {
      chatId: save.chatId,
      flow: save.flow,
      step: save.step ?? "",
      state: save.state,
      now: save.now,
    });
  },
  many: async (saves) => {
    await saveManyQuery(db, {
      chatIds: saves.map((save) => save.chatId),
      flows: saves.map((save) => save.flow),
      steps: saves.map((save) => save.step ?? ""),
      keepSteps: saves.map((save) => save.step === null),
      states: saves.map((save) => save.state),
      now: Math.max(...saves.map((save) => save.now)),
    });
    return saves.map(() => undefined);
  },
}));

/** How many statements the flows' saves on `db` took, for how many saves (PostgreSQL; null on SQLite). */
export function conversationSaveStatements(db: Kysely<Database>): BatcherCounts | null {
  return isPostgres(db) ? conversationSaves(db).counts : null;
}

/** saveQuery for several chats (PostgreSQL): each chat once, each keeping its stored step or not. */
const saveManyQuery = prepared(
  (
    db: Kysely<Database>,
    param: ParamFn<{
      chatIds: number[];
      flows: string[];
      steps: string[];
      keepSteps: boolean[];
      states: string[];
      now: number;
    }>,
  ) => {
    const query = sql`
    with input as (
      select * from unnest(cast(${param("chatIds")} as bigint[]), cast(${param("flows")} as text[]), cast(${param("steps")} as text[]), cast(${param("keepSteps")} as boolean[]), cast(${param("states")} as text[])) as i(chat_id, flow, step, keep_step, state)
    )
    insert into conversations (chat_id, step, flow, state, updated_at)
    select chat_id, step, flow, state, cast(${param("now")} as bigint) from input
    on conflict (chat_id) do update set flow = excluded.flow, state = excluded.state, updated_at = excluded.updated_at,
      step = case when (select input.keep_step from input where input.chat_id = excluded.chat_id) then conversations.step else excluded.step end`;
    return { compile: () => query.compile(db) };
  },
);

const deleteQuery = prepared((db: Kysely<Database>, param: ParamFn<{ chatId: number }>) =>
  db.deleteFrom("conversations").where("chat_id", "=", param("chatId")),
);

export async function deleteConversation(db: Kysely<Database> | Transaction<Database>, chatId: number): Promise<void> {
  await deleteQuery(db, { chatId });
}

/**
 * Deletes up to `limit` flows untouched since `before` (the retention job: a step expires after
 * minutes, so these are long dead). Returns how many went.
 */
export async function deleteConversationsUpdatedBefore(
  db: Kysely<Database>,
  before: number,
  limit: number,
): Promise<number> {
  return deleteChunk(db, "conversations", "chat_id", limit, (eb) => eb("updated_at", "<", before));
}
