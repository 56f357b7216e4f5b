import { sql, type Kysely, type Transaction } from "kysely";
import type { Database } from "../schema";
import { prepared, type ParamFn } from "../prepared";
import { isPostgres } from "../dialect";
import { perDatabase, type BatcherCounts, type StatementBatcherOptions } from "../statement-batcher";
import { deleteChunk } from "../chunked-delete";

/**
 * The version of the guided flows' code: the conversations plugin's storage version, and the
 * version of a row in `flows` (the key step, or a guided flow's first question). A deploy that
 * changes a flow's code bumps it; a flow stored under another version is never resumed (its user
 * is told the step expired).
 */
export const FLOW_VERSION = 4;

export interface FlowState {
  flow: string;
  step: string;
  data: Record<string, unknown>;
}

/**
 * A user's row in `flows` as stored: the /connect key step, or the first question of a guided flow
 * not entered yet (see bot/flows.ts and guided/install.ts). `data` is JSON.
 */
export interface StoredFlow {
  flow: string;
  step: string;
  data: string;
  version: number;
}

/** The row's data as the JSON object it was stored as; null when it does not read as one. */
export function flowData(row: StoredFlow): Record<string, unknown> | null {
  try {
    const data = JSON.parse(row.data) as unknown;
    return typeof data === "object" && data !== null && !Array.isArray(data) ? (data as Record<string, unknown>) : null;
  } catch {
    return null;
  }
}

/** The row's state when it was stored by this version and its data reads; null otherwise. */
export function flowStateOf(row: StoredFlow | null): FlowState | null {
  if (!row || row.version !== FLOW_VERSION) return null;
  const data = flowData(row);
  return data && { flow: row.flow, step: row.step, data };
}

const findQuery = prepared((db: Kysely<Database>, param: ParamFn<{ telegramId: number }>) =>
  db.selectFrom("flows").select(["flow", "step", "data", "version"]).where("telegram_id", "=", param("telegramId")),
);

export async function findFlow(db: Kysely<Database>, telegramId: number): Promise<StoredFlow | null> {
  const [row] = (await findQuery(db, { telegramId })).rows;
  return row ?? null;
}

type SetParams = { telegramId: number; flow: string; step: string; data: string; version: number; now: number };

/** Compiled once: a guided flow's first question writes one on every entry. */
const setQuery = prepared((db: Kysely<Database>, param: ParamFn<SetParams>) => {
  const row = {
    flow: param("flow"),
    step: param("step"),
    data: param("data"),
    version: param("version"),
    updated_at: param("now"),
  };
  return db
    .insertInto("flows")
    .values({ telegram_id: param("telegramId"), ...row })
    .onConflict((oc) => oc.column("telegram_id").doUpdateSet(row));
});

/** Stores the user's one open step (replacing whichever was stored). */
export async function setFlow(
  db: Kysely<Database> | Transaction<Database>,
  telegramId: number,
  state: FlowState,
  now: number,
): Promise<void> {
  await storeFlow(db, telegramId, storedFlow(state), now);
}

/** {@link setFlow} for a row already serialised. */
export async function storeFlow(
  db: Kysely<Database> | Transaction<Database>,
  telegramId: number,
  row: StoredFlow,
  now: number,
): Promise<void> {
  const params = { telegramId, flow: row.flow, step: row.step, data: row.data, version: row.version, now };
  // Outside a transaction on PostgreSQL, concurrent users' rows share a statement while the replica
  // is busy (a main-menu Quote, Buy or Watch stores its first question on every press).
  if (!db.isTransaction && isPostgres(db)) return flowStores(db).run(params);
  await setQuery(db, params);
}

/** Per PostgreSQL database, the batcher of the rows' upserts (see StatementBatcher). */
const flowStores = perDatabase((db: Kysely<Database>): StatementBatcherOptions<SetParams, void> => ({
  key: (params) => params.telegramId,
  one: async (params) => {
    await setQuery(db, params);
  },
  many: async (rows) => {
    await setManyQuery(db, {
      telegramIds: rows.map((row) => row.telegramId),
      flows: rows.map((row) => row.flow),
      steps: rows.map((row) => row.step),
      data: rows.map((row) => row.data),
      versions: rows.map((row) => row.version),
      nows: rows.map((row) => row.now),
    });
    return rows.map(() => undefined);
  },
}));

/** How many statements the rows' upserts on `db` took, for how many rows (PostgreSQL; null on SQLite). */
export function flowStoreStatements(db: Kysely<Database>): BatcherCounts | null {
  return isPostgres(db) ? flowStores(db).counts : null;
}

/** setQuery for several users (PostgreSQL): each user once. */
const setManyQuery = prepared(
  (
    db: Kysely<Database>,
    param: ParamFn<{
      telegramIds: number[];
      flows: string[];
      steps: string[];
      data: string[];
      versions: number[];
      nows: number[];
    }>,
  ) => {
    const query = sql`
    insert into flows (telegram_id, flow, step, data, version, updated_at)
    select * from unnest(cast(${param("telegramIds")} as bigint[]), cast(${param("flows")} as text[]), cast(${param("steps")} as text[]), cast(${param("data")} as text[]), cast(${param("versions")} as integer[]), cast(${param("nows")} as bigint[]))
    on conflict (telegram_id) do update set flow = excluded.flow, step = excluded.step, data = excluded.data, version = excluded.version, updated_at = excluded.updated_at`;
    return { compile: () => query.compile(db) };
  },
);

/** The row this version stores for a state. */
export function storedFlow(state: FlowState): StoredFlow {
  return { flow: state.flow, step: state.step, data: JSON.stringify(state.data), version: FLOW_VERSION };
}

const deleteQuery = prepared((db: Kysely<Database>, param: ParamFn<{ telegramId: number }>) =>
  db.deleteFrom("flows").where("telegram_id", "=", param("telegramId")),
);

export async function deleteFlow(db: Kysely<Database> | Transaction<Database>, telegramId: number): Promise<boolean> {
  const result = await deleteQuery(db, { telegramId });
  return Number(result.numAffectedRows ?? 0n) > 0;
}

/** The user's open step as this version reads it (null when none, or stored by another version). */
export async function getFlow(db: Kysely<Database>, telegramId: number): Promise<FlowState | null> {
  return flowStateOf(await findFlow(db, telegramId));
}

/**
 * Deletes up to `limit` rows untouched since `before` (the retention job): a first question or the
 * key step expires after 10 minutes, so these are long over. Returns how many went.
 */
export async function deleteFlowsUpdatedBefore(db: Kysely<Database>, before: number, limit: number): Promise<number> {
  return deleteChunk(db, "flows", "telegram_id", limit, (eb) => eb("updated_at", "<", before));
}
