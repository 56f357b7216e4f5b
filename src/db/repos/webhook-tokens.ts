import { timingSafeEqual } from "node:crypto";
import type { Kysely } from "kysely";
import type { Database } from "../schema";
import { hashToken, newToken } from "#src/security/secret-box";

/** Issues a new personal webhook token (the old one stops working at once); returns the raw token, shown once. */
export async function rotateWebhookToken(db: Kysely<Database>, telegramId: number, now: number): Promise<string> {
  const token = newToken();
  const row = { token_hash: hashToken(token), created_at: now };
  await db
    .insertInto("webhook_tokens")
    .values({ telegram_id: telegramId, ...row })
    .onConflict((oc) => oc.column("telegram_id").doUpdateSet(row))
    .execute();
  return token;
}

export async function hasWebhookToken(db: Kysely<Database>, telegramId: number): Promise<boolean> {
  return (
    (await db
      .selectFrom("webhook_tokens")
      .select("telegram_id")
      .where("telegram_id", "=", telegramId)
      .executeTakeFirst()) !== undefined
  );
}

/** Finds the user owning a raw token. The lookup is by hash; the final comparison is constant-time. */
export async function findUserByWebhookToken(db: Kysely<Database>, token: string): Promise<number | undefined> {
  if (token.length < 16 || token.length > 128) return undefined;
  const hash = hashToken(token);
  const row = await db
    .selectFrom("webhook_tokens")
    .select(["telegram_id", "token_hash"])
    .where("token_hash", "=", hash)
    .executeTakeFirst();
  if (!row) return undefined;
  const equal = timingSafeEqual(Buffer.from(row.token_hash, "hex"), Buffer.from(hash, "hex"));
  return equal ? Number(row.telegram_id) : undefined;
}

/** The owners of these token hashes, each with their user row (its columns null when the user row is missing). */
export async function findTokenOwners(db: Kysely<Database>, hashes: string[]) {
  return db
    .selectFrom("webhook_tokens")
    .leftJoin("users", "users.telegram_id", "webhook_tokens.telegram_id")
    .select(["webhook_tokens.token_hash", "webhook_tokens.telegram_id as owner"])
    .selectAll("users")
    .where("webhook_tokens.token_hash", "in", hashes)
    .execute();
}
