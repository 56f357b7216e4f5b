import { sendText } from "./actions.js";
import { $, view } from "./state.js";
import { api, currentUser, h } from "./util.js";

// The playground page: command menu.

export async function openMenu(filter) {
  const user = currentUser();
  const { commands } = await api(
    `/play/api/commands?userId=${view.userId}&lang=${encodeURIComponent(user ? user.languageCode : "")}`,
  );
  // The user may have typed on (or sent) while the commands were loading.
  if (filter && $("composer-input").value !== filter) return;
  const wanted = (filter || "").toLowerCase();
  const shown = commands.filter((c) => `/${c.command}`.startsWith(wanted || "/"));
  const menu = $("command-menu");
  menu.replaceChildren(
    ...shown.map((c, i) =>
      h(
        "button",
        {
          type: "button",
          class: i === 0 ? "active" : "",
          "data-command": c.command,
          onclick: () => pickCommand(c.command),
        },
        `/${c.command}`,
        h("span", { class: "desc", text: c.description }),
      ),
    ),
  );
  view.menuIndex = 0;
  view.menuChosen = false;
  menu.hidden = shown.length === 0;
}

export function closeMenu() {
  $("command-menu").hidden = true;
}

export function pickCommand(command) {
  closeMenu();
  $("composer-input").value = "";
  void sendText(`/${command}`);
  $("composer-input").focus();
}

export function moveMenu(step) {
  const items = [...$("command-menu").children];
  if (items.length === 0) return;
  view.menuIndex = (view.menuIndex + step + items.length) % items.length;
  view.menuChosen = true;
  items.forEach((item, i) => item.classList.toggle("active", i === view.menuIndex));
  items[view.menuIndex].scrollIntoView({ block: "nearest" });
}
