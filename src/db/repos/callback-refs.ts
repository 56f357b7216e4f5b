import type { ExpressionBuilder, Kysely } from "kysely";
import type { Database } from "../schema";
import { shortId } from "#src/security/secret-box";
import { deleteChunk } from "../chunked-delete";

/**
 * How stale `issued_at` may get before handing a reference out again moves it forward: one write
 * a day per reference at most, so rendering a menu stays a read. Retention keeps a reference this
 * much longer than its window, so every button stays good for the whole window.
 */
export const REF_REISSUE_MS = 86_400_000;

/**
 * Callback data holds at most 64 bytes, so long values (rule and order ids) travel as short
 * per-user references. The same value always gets the same reference.
 */
export async function refFor(db: Kysely<Database>, telegramId: number, value: string, now: number): Promise<string> {
  const existing = await db.selectFrom("callback_refs").select(["id", "issued_at"]).where("telegram_id", "=", telegramId).where("value", "=", value).executeTakeFirst();
  if (existing && Number(existing.issued_at) > now - REF_REISSUE_MS) return existing.id;
  if (existing) {
    const reissued = await db.updateTable("callback_refs").set({ issued_at: now }).where("id", "=", existing.id).executeTakeFirst();
    // Zero rows: retention removed it meanwhile, so a fresh reference is made below.
    if (Number(reissued.numUpdatedRows) > 0) return existing.id;
  }
  const id = shortId();
  await db.insertInto("callback_refs").values({ id, telegram_id: telegramId, value, created_at: now, issued_at: now }).onConflict((oc) => oc.doNothing()).execute();
  const row = await db.selectFrom("callback_refs").select("id").where("telegram_id", "=", telegramId).where("value", "=", value).executeTakeFirst();
  return row?.id ?? id;
}

/** Resolves a reference for this user only; another user's reference resolves to nothing. */
export async function resolveRef(db: Kysely<Database>, telegramId: number, id: string): Promise<string | undefined> {
  const row = await db.selectFrom("callback_refs").select("value").where("id", "=", id).where("telegram_id", "=", telegramId).executeTakeFirst();
  return row?.value;
}

/**
 * Deletes up to `limit` references last handed out before `before` (the retention job; see
 * REF_REISSUE_MS for the margin it adds). Returns how many went.
 */
export async function deleteCallbackRefsIssuedBefore(db: Kysely<Database>, before: number, limit: number): Promise<number> {
  const old = (eb: ExpressionBuilder<Database, "callback_refs">) => eb("issued_at", "<", before);
  // Repeated outside: a reference handed out again while this runs is kept.
  return deleteChunk(db, "callback_refs", "id", limit, old, old);
}
