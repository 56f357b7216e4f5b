import { $, view } from "./state.js";
import { currentUser, h } from "./util.js";

/** The user picker: every playground user (a dot on those with unread messages), the current one chosen, and their language. */
export function renderUsers() {
  $("user-select").replaceChildren(
    ...view.config.users.map((user) =>
      h("option", {
        value: user.id,
        selected: user.id === view.userId ? "selected" : null,
        text: `${user.firstName} (${user.id})${view.unread.has(user.id) ? " •" : ""}`,
      }),
    ),
  );
  $("user-select").value = String(view.userId);
  const user = currentUser();
  if (user) $("lang-select").value = ["en", "ru", "zh"].includes(user.languageCode) ? user.languageCode : "en";
}
