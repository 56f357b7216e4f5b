import { sendText } from "./actions.js";
import { addCall } from "./calls.js";
import { loadChat, watchScrolling } from "./chat.js";
import { connect } from "./connection.js";
import { followUser, wireDashboard } from "./dashboard.js";
import { wireInline } from "./inline.js";
import { closeMenu, moveMenu, openMenu, pickCommand } from "./menu.js";
import { wirePanel } from "./panel.js";
import { wireGroups } from "./group.js";
import { $, view } from "./state.js";
import { renderUsers } from "./users.js";
import { api, h, toast } from "./util.js";

// The playground page: users and languages.

export async function switchUser(userId) {
  view.userId = userId;
  view.unread.delete(userId);
  localStorage.setItem("playground.user", String(userId));
  renderUsers();
  followUser();
  await loadChat();
}

export async function main() {
  view.config = await api("/play/api/config");
  const saved = Number(localStorage.getItem("playground.user"));
  view.userId = view.config.users.some((user) => user.id === saved) ? saved : view.config.users[0].id;
  renderUsers();
  // The user controls work from the first paint: a change made while the chat still loads is not lost.
  $("user-select").onchange = () => void switchUser(Number($("user-select").value));
  $("add-user").onclick = async () => {
    const { user } = await api("/play/api/users", { languageCode: $("lang-select").value });
    view.config.users.push(user);
    await switchUser(user.id);
  };
  $("lang-select").onchange = async () => {
    const { user } = await api("/play/api/users", { id: view.userId, languageCode: $("lang-select").value });
    view.config.users = view.config.users.map((u) => (u.id === user.id ? user : u));
    toast(`language_code is now ${user.languageCode} for ${user.firstName}`);
    await loadChat();
  };
  await wireGroups(loadChat);
  watchScrolling();
  connect(view.config.lastEventId);
  await loadChat();
  const { calls } = await api("/play/api/calls?getUpdates=1");
  for (const call of calls) addCall(call);
  if (view.config.sandbox) wirePanel();
  wireInline();
  wireDashboard();

  $("show-polls").onchange = () => $("calls").classList.toggle("with-polls", $("show-polls").checked);
  $("clear-log").onclick = (event) => {
    event.preventDefault();
    $("calls").replaceChildren();
  };
  $("alert-ok").onclick = () => $("alert-dialog").close();

  const input = $("composer-input");
  $("composer").addEventListener("submit", (event) => {
    event.preventDefault();
    const text = input.value;
    if (!text.trim()) return;
    input.value = "";
    closeMenu();
    void sendText(text);
  });
  input.addEventListener("keydown", (event) => {
    const menuOpen = !$("command-menu").hidden;
    if (menuOpen && (event.key === "ArrowDown" || event.key === "ArrowUp")) {
      event.preventDefault();
      moveMenu(event.key === "ArrowDown" ? 1 : -1);
    } else if (menuOpen && event.key === "Tab") {
      event.preventDefault();
      const item = $("command-menu").children[view.menuIndex];
      if (item) input.value = `/${item.dataset.command} `;
      closeMenu();
    } else if (menuOpen && event.key === "Enter" && !event.shiftKey) {
      // What is sent is what was typed, unless the person chose an item with the arrow keys: the
      // menu may still show the list of an earlier prefix while the current one loads.
      event.preventDefault();
      const item = $("command-menu").children[view.menuIndex];
      if (item && view.menuChosen) pickCommand(item.dataset.command);
      else $("composer").requestSubmit();
    } else if (menuOpen && event.key === "Escape") {
      closeMenu();
    } else if (event.key === "Enter" && !event.shiftKey) {
      event.preventDefault();
      $("composer").requestSubmit();
    }
  });
  input.addEventListener("input", () => {
    const value = input.value;
    if (/^\/[a-z0-9_]*$/i.test(value)) void openMenu(value);
    else closeMenu();
  });
  $("menu-button").onclick = () => ($("command-menu").hidden ? void openMenu("") : closeMenu());
  // The composer and the inline box take input only now that they are wired: an Enter pressed
  // while the page still loads would otherwise submit the bare form and reload the page.
  for (const element of document.querySelectorAll("[data-until-ready]")) element.disabled = false;
  input.focus();
}

main().catch((error) => {
  document.body.prepend(h("div", { class: "toast", text: `The playground failed to start: ${error.message}` }));
});
