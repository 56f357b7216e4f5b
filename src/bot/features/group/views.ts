import { InlineKeyboard, Keyboard } from "grammy";
import { GROUP_CHOOSE, GROUP_COPY_TOGGLE, GROUP_STOP } from "#src/chat/callback-data";
import type { Translate } from "#src/chat/i18n";
import { copiesKind, GROUP_ALERT_KINDS, type GroupLink } from "#src/db/repos/group-links";

// What /group shows: the chat picker, and the card of a linked group with its switches.

/**
 * The request id of the group picker's button, sent back in chat_shared. One picker only, so a
 * constant: a chat_shared with another id is none of this feature's.
 */
export const GROUP_PICKER_REQUEST_ID = 45;

/**
 * Telegram's own chat picker: groups and supergroups (no channels) where the user is an
 * administrator (any rights; the empty set of rights asks for no particular one) and the bot a
 * member, with the title sent back so the card can name the group.
 */
export function groupPicker(tr: Translate): Keyboard {
  const noRights = {
    is_anonymous: false,
    can_manage_chat: false,
    can_delete_messages: false,
    can_manage_video_chats: false,
    can_restrict_members: false,
    can_promote_members: false,
    can_change_info: false,
    can_invite_users: false,
    can_post_stories: false,
    can_edit_stories: false,
    can_delete_stories: false,
    can_send_welcome_messages: false,
  };
  return new Keyboard()
    .requestChat(tr("button-choose-group"), GROUP_PICKER_REQUEST_ID, {
      chat_is_channel: false,
      user_administrator_rights: noRights,
      bot_is_member: true,
      request_title: true,
    })
    .resized()
    .oneTime();
}

/**
 * Telegram's link that adds the bot to a group the user picks (t.me/<bot>?startgroup=…&admin=…),
 * as an administrator allowed to post: a group that mutes its members still gets the alerts. No
 * other right is asked for, since the bot only sends there.
 */
export function addToGroupUrl(botUsername: string): string {
  return `https://t.me/${botUsername}?startgroup=alerts&admin=post_messages`;
}

/** The "Add to a group" button: Telegram's own group picker, then the bot added there. */
export function addToGroupKeyboard(tr: Translate, botUsername: string): InlineKeyboard {
  return new InlineKeyboard().url(tr("button-add-to-group"), addToGroupUrl(botUsername));
}

/** The card of a linked group: where the alerts go, a switch per kind, Choose a group, Stop group alerts and Add to a group. */
export function groupCard(
  tr: Translate,
  link: GroupLink,
  botUsername: string,
): { text: string; keyboard: InlineKeyboard } {
  const keyboard = new InlineKeyboard();
  for (const kind of GROUP_ALERT_KINDS) {
    keyboard
      .text(`${copiesKind(link, kind) ? "✅" : "▫️"} ${tr(`group-kind-${kind}`)}`, GROUP_COPY_TOGGLE.data(kind))
      .row();
  }
  keyboard.text(tr("button-choose-group"), GROUP_CHOOSE.data).text(tr("button-stop-group"), GROUP_STOP.data).danger();
  keyboard.row().url(tr("button-add-to-group"), addToGroupUrl(botUsername));
  const copied = GROUP_ALERT_KINDS.filter((kind) => copiesKind(link, kind)).map((kind) => tr(`group-kind-${kind}`));
  const text = [
    tr("group-card-title", { title: link.group_title }),
    copied.length > 0 ? tr("group-card-copied", { kinds: copied.join(", ") }) : tr("group-card-none"),
    "",
    tr("group-card-hint"),
  ].join("\n");
  return { text, keyboard };
}
