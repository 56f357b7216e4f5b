import type { Kysely } from "kysely";
import type { Database } from "../schema";

/**
 * The version of the guided flows' code: the conversations plugin's storage version, and the key
 * step's row. A deploy that changes a flow's code bumps it; a flow stored under another version is
 * never resumed (its user is told the step expired).
 */
export const FLOW_VERSION = 1;

export interface FlowState {
  flow: string;
  step: string;
  data: Record<string, unknown>;
}

export async function getFlow(db: Kysely<Database>, telegramId: number): Promise<FlowState | null> {
  const row = await db.selectFrom("flows").selectAll().where("telegram_id", "=", telegramId).executeTakeFirst();
  if (!row || row.version !== FLOW_VERSION) return null;
  try {
    return { flow: row.flow, step: row.step, data: JSON.parse(row.data) as Record<string, unknown> };
  } catch {
    return null;
  }
}

export async function setFlow(db: Kysely<Database>, telegramId: number, state: FlowState, now: number): Promise<void> {
  const row = { flow: state.flow, step: state.step, data: JSON.stringify(state.data), version: FLOW_VERSION, updated_at: now };
  await db
    .insertInto("flows")
    .values({ telegram_id: telegramId, ...row })
    .onConflict((oc) => oc.column("telegram_id").doUpdateSet(row))
    .execute();
}

export async function flowExists(db: Kysely<Database>, telegramId: number): Promise<boolean> {
  return (await db.selectFrom("flows").select("telegram_id").where("telegram_id", "=", telegramId).executeTakeFirst()) !== undefined;
}

export async function deleteFlow(db: Kysely<Database>, telegramId: number): Promise<boolean> {
  const result = await db.deleteFrom("flows").where("telegram_id", "=", telegramId).executeTakeFirst();
  return Number(result.numDeletedRows) > 0;
}
