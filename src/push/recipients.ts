import type { Kysely } from "kysely";
import type { Database } from "#src/db/schema";
import { alertEnabled, findUser, type AlertKind, type User } from "#src/db/repos/users";
import { recipientLanguage, type Recipient, type Translations } from "#src/chat/alerts";

// Who an alert goes to: the one place every path that sends an alert asks.

/** Which alerts a recipient is asked for: a kind the user can switch off, or "always" (account problems no setting mutes). */
export type RecipientKind = AlertKind | "always";

/** The user to push to, if they are active and have this kind of alert switched on; from a user row already read. */
export function recipientOf(
  translations: Translations,
  telegramId: number,
  user: User | null | undefined,
  kind: RecipientKind,
): Recipient | null {
  if (!user || user.active !== 1 || (kind !== "always" && !alertEnabled(user, kind))) return null;
  return {
    telegramId,
    chatId: user.chat_id,
    ...recipientLanguage(translations, user.language ?? user.telegram_language),
  };
}

/** {@link recipientOf} for a user read by id. */
export async function recipientFor(
  db: Kysely<Database>,
  translations: Translations,
  telegramId: number,
  kind: RecipientKind,
): Promise<Recipient | null> {
  return recipientOf(translations, telegramId, await findUser(db, telegramId), kind);
}
