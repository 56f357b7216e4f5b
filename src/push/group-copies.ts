import type { Kysely } from "kysely";
import type { Database } from "#src/db/schema";
import { findUser, type User } from "#src/db/repos/users";
import { copiesKind, findGroupLink, type GroupAlertKind, type GroupLink } from "#src/db/repos/group-links";
import type { OutboxPayload, QueuedAlert } from "#src/db/repos/outbox";
import type { Recipient, Translations } from "#src/chat/alerts";
import { recipientOf, type RecipientKind } from "./recipients";
import { groupCopy } from "#src/chat/group-alerts";

// Team alerts: the copy of an alert that goes to the owner's group, asked by every path that queues alerts.

/** A group copy's recipient: the group's chat, in the owner's language, naming the owner. */
export interface GroupRecipient extends Recipient {
  ownerName: string;
}

/**
 * The owner's group, if they linked one that copies this kind of alert and they are active (an
 * owner who blocked the bot could not be told when the group stops receiving). Independent of the
 * private switches in /settings: the group's own choices say what it gets.
 */
export function groupRecipientOf(
  translations: Translations,
  telegramId: number,
  user: User | null | undefined,
  link: GroupLink | null | undefined,
  kind: GroupAlertKind,
): GroupRecipient | null {
  const owner = recipientOf(translations, telegramId, user, "always");
  return owner && link && copiesKind(link, kind)
    ? { ...owner, chatId: link.group_chat_id, ownerName: link.owner_name, group: true }
    : null;
}

/** Where a user's alerts go: their private chat and their group, from one read of each row. */
export interface AlertTargets {
  recipient(kind: RecipientKind): Recipient | null;
  group(kind: GroupAlertKind): GroupRecipient | null;
}

/** The user's row and group link, read once, answering for the private alert and the group's copy. */
export async function alertTargets(
  db: Kysely<Database>,
  translations: Translations,
  telegramId: number,
): Promise<AlertTargets> {
  const [user, link] = await Promise.all([findUser(db, telegramId), findGroupLink(db, telegramId)]);
  return {
    recipient: (kind) => recipientOf(translations, telegramId, user, kind),
    group: (kind) => groupRecipientOf(translations, telegramId, user, link, kind),
  };
}

/** The dedupe key of a group copy: the event's own key, so the group gets one message per event. */
function groupDedupeKey(key: string): string {
  return `group:${key}`;
}

/** The outbox row of a group copy of `payload` (built for `recipient`: the owner's language). */
export function groupAlertOf(
  recipient: GroupRecipient,
  dedupeKey: string,
  payload: OutboxPayload,
  at: number,
): QueuedAlert {
  return {
    telegramId: recipient.telegramId,
    chatId: recipient.chatId,
    dedupeKey: groupDedupeKey(dedupeKey),
    payload: JSON.stringify(groupCopy(payload, recipient.ownerName, recipient.tr)),
    at,
  };
}
