import type { Kysely } from "kysely";
import type { Database } from "../db/schema";
import { isPostgres } from "../db/dialect";

/**
 * Telegram's limits held across all replicas together, in the database:
 *
 * - global: one token bucket row (rate `perSecond`, capacity `burst`), taken from in a short
 *   transaction (row lock FOR UPDATE on PostgreSQL; SQLite has one writer), so the replicas
 *   together never exceed it. Any sliding second sees at most `perSecond + burst` messages
 *   (20 + 1 = 21 by default: replies to users do not take from this bucket, and sends granted
 *   in one second can arrive bunched, so the margin under Telegram's 30 is kept wide);
 * - per chat: a row per chat with the earliest time of its next message, moved forward by one
 *   upsert whose DO UPDATE applies only when the chat is due, so two replicas cannot both write
 *   to a chat within the interval.
 */
export interface GlobalBudget {
  perSecond: number;
  burst: number;
}

export const DEFAULT_GLOBAL_BUDGET: GlobalBudget = { perSecond: 20, burst: 1 };

/**
 * Takes up to `want` messages from the global bucket. Returns how many were granted and, when
 * fewer than wanted, when the next one will be available.
 */
export async function takeGlobal(db: Kysely<Database>, now: number, want: number, budget: GlobalBudget = DEFAULT_GLOBAL_BUDGET): Promise<{ granted: number; nextAt: number }> {
  if (want <= 0) return { granted: 0, nextAt: now };
  const capacity = budget.burst * 1000;
  const pg = isPostgres(db);
  return db.transaction().execute(async (trx) => {
    await trx.insertInto("send_budget").values({ name: "telegram", tokens_milli: capacity, updated_at: now }).onConflict((oc) => oc.doNothing()).execute();
    const row = await trx
      .selectFrom("send_budget")
      .select(["tokens_milli", "updated_at"])
      .where("name", "=", "telegram")
      .$if(pg, (qb) => qb.forUpdate())
      .executeTakeFirstOrThrow();
    const elapsed = Math.max(0, now - Number(row.updated_at));
    const available = Math.min(capacity, Number(row.tokens_milli) + elapsed * budget.perSecond);
    const granted = Math.min(want, Math.floor(available / 1000));
    const left = available - granted * 1000;
    await trx
      .updateTable("send_budget")
      .set({ tokens_milli: Math.floor(left), updated_at: Math.max(now, Number(row.updated_at)) })
      .where("name", "=", "telegram")
      .execute();
    return { granted, nextAt: now + Math.ceil((1000 - Math.min(1000, left)) / budget.perSecond) };
  });
}

/** Takes the chat's next turn; null when granted, else the time the chat may be written to again. */
export async function takeChatSlot(db: Kysely<Database>, chatId: number, now: number, intervalMs: number): Promise<number | null> {
  const result = await db
    .insertInto("chat_send")
    .values({ chat_id: chatId, next_send_at: now + intervalMs })
    .onConflict((oc) => oc.column("chat_id").doUpdateSet({ next_send_at: now + intervalMs }).where("chat_send.next_send_at", "<=", now))
    .executeTakeFirst();
  if (Number(result.numInsertedOrUpdatedRows ?? 0n) > 0) return null;
  const row = await db.selectFrom("chat_send").select("next_send_at").where("chat_id", "=", chatId).executeTakeFirst();
  return row ? Number(row.next_send_at) : now + intervalMs;
}

/** Gives back a chat turn that was taken but not used (the global budget was empty). */
export async function returnChatSlot(db: Kysely<Database>, chatId: number, takenAt: number, intervalMs: number): Promise<void> {
  await db.updateTable("chat_send").set({ next_send_at: takenAt }).where("chat_id", "=", chatId).where("next_send_at", "=", takenAt + intervalMs).execute();
}

/** Pushes a chat's next turn back (after a send; Telegram answered 429 with retry_after). */
export async function deferChat(db: Kysely<Database>, chatId: number, until: number): Promise<void> {
  await db
    .insertInto("chat_send")
    .values({ chat_id: chatId, next_send_at: until })
    .onConflict((oc) => oc.column("chat_id").doUpdateSet({ next_send_at: until }).where("chat_send.next_send_at", "<", until))
    .execute();
}

/** Forgets chat turns long past (run now and then). */
export async function pruneSendBudget(db: Kysely<Database>, now: number): Promise<void> {
  await db.deleteFrom("chat_send").where("next_send_at", "<", now - 3_600_000).execute();
}

