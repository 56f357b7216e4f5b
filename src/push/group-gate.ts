import { GrammyError, type Api } from "grammy";
import { findGroupLink, moveGroup } from "#src/db/repos/group-links";
import type { OutboxRow } from "#src/db/repos/outbox";
import { endGroupLinks, type GroupEndingDeps } from "#src/team-alerts/group-endings";

// Team alerts: what the sender checks before a copy leaves for a group.

/** How long an owner's admin status, once confirmed, is trusted before it is asked again. */
const ADMIN_CHECK_TTL_MS = 60_000;

/** A chat id is a group's (or a supergroup's) when it is below zero; private chats are users' ids. */
export function isGroupChat(chatId: number): boolean {
  return chatId < 0;
}

/** What to do with a group row: send it, drop it (the link ended), or try again now (the group moved). */
type GroupVerdict = "send" | "drop" | "retry";

/** The new id Telegram names when a group became a supergroup (400 with migrate_to_chat_id). */
export function migratedTo(error: unknown): number | null {
  if (!(error instanceof GrammyError) || error.error_code !== 400) return null;
  const to = Number((error.parameters as { migrate_to_chat_id?: unknown }).migrate_to_chat_id);
  return Number.isSafeInteger(to) && to < 0 ? to : null;
}

/**
 * Checks a group copy before it leaves: its owner's link still points at this group, and the
 * owner is still an administrator there (getChatMember, trusted for {@link ADMIN_CHECK_TTL_MS}).
 * An owner who is no longer an admin, or a group that refuses the bot, ends the link(s) and the
 * owners are told; a group that became a supergroup is followed.
 */
export class GroupGate {
  private readonly confirmed = new Map<string, number>();

  constructor(private readonly deps: GroupEndingDeps) {}

  async check(api: Api, row: OutboxRow): Promise<GroupVerdict> {
    const owner = Number(row.telegram_id);
    const chatId = Number(row.chat_id);
    const link = await findGroupLink(this.deps.db, owner);
    if (!link || link.group_chat_id !== chatId) return "drop";
    const key = `${chatId}:${owner}`;
    const now = this.deps.now();
    if ((this.confirmed.get(key) ?? 0) > now) return "send";
    let status: string;
    try {
      status = (await api.getChatMember(chatId, owner)).status;
    } catch (error) {
      const verdict = await this.afterFailure(error, chatId);
      if (verdict) return verdict;
      throw error;
    }
    if (status === "creator" || status === "administrator") {
      if (this.confirmed.size > 10_000) this.confirmed.clear();
      this.confirmed.set(key, now + ADMIN_CHECK_TTL_MS);
      return "send";
    }
    this.confirmed.delete(key);
    await endGroupLinks(this.deps, chatId, "not-admin", owner);
    return "drop";
  }

  /**
   * What a failed send or check into a group means: the group moved (followed; "retry"), or the
   * bot cannot write there any more (403, or the chat is gone: every link into it ends; "drop").
   * Null for anything else (429, 5xx, network): retried as any alert is.
   */
  async afterFailure(error: unknown, chatId: number): Promise<GroupVerdict | null> {
    const to = migratedTo(error);
    if (to !== null) {
      const moved = await moveGroup(this.deps.db, chatId, to);
      this.deps.logger.info(
        { from: chatId, to, links: moved },
        "group became a supergroup; its links and queued alerts follow it",
      );
      return "retry";
    }
    if (!(error instanceof GrammyError)) return null;
    // 400 "not enough rights to send …": the bot was restricted from writing there.
    const gone =
      error.error_code === 403 ||
      (error.error_code === 400 &&
        /chat not found|not a member|kicked|not enough rights|have no rights|CHAT_WRITE_FORBIDDEN/i.test(
          error.description,
        ));
    if (!gone) return null;
    await endGroupLinks(
      this.deps,
      chatId,
      error.error_code === 403 || /rights|WRITE_FORBIDDEN/i.test(error.description) ? "refused" : "removed",
    );
    return "drop";
  }
}
