import { $, view } from "./state.js";
import { api, h, toast } from "./util.js";

// The playground page: team alerts offline. A group with every simulated user in it, shown as a
// chat (the current user writes and presses there); the chat picker of the private chat.

/** The chat on screen: the chosen team group, or the current user's private chat. */
export const shownChat = () => view.chatId ?? view.userId;

let groups = [];

function renderGroupSelect() {
  const select = $("chat-select");
  select.replaceChildren(
    h("option", { value: "", text: "Private chat with the bot" }),
    ...groups.map((group) => h("option", { value: group.id, text: `👥 ${group.title} (${group.id})` })),
  );
  select.value = view.chatId === null || view.chatId === undefined ? "" : String(view.chatId);
  $("group-remove-bot").disabled = view.chatId === null || view.chatId === undefined;
}

/** The server's groups, the private chat shown (a restarted server has none of the groups shown before). */
export async function loadGroups() {
  view.chatId = null;
  ({ groups } = await api("/play/api/groups"));
  renderGroupSelect();
}

/** Wires the team group panel; `reload` draws the chat again after the chat shown changed. */
export async function wireGroups(reload) {
  await loadGroups();
  $("create-group").onclick = async () => {
    try {
      const { group } = await api("/play/api/groups", {});
      groups.push(group);
      toast(
        `${group.title}: every simulated user is in it (the first its creator, the others admins), and the bot is a member`,
      );
      renderGroupSelect();
      await renderReplyKeyboard();
    } catch (error) {
      toast(error.message);
    }
  };
  $("chat-select").onchange = async () => {
    const value = $("chat-select").value;
    view.chatId = value === "" ? null : Number(value);
    renderGroupSelect();
    await reload();
  };
  $("group-remove-bot").onclick = async () => {
    if (view.chatId === null) return;
    try {
      await api("/play/api/group/remove-bot", { userId: view.userId, groupId: view.chatId });
      toast("The bot was removed from the group (my_chat_member)");
    } catch (error) {
      toast(error.message);
    }
  };
}

/**
 * The reply keyboard of the private chat, above the composer, as Telegram shows it. The chat
 * picker's button lists the playground's groups; picking one sends chat_shared.
 */
export async function renderReplyKeyboard() {
  const bar = $("reply-keyboard");
  if (view.chatId !== null && view.chatId !== undefined) {
    bar.hidden = true;
    return;
  }
  const { keyboard } = await api(`/play/api/reply-keyboard?userId=${view.userId}`);
  const picker = keyboard && keyboard.buttons.find((button) => button.request_chat);
  if (!picker) {
    bar.hidden = true;
    return;
  }
  const choices =
    groups.length > 0
      ? groups.map((group) =>
          h(
            "button",
            { type: "button", class: "kb", onclick: () => void share(group.id) },
            `${picker.text}: ${group.title}`,
          ),
        )
      : [h("span", { class: "hint", text: `${picker.text}: no group yet (create one in the Team group panel)` })];
  bar.replaceChildren(...choices);
  bar.hidden = false;
}

async function share(groupId) {
  try {
    await api("/play/api/share-chat", { userId: view.userId, groupId });
    $("reply-keyboard").hidden = true;
  } catch (error) {
    toast(error.message);
  }
}
