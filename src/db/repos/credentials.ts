import type { Kysely, Selectable, Transaction } from "kysely";
import type { CredentialsTable, Database } from "../schema";
import type { SecretBox } from "#src/security/secret-box";
import { deleteAlertsOf } from "./outbox";

export type Credential = Selectable<CredentialsTable>;

/** Associated data binding a ciphertext to its row, so it cannot be swapped onto another user. */
const context = (telegramId: number) => `credentials:${telegramId}`;

/** Stores (or replaces) the user's key, encrypted; clears any "broken" mark. */
export async function saveApiKey(
  db: Kysely<Database>,
  box: SecretBox,
  telegramId: number,
  apiKey: string,
  now: number,
): Promise<void> {
  const sealed = box.seal(apiKey, context(telegramId));
  const row = {
    key_id: sealed.keyId,
    ciphertext: sealed.ciphertext,
    last4: apiKey.slice(-4),
    broken_at: null,
    broken_notified: 0,
    linked_at: now,
  };
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
export async function findCredentialLink(
  db: Kysely<Database> | Transaction<Database>,
  telegramId: number,
): Promise<{ last4: string; linked_at: number } | undefined> {
  return db
    .selectFrom("credentials")
    .select(["last4", "linked_at"])
    .where("telegram_id", "=", telegramId)
    .executeTakeFirst();
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
export async function reencryptCredentials(
  db: Kysely<Database>,
  box: SecretBox,
): Promise<{ rotated: number; unreadable: number }> {
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
    await db
      .updateTable("credentials")
      .set({ key_id: sealed.keyId, ciphertext: sealed.ciphertext })
      .where("telegram_id", "=", credential.telegram_id)
      .where("key_id", "=", credential.key_id)
      .execute();
    rotated += 1;
  }
  return { rotated, unreadable };
}

/**
 * Tables with a user or chat column whose rows /disconnect keeps, and why: none holds a key, an
 * address, a rule or an alert. Every other such table is emptied of the user by forgetUserData (a
 * test reads the schema and holds both lists to it, so a new table cannot be forgotten).
 */
export const KEPT_ON_DISCONNECT: Readonly<Record<string, string>> = {
  users:
    "the chat's own row (language, which alerts are pushed, the digest's time zone): the bot answers the next message in the user's language",
  chat_send: "when the chat may next be sent to (Telegram's per-chat pace), a time only",
  update_windows: "the flood limit's window (a count and a time): forgetting it would reset the limit",
  connect_attempts:
    "the times of failed /connect attempts, kept an hour: forgetting them would reset the guessing limit",
  telegram_updates:
    "which Telegram updates were handled (ids and times, no content), kept minutes so a redelivered update is not handled twice",
  guard_settings:
    "the user's spend guard and reminder settings (as the users row keeps the language): the daily cap and Ask again above still hold when a key is linked again",
  bot_spends:
    "what was bought through the bot today (amounts, times and order ids, kept two days): forgetting it would reset the daily cap",
  auto_buy_switch:
    "the Automatic buying switch of /settings (on or off, and when): turned off, it stays off until the user turns it on",
};

/**
 * /disconnect: the key and everything that hangs off the user (the rows KEPT_ON_DISCONNECT names
 * aside). Private chats only: the chat is the user.
 */
export async function forgetUserData(db: Kysely<Database>, telegramId: number): Promise<void> {
  await db.transaction().execute(async (trx) => {
    await trx.deleteFrom("credentials").where("telegram_id", "=", telegramId).execute();
    await trx.deleteFrom("webhook_tokens").where("telegram_id", "=", telegramId).execute();
    await trx.deleteFrom("addresses").where("telegram_id", "=", telegramId).execute();
    await trx.deleteFrom("pending_actions").where("telegram_id", "=", telegramId).execute();
    await trx.deleteFrom("flows").where("telegram_id", "=", telegramId).execute();
    await trx.deleteFrom("conversations").where("chat_id", "=", telegramId).execute();
    await trx.deleteFrom("open_rule_cards").where("chat_id", "=", telegramId).execute();
    await trx.deleteFrom("callback_refs").where("telegram_id", "=", telegramId).execute();
    await deleteAlertsOf(trx, telegramId);
    await trx.deleteFrom("seen_notifications").where("telegram_id", "=", telegramId).execute();
    await trx.deleteFrom("poll_state").where("telegram_id", "=", telegramId).execute();
    await trx.deleteFrom("followed_orders").where("telegram_id", "=", telegramId).execute();
    await trx.deleteFrom("price_watches").where("telegram_id", "=", telegramId).execute();
    await trx.deleteFrom("group_links").where("telegram_id", "=", telegramId).execute();
    await trx.deleteFrom("rental_ends").where("telegram_id", "=", telegramId).execute();
    await trx.deleteFrom("balance_watch").where("telegram_id", "=", telegramId).execute();
    await trx.deleteFrom("delivery_marks").where("telegram_id", "=", telegramId).execute();
    await trx.deleteFrom("auto_buys").where("telegram_id", "=", telegramId).execute();
    await trx.deleteFrom("auto_buy_orders").where("telegram_id", "=", telegramId).execute();
  });
}
