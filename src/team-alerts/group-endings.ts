import type { Kysely } from "kysely";
import type { Database } from "#src/db/schema";
import type { Logger } from "#src/logger";
import { recipientLanguage, type Recipient, type Translations } from "#src/chat/alerts";
import { deleteGroupLinks, linksToGroup } from "#src/db/repos/group-links";
import { dropQueuedGroupAlerts, enqueueAlert } from "#src/db/repos/outbox";
import { findUser } from "#src/db/repos/users";

// Team alerts: how a group link ends when the group can no longer receive (never retried into the
// void). Used by the bot (the bot removed, seen in an update) and by push (a refusal met on a send).

/** Why a group stopped receiving: the bot was removed or refused there, or the owner is no longer an admin. */
export type GroupEndReason = "removed" | "not-admin" | "refused";

export interface GroupEndingDeps {
  db: Kysely<Database>;
  logger: Logger;
  translations: Translations;
  now: () => number;
  /** Wakes the sender after the owners' notices were queued. */
  onQueued?: () => void;
}

/**
 * Ends the links into a group (every owner's, or only `ownerId`'s): each link is removed, what was
 * queued for that group is dropped, and its owner is told in private once (the notice's dedupe key
 * names the link: its group and time). One transaction. Returns how many links ended.
 */
export async function endGroupLinks(
  deps: GroupEndingDeps,
  groupChatId: number,
  reason: GroupEndReason,
  ownerId?: number,
): Promise<number> {
  const { db, translations, now } = deps;
  const links = (await linksToGroup(db, groupChatId)).filter(
    (link) => ownerId === undefined || link.telegram_id === ownerId,
  );
  if (links.length === 0) return 0;
  const notices = await Promise.all(
    links.map(async (link) => ({ link, recipient: await ownerRecipient(db, translations, link.telegram_id) })),
  );
  const at = now();
  const ended = await db.transaction().execute(async (trx) => {
    const removed = await deleteGroupLinks(trx, ownerId === undefined ? { groupChatId } : { groupChatId, ownerId });
    for (const link of removed) {
      await dropQueuedGroupAlerts(trx, link.telegram_id, groupChatId, `group link ended: ${reason}`);
      const recipient = notices.find((notice) => notice.link.telegram_id === link.telegram_id)?.recipient;
      if (!recipient) continue;
      const text = recipient.tr(`group-ended-${reason}`, { title: link.group_title });
      await enqueueAlert(trx, {
        telegramId: link.telegram_id,
        chatId: recipient.chatId,
        dedupeKey: `group-ended:${groupChatId}:${link.linked_at}`,
        payload: { method: "sendMessage", params: { text, parse_mode: "HTML" } },
        now: at,
      });
    }
    return removed.length;
  });
  if (ended > 0) {
    deps.logger.info(
      { groupChatId, reason, links: ended },
      "group links ended; their owners are told in private and nothing more is sent there",
    );
    deps.onQueued?.();
  }
  return ended;
}

/** The owner's private chat, in their language, while they are active (a notice to someone who blocked the bot would only meet a 403). */
async function ownerRecipient(
  db: Kysely<Database>,
  translations: Translations,
  telegramId: number,
): Promise<Recipient | null> {
  const user = await findUser(db, telegramId);
  if (!user || user.active !== 1) return null;
  return {
    telegramId,
    chatId: user.chat_id,
    ...recipientLanguage(translations, user.language ?? user.telegram_language),
  };
}
