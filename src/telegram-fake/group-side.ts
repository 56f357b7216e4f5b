import type { EventLog } from "./event-log";
import type { FakeState } from "./fake-state";
import { chatMemberJson, isPresent, type Groups } from "./groups";
import { botUserJson, chatJson, messageJson, userJson, type BotIdentity } from "./message-json";
import type { FakeGroup, FakeUser, GroupSpec, MemberStatus, SentUserMessage } from "./types";
import type { UpdateQueue } from "./update-queue";

// What people do with groups in Telegram, turned into the updates the bot receives: a group made
// with its members, the bot added or removed (my_chat_member), an admin demoted, a group become a
// supergroup (migrate_to_chat_id), and the chat picker's answer (chat_shared).

export interface GroupSideDeps {
  state: FakeState;
  groups: Groups;
  updates: UpdateQueue;
  events: EventLog;
  bot: BotIdentity;
  now: () => number;
}

let groupCounter = 0;

export function createGroupSide(deps: GroupSideDeps) {
  const seconds = () => Math.floor(deps.now() / 1000);
  const remember = (group: FakeGroup) =>
    deps.state.rememberChat({ id: group.id, type: group.type, title: group.title });
  const requireGroup = (groupId: number): FakeGroup => {
    const group = deps.groups.get(groupId);
    if (!group) throw new Error(`no group ${groupId}: make it with createGroup first`);
    return group;
  };

  /** The bot's membership changed: Telegram tells the bot with my_chat_member. */
  function botStatusChanged(group: FakeGroup, by: FakeUser, status: MemberStatus, canSend = true): number {
    const old = group.botStatus;
    const couldSend = group.botCanSend !== false;
    group.botStatus = status;
    group.botCanSend = canSend;
    return deps.updates.enqueue({
      my_chat_member: {
        chat: chatJson({ id: group.id, type: group.type, title: group.title }),
        from: userJson(by),
        date: seconds(),
        old_chat_member: chatMemberJson(old, botUserJson(deps.bot), couldSend),
        new_chat_member: chatMemberJson(status, botUserJson(deps.bot), canSend),
      },
    });
  }

  /** A service message in a group (from `by`), as an update for the bot. */
  function serviceMessage(group: FakeGroup, by: FakeUser, fields: Record<string, unknown>): number {
    const message = deps.state.addMessage({
      chatId: group.id,
      from: "user",
      edited: false,
      deleted: false,
      date: seconds(),
    });
    return deps.updates.enqueue({
      message: {
        ...messageJson(message, { id: group.id, type: group.type, title: group.title }, userJson(by)),
        ...fields,
      },
    });
  }

  return {
    createGroup(spec: GroupSpec): FakeGroup {
      groupCounter += 1;
      const type = spec.type ?? "group";
      const id = spec.id ?? (type === "supergroup" ? deps.groups.newSupergroupId() : -(4000 + groupCounter));
      const group = deps.groups.add({
        id,
        type,
        title: spec.title ?? `Team ${groupCounter}`,
        members: new Map(spec.members.map((member) => [member.user.id, { ...member }])),
        botStatus: spec.bot ?? "member",
      });
      remember(group);
      return group;
    },
    /** As Telegram does: my_chat_member, then the group's service message naming the bot among its new members. */
    addBotToGroup(groupId: number, by: FakeUser): number {
      const group = requireGroup(groupId);
      const updateId = botStatusChanged(group, by, "member");
      serviceMessage(group, by, { new_chat_members: [botUserJson(deps.bot)] });
      return updateId;
    },
    removeBotFromGroup: (groupId: number, by: FakeUser, status: "left" | "kicked" = "kicked") =>
      botStatusChanged(requireGroup(groupId), by, status),
    restrictBot: (groupId: number, by: FakeUser, canSend: boolean) =>
      botStatusChanged(requireGroup(groupId), by, "restricted", canSend),
    setMemberStatus(groupId: number, user: FakeUser, status: MemberStatus): void {
      requireGroup(groupId).members.set(user.id, { user, status });
    },
    /** The group becomes a supergroup: the old id answers with migrate_to_chat_id; both service messages reach the bot. */
    migrateGroup(groupId: number, by: FakeUser): FakeGroup {
      const old = requireGroup(groupId);
      const group = deps.groups.add({
        id: deps.groups.newSupergroupId(),
        type: "supergroup",
        title: old.title,
        members: new Map(old.members),
        botStatus: old.botStatus,
      });
      remember(group);
      old.migratedTo = group.id;
      serviceMessage(old, by, { migrate_to_chat_id: group.id });
      serviceMessage(group, by, { migrate_from_chat_id: old.id });
      return group;
    },
    shareChat: (user: FakeUser, groupId: number, options: { unchecked?: boolean } = {}) =>
      shareChat(deps, user, requireGroup(groupId), options),
  };
}

/**
 * The user taps the chat picker button of their private chat's reply keyboard and picks a group.
 * Telegram lists only the groups the button allows (the user an admin when admin rights are asked,
 * the bot a member when bot_is_member); `unchecked` picks one anyway, as a group changed since
 * the picker was drawn. Sends chat_shared in the private chat.
 */
function shareChat(
  deps: GroupSideDeps,
  user: FakeUser,
  group: FakeGroup,
  options: { unchecked?: boolean },
): SentUserMessage {
  const keyboard = deps.state.replyKeyboards.get(user.id);
  const button = keyboard?.buttons.find((candidate) => candidate.request_chat !== undefined);
  if (!keyboard || !button?.request_chat)
    throw new Error(`shareChat: the private chat of user ${user.id} shows no chat picker button`);
  const request = button.request_chat;
  if (!options.unchecked) {
    const status = group.members.get(user.id)?.status ?? "left";
    if (request.user_administrator_rights && status !== "creator" && status !== "administrator")
      throw new Error(`shareChat: the picker does not list group ${group.id}: user ${user.id} is not an admin there`);
    if (request.bot_is_member && !isPresent(group.botStatus))
      throw new Error(`shareChat: the picker does not list group ${group.id}: the bot is not a member`);
    if (request.chat_is_channel) throw new Error("shareChat: the picker lists channels only");
  }
  if (keyboard.oneTime) deps.state.replyKeyboards.delete(user.id);
  const chat = {
    id: user.id,
    type: "private" as const,
    firstName: user.firstName ?? "Test",
    ...(user.username ? { username: user.username } : {}),
  };
  deps.state.rememberChat(chat);
  const message = deps.state.addMessage({
    chatId: user.id,
    from: "user",
    service: `Shared with the bot: ${group.title}`,
    edited: false,
    deleted: false,
    date: Math.floor(deps.now() / 1000),
  });
  deps.events.emit({ kind: "user_message", chatId: user.id, message: { ...message } });
  const shared = {
    request_id: request.request_id,
    chat_id: group.id,
    ...(request.request_title ? { title: group.title } : {}),
  };
  const updateId = deps.updates.enqueue({
    message: { ...messageJson(message, chat, userJson(user)), chat_shared: shared },
  });
  return { updateId, messageId: message.messageId, chatId: user.id };
}
