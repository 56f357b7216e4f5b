import type { Kysely } from "kysely";
import type { Database } from "#src/db/schema";
import { findCredentialLink, markKeyBroken } from "#src/db/repos/credentials";
import { keyBrokenAlert, type Translations } from "#src/chat/alerts";
import { recipientFor } from "./recipients";
import { enqueueAlert } from "#src/db/repos/outbox";

/**
 * The marketplace refused a user's stored key (401, or 403 on a read) during background work:
 * marks it broken, so polling and order checks skip the user until they link again, and queues
 * one alert telling them. The dedupe key names the link (its time), so whichever job sees the
 * refusal first tells them and the others, or a second refusal, add nothing; a new link is told
 * again if that key breaks too. Returns true when an alert was queued.
 */
export async function recordBrokenKey(
  db: Kysely<Database>,
  translations: Translations,
  telegramId: number,
  now: number,
): Promise<boolean> {
  const recipient = await recipientFor(db, translations, telegramId, "always");
  return db.transaction().execute(async (trx) => {
    const credential = await findCredentialLink(trx, telegramId);
    if (!credential) return false;
    // False when the bot already marked it during a chat action: the user was told in that reply.
    const first = await markKeyBroken(trx, telegramId, now);
    if (!first || !recipient) return false;
    return enqueueAlert(trx, {
      telegramId,
      chatId: recipient.chatId,
      dedupeKey: `key-broken:${credential.linked_at}`,
      payload: keyBrokenAlert(recipient, credential.last4),
      now,
    });
  });
}
