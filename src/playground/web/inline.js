import { $, view } from "./state.js";
import { api, h, toast } from "./util.js";

// The playground page: inline mode.

export let inlineTimer = null;
export let inlineAsked = 0;

/** Asks the bot as Telegram does while the user types "@bot …", and lists the results it answers. */
export async function askInline() {
  const asked = ++inlineAsked;
  const box = $("inline-results");
  try {
    const { inlineQueryId, answer } = await api("/play/api/inline", {
      userId: view.userId,
      query: $("inline-query").value,
    });
    if (asked !== inlineAsked) return;
    box.hidden = false;
    if (!answer) {
      box.replaceChildren(
        h("div", { class: "empty", text: "The bot did not answer within 10 s (Telegram would show nothing)." }),
      );
      return;
    }
    const items = answer.results.map((result) =>
      h(
        "button",
        {
          type: "button",
          title: "Send this into the chat",
          onclick: () => void chooseInline(inlineQueryId, result.id),
        },
        h("b", { text: result.title }),
        result.description ? h("span", { class: "desc", text: result.description }) : null,
      ),
    );
    if (answer.button) {
      const start = () =>
        api("/play/api/open-link", { userId: view.userId, startParameter: answer.button.startParameter }).then(
          closeInline,
          (error) => toast(error.message),
        );
      items.unshift(h("button", { type: "button", onclick: () => void start() }, h("b", { text: answer.button.text })));
    }
    if (items.length === 0) items.push(h("div", { class: "empty", text: "No results." }));
    items.push(
      h("div", { class: "empty", text: `cache_time ${answer.cacheTime} s · ${answer.results.length} result(s)` }),
    );
    box.replaceChildren(...items);
  } catch (error) {
    toast(error.message);
  }
}

export async function chooseInline(inlineQueryId, resultId) {
  try {
    await api("/play/api/inline/choose", { userId: view.userId, inlineQueryId, resultId });
    closeInline();
  } catch (error) {
    toast(error.message);
  }
}

export function closeInline() {
  $("inline-results").hidden = true;
  $("inline-query").value = "";
}

export function wireInline() {
  $("inline-box").addEventListener("submit", (event) => {
    event.preventDefault();
    clearTimeout(inlineTimer);
    void askInline();
  });
  $("inline-query").addEventListener("input", () => {
    clearTimeout(inlineTimer);
    inlineTimer = setTimeout(() => void askInline(), 400);
  });
  $("inline-query").addEventListener("keydown", (event) => {
    if (event.key === "Escape") closeInline();
  });
}
