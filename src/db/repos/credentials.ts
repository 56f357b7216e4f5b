import type { Kysely, Selectable, Transaction } from "kysely";
import type { CredentialsTable, Database } from "../schema";
import type { SecretBox } from "#src/security/secret-box";
import { deleteQueuedAlerts } from "./outbox";

export type Credential = Selectable<CredentialsTable>;

/** Associated data binding a ciphertext to its row, so it cannot be swapped onto another user. */
const context = (telegramId: number) => `credentials:${telegramId}`;

/** Stores (or replaces) the user's key, encrypted; clears any "broken" mark. */
export async function saveApiKey(db: Kysely<Database>, box: SecretBox, telegramId: number, apiKey: string, now: number): Promise<void> {
  const sealed = box.seal(apiKey, context(telegramId));
  const row = { key_id: sealed.keyId, ciphertext: sealed.ciphertext, last4: apiKey.slice(-4), broken_at: null, broken_notified: 0, linked_at: now };
  await db
    .insertInto("credentials")
    .values({ telegram_id: telegramId, ...row })
    .onConflict((oc) => oc.column("telegram_id").doUpdateSet(row))
    .execute();
}

export async function findCredential(db: Kysely<Database>, telegramId: number): Promise<Credential | undefined> {
  return db.selectFrom("credentials").selectAll().where("telegram_id", "=", telegramId).executeTakeFirst();
}

/** The stored keys of these users (users without one are left out). */
export async function findCredentials(db: Kysely<Database>, telegramIds: number[]): Promise<Credential[]> {
  return db.selectFrom("credentials").selectAll().where("telegram_id", "in", telegramIds).execute();
}

/** Decrypts a stored key for one call. Throws SecretBoxError when it was tampered with or its key is gone. */
export function openApiKey(box: SecretBox, credential: Credential): string {
  return box.open({ keyId: credential.key_id, ciphertext: credential.ciphertext }, context(credential.telegram_id));
}

/** When a user's key was linked and its last four characters (what a broken-key alert names), or undefined without a key. */
export async function findCredentialLink(db: Kysely<Database> | Transaction<Database>, telegramId: number): Promise<{ last4: string; linked_at: number } | undefined> {
  return db.selectFrom("credentials").select(["last4", "linked_at"]).where("telegram_id", "=", telegramId).executeTakeFirst();
}

/** Marks the key as no longer working; returns true only for the first mark (so the user is told once). */
export async function markKeyBroken(db: Kysely<Database>, telegramId: number, now: number): Promise<boolean> {
  const result = await db
    .updateTable("credentials")
    .set({ broken_at: now, broken_notified: 1 })
    .where("telegram_id", "=", telegramId)
    .where("broken_notified", "=", 0)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}

/**
 * Re-encrypts every value sealed under an older key id with the current key (SECRET_KEY rotation).
 * Values that cannot be opened are left as they are (their owners will be asked to relink).
 */
export async function reencryptCredentials(db: Kysely<Database>, box: SecretBox): Promise<{ rotated: number; unreadable: number }> {
  const stale = await db.selectFrom("credentials").selectAll().where("key_id", "!=", box.currentKeyId).execute();
  let rotated = 0;
  let unreadable = 0;
  for (const credential of stale) {
    let plaintext: string;
    try {
      plaintext = openApiKey(box, credential);
    } catch {
      unreadable += 1;
      continue;
    }
    const sealed = box.seal(plaintext, context(credential.telegram_id));
    await db.updateTable("credentials").set({ key_id: sealed.keyId, ciphertext: sealed.ciphertext }).where("telegram_id", "=", credential.telegram_id).where("key_id", "=", credential.key_id).execute();
    rotated += 1;
  }
  return { rotated, unreadable };
}

/** /disconnect: the key and everything personal that hangs off the user (the user row itself stays, for language and settings). */
export async function forgetUserData(db: Kysely<Database>, telegramId: number): Promise<void> {
  await db.transaction().execute(async (trx) => {
    await trx.deleteFrom("credentials").where("telegram_id", "=", telegramId).execute();
    await trx.deleteFrom("webhook_tokens").where("telegram_id", "=", telegramId).execute();
    await trx.deleteFrom("addresses").where("telegram_id", "=", telegramId).execute();
    await trx.deleteFrom("pending_actions").where("telegram_id", "=", telegramId).execute();
    await trx.deleteFrom("flows").where("telegram_id", "=", telegramId).execute();
    // Private chats only: the chat is the user.
    await trx.deleteFrom("conversations").where("chat_id", "=", telegramId).execute();
    await trx.deleteFrom("callback_refs").where("telegram_id", "=", telegramId).execute();
    await deleteQueuedAlerts(trx, telegramId);
    await trx.deleteFrom("seen_notifications").where("telegram_id", "=", telegramId).execute();
    await trx.deleteFrom("poll_state").where("telegram_id", "=", telegramId).execute();
    await trx.deleteFrom("followed_orders").where("telegram_id", "=", telegramId).execute();
    await trx.deleteFrom("price_watches").where("telegram_id", "=", telegramId).execute();
    await trx.deleteFrom("group_links").where("telegram_id", "=", telegramId).execute();
  });
}
