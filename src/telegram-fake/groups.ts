import { badRequest, TelegramApiError } from "./api-error";
import type { FakeGroup, MemberStatus } from "./types";

export type { FakeGroup, MemberStatus } from "./types";

// Groups as the fake knows them: members and their statuses, the bot's own membership, and the
// supergroup a group became.

/** The groups of one fake Telegram. */
export function createGroups() {
  const groups = new Map<number, FakeGroup>();
  let nextSupergroup = -1001000000001;
  return {
    groups,
    get: (chatId: number) => groups.get(chatId),
    add(group: FakeGroup): FakeGroup {
      groups.set(group.id, group);
      return group;
    },
    /** A new supergroup id, as Telegram gives one (-100…). */
    newSupergroupId(): number {
      nextSupergroup -= 1;
      return nextSupergroup;
    },
  };
}

export type Groups = ReturnType<typeof createGroups>;

const PRESENT: ReadonlySet<MemberStatus> = new Set(["creator", "administrator", "member", "restricted"]);

/** Whether a status is someone in the group. */
export function isPresent(status: MemberStatus): boolean {
  return PRESENT.has(status);
}

/**
 * What Telegram answers a bot writing to (or asking about) a group: 400 with migrate_to_chat_id
 * once it became a supergroup, 403 when the bot was removed or left. Both count as faults a test
 * caused (as a blocked user's 403 does), not as calls the bot should have known better than to make.
 */
export function requireBotInGroup(group: FakeGroup): void {
  if (group.migratedTo !== undefined) {
    throw new TelegramApiError(400, "Bad Request: group chat was upgraded to a supergroup chat", "fault", {
      migrate_to_chat_id: group.migratedTo,
    });
  }
  const kind = group.type === "supergroup" ? "supergroup chat" : "group chat";
  if (group.botStatus === "kicked")
    throw new TelegramApiError(403, `Forbidden: bot was kicked from the ${kind}`, "fault");
  if (!isPresent(group.botStatus))
    throw new TelegramApiError(403, `Forbidden: bot is not a member of the ${kind}`, "fault");
}

/** What Telegram answers a send into a group where the bot is restricted from sending. */
export function requireBotMaySend(group: FakeGroup): void {
  if (group.botStatus === "restricted" && group.botCanSend === false)
    throw new TelegramApiError(400, "Bad Request: not enough rights to send text messages to the chat", "fault");
}

const ALL_RIGHTS = {
  can_be_edited: false,
  is_anonymous: false,
  can_manage_chat: true,
  can_delete_messages: true,
  can_manage_video_chats: true,
  can_restrict_members: true,
  can_promote_members: false,
  can_change_info: true,
  can_invite_users: true,
  can_post_stories: false,
  can_edit_stories: false,
  can_delete_stories: false,
  can_pin_messages: true,
};

/** A ChatMember object as getChatMember returns it. */
export function chatMemberJson(
  status: MemberStatus,
  user: Record<string, unknown>,
  canSend = true,
): Record<string, unknown> {
  switch (status) {
    case "creator":
      return { status, user, is_anonymous: false };
    case "administrator":
      return { status, user, ...ALL_RIGHTS };
    case "restricted":
      return { status, user, is_member: true, until_date: 0, can_send_messages: canSend };
    case "kicked":
      return { status, user, until_date: 0 };
    default:
      return { status, user };
  }
}

/** A group's id as a test names it: below zero, as Telegram's group ids are. */
export function requireGroupId(chatId: number): void {
  if (!Number.isSafeInteger(chatId) || chatId >= 0) throw badRequest("chat not found");
}
