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
  const existing = await db
    .selectFrom("callback_refs")
    .select(["id", "issued_at"])
    .where("telegram_id", "=", telegramId)
    .where("value", "=", value)
    .executeTakeFirst();
  if (existing && Number(existing.issued_at) > now - REF_REISSUE_MS) return existing.id;
  if (existing) {
    const reissued = await db
      .updateTable("callback_refs")
      .set({ issued_at: now })
      .where("id", "=", existing.id)
      .executeTakeFirst();
    // Zero rows: retention removed it meanwhile, so a fresh reference is made below.
    if (Number(reissued.numUpdatedRows) > 0) return existing.id;
  }
  const id = shortId();
  await db
    .insertInto("callback_refs")
    .values({ id, telegram_id: telegramId, value, created_at: now, issued_at: now })
    .onConflict((oc) => oc.doNothing())
    .execute();
  const row = await db
    .selectFrom("callback_refs")
    .select("id")
    .where("telegram_id", "=", telegramId)
    .where("value", "=", value)
    .executeTakeFirst();
  return row?.id ?? id;
}

/** How many values one statement of {@link refsFor} names at most. */
const REFS_CHUNK = 200;

/**
 * {@link refFor} for many values at once (alerts queued together): per chunk, one read of the
 * references already handed out and, for the missing ones, one insert and one read back. Returns
 * the references in the order asked. Takes a transaction when the caller holds one.
 */
export async function refsFor(
  db: Kysely<Database>,
  wanted: ReadonlyArray<{ telegramId: number; value: string }>,
  now: number,
): Promise<string[]> {
  const pairKey = (telegramId: number, value: string) => `${telegramId}\n${value}`;
  const found = new Map<string, string>();
  for (let start = 0; start < wanted.length; start += REFS_CHUNK) {
    const chunk = wanted.slice(start, start + REFS_CHUNK);
    const asked = new Set(chunk.map((entry) => pairKey(entry.telegramId, entry.value)));
    const read = () =>
      db
        .selectFrom("callback_refs")
        .select(["id", "telegram_id", "value", "issued_at"])
        .where("telegram_id", "in", [...new Set(chunk.map((entry) => entry.telegramId))])
        .where("value", "in", [...new Set(chunk.map((entry) => entry.value))])
        .execute();
    const stale: Array<{ telegramId: number; value: string }> = [];
    for (const row of await read()) {
      const key = pairKey(Number(row.telegram_id), row.value);
      if (!asked.has(key)) continue;
      if (Number(row.issued_at) > now - REF_REISSUE_MS) found.set(key, row.id);
      else stale.push({ telegramId: Number(row.telegram_id), value: row.value });
    }
    // Rare: handed out long ago; the one-by-one path moves it forward (or replaces it if retention took it).
    for (const entry of stale)
      found.set(pairKey(entry.telegramId, entry.value), await refFor(db, entry.telegramId, entry.value, now));
    const missing = new Map<string, { telegramId: number; value: string }>();
    for (const entry of chunk) {
      const key = pairKey(entry.telegramId, entry.value);
      if (!found.has(key)) missing.set(key, entry);
    }
    if (missing.size === 0) continue;
    await db
      .insertInto("callback_refs")
      .values(
        [...missing.values()].map((entry) => ({
          id: shortId(),
          telegram_id: entry.telegramId,
          value: entry.value,
          created_at: now,
          issued_at: now,
        })),
      )
      .onConflict((oc) => oc.doNothing())
      .execute();
    for (const row of await read()) {
      const key = pairKey(Number(row.telegram_id), row.value);
      if (asked.has(key) && !found.has(key)) found.set(key, row.id);
    }
  }
  return wanted.map((entry) => {
    const ref = found.get(pairKey(entry.telegramId, entry.value));
    if (ref === undefined) throw new Error("a callback reference was neither found nor made");
    return ref;
  });
}

/** Resolves a reference for this user only; another user's reference resolves to nothing. */
export async function resolveRef(db: Kysely<Database>, telegramId: number, id: string): Promise<string | undefined> {
  const row = await db
    .selectFrom("callback_refs")
    .select("value")
    .where("id", "=", id)
    .where("telegram_id", "=", telegramId)
    .executeTakeFirst();
  return row?.value;
}

/**
 * Deletes up to `limit` references last handed out before `before` (the retention job; see
 * REF_REISSUE_MS for the margin it adds). Returns how many went.
 */
export async function deleteCallbackRefsIssuedBefore(
  db: Kysely<Database>,
  before: number,
  limit: number,
): Promise<number> {
  const old = (eb: ExpressionBuilder<Database, "callback_refs">) => eb("issued_at", "<", before);
  // Repeated outside: a reference handed out again while this runs is kept.
  return deleteChunk(db, "callback_refs", "id", limit, old, old);
}

/** Whose a reference is (references are unique across users), or null when it is unknown or expired. */
export async function findRefOwner(db: Kysely<Database>, id: string): Promise<number | null> {
  const row = await db.selectFrom("callback_refs").select("telegram_id").where("id", "=", id).executeTakeFirst();
  return row ? Number(row.telegram_id) : null;
}
