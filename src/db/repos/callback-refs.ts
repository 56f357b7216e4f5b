import type { Kysely } from "kysely";
import type { Database } from "../schema";
import { shortId } from "../../security/secret-box";

/**
 * Callback data holds at most 64 bytes, so long values (rule and order ids) travel as short
 * per-user references. The same value always gets the same reference.
 */
export async function refFor(db: Kysely<Database>, telegramId: number, value: string, now: number): Promise<string> {
  const existing = await db.selectFrom("callback_refs").select("id").where("telegram_id", "=", telegramId).where("value", "=", value).executeTakeFirst();
  if (existing) return existing.id;
  const id = shortId();
  await db.insertInto("callback_refs").values({ id, telegram_id: telegramId, value, created_at: now }).onConflict((oc) => oc.doNothing()).execute();
  const row = await db.selectFrom("callback_refs").select("id").where("telegram_id", "=", telegramId).where("value", "=", value).executeTakeFirst();
  return row?.id ?? id;
}

/** Resolves a reference for this user only; another user's reference resolves to nothing. */
export async function resolveRef(db: Kysely<Database>, telegramId: number, id: string): Promise<string | undefined> {
  const row = await db.selectFrom("callback_refs").select("value").where("id", "=", id).where("telegram_id", "=", telegramId).executeTakeFirst();
  return row?.value;
}
