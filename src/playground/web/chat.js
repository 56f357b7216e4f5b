import { openLink, press, sendText } from "./actions.js";
import { renderFormatted } from "./formatted.js";
import { $, view } from "./state.js";
import { api, copy, currentUser, h, toast } from "./util.js";
import { renderReplyKeyboard, shownChat } from "./group.js";

// The playground page: chat.

export function timeOf(seconds) {
  return new Date(seconds * 1000).toLocaleTimeString([], { hour: "2-digit", minute: "2-digit" });
}

export function keyboardFor(message) {
  const rows = message.replyMarkup && message.replyMarkup.inline_keyboard;
  if (!rows || rows.length === 0) return null;
  const keyboard = h("div", { class: "keyboard" });
  for (const row of rows) {
    const line = h("div", { class: "kb-row" });
    for (const button of row) line.append(buttonFor(message, button));
    keyboard.append(line);
  }
  return keyboard;
}

export function buttonFor(message, button) {
  let kind = "";
  let action;
  if (typeof button.callback_data === "string") {
    action = () => press(message.messageId, button.callback_data);
  } else if (button.copy_text) {
    kind = "📋";
    action = () => copy(button.copy_text.text);
  } else if (typeof button.url === "string") {
    kind = "🔗";
    action = () => openLink(button.url);
  } else {
    kind = "?";
    action = () => toast("This kind of button does nothing in the playground.");
  }
  return h(
    "button",
    { type: "button", class: "kb", "data-message-id": message.messageId, onclick: action },
    button.text,
    kind ? h("span", { class: "kind", text: kind }) : null,
  );
}

export function messageElement(message) {
  const bubble = h("div", { class: "bubble" });
  if (message.photo) {
    if (message.photo.src) {
      bubble.append(
        h("img", {
          class: message.photo.width > message.photo.height ? "photo wide" : "photo",
          src: message.photo.src,
          alt: "photo",
          width: message.photo.width,
          height: message.photo.height,
        }),
      );
    } else {
      bubble.append(
        h("div", { class: "hint", text: `[photo by URL, not fetched offline: ${message.photo.url || "?"}]` }),
      );
    }
  }
  if (message.viaBot) bubble.append(h("div", { class: "via", text: `via @${message.viaBot.username}` }));
  const body = message.text !== undefined ? message.text : message.caption;
  if (body)
    bubble.append(h("div", { class: "body" }, renderFormatted(body, message.entities, message.from === "user")));
  bubble.append(
    h(
      "div",
      { class: "meta" },
      message.edited ? h("span", { class: "edited", text: "edited" }) : null,
      timeOf(message.date),
    ),
  );
  return h(
    "div",
    { class: `msg ${message.from}`, "data-message-id": message.messageId, "data-order": message.messageId },
    bubble,
    keyboardFor(message),
  );
}

export function rejectionElement(rejection) {
  const text = `⚠ ${rejection.method} was rejected by Telegram: ${rejection.errorCode ? `${rejection.errorCode} ` : ""}${rejection.description}`;
  return h(
    "div",
    { class: "msg bot rejected", "data-seq": rejection.seq, "data-order": rejection.afterMessageId + 0.5 },
    h("div", { class: "bubble" }, text, h("div", { class: "meta", text: new Date(rejection.at).toLocaleTimeString() })),
  );
}

/** Inserts in order (messages by id, rejections after the message they followed), replacing a previous copy. */
export function place(element, existing) {
  const list = $("messages");
  const stick = list.scrollHeight - list.scrollTop - list.clientHeight < 80;
  if (existing) {
    existing.replaceWith(element);
  } else {
    const order = Number(element.dataset.order);
    const after = [...list.children].find((child) => Number(child.dataset.order) > order);
    list.insertBefore(element, after || null);
  }
  if (stick || !existing) list.scrollTop = list.scrollHeight;
  showChatState();
}

// The playground page: the chat's first screen, scrolling, typing.

/** Like Telegram: a new chat offers START and says what the bot does; the chat then follows its newest message. */
export function showChatState() {
  const list = $("messages");
  const empty = !list.querySelector(".msg");
  $("start-bar").hidden = !empty;
  const hint = list.querySelector(".empty-chat");
  if (empty && !hint) {
    list.append(
      h(
        "div",
        { class: "empty-chat" },
        h("b", { text: "What can this bot do?" }),
        "Quote and buy TRON energy and bandwidth, automate refills and get alerts, on the sandbox marketplace (no real TRX). Press START.",
      ),
    );
  } else if (!empty && hint) {
    hint.remove();
  }
  $("scroll-down").hidden = view.pinned !== false;
}

export function distanceFromNewest() {
  const list = $("messages");
  return list.scrollHeight - list.scrollTop - list.clientHeight;
}

export function scrollToNewest() {
  const list = $("messages");
  view.pinned = true;
  list.scrollTop = list.scrollHeight;
  $("scroll-down").hidden = true;
}

/**
 * A chat that shows its newest message keeps showing it while its box changes: at phone width the
 * side panel appears below the chat after the first screen and takes height from it, and photos
 * grow the list as they load; scrolled up to read, the chat stays put and offers the jump down.
 */
export function watchScrolling() {
  const list = $("messages");
  list.addEventListener("scroll", () => {
    view.pinned = distanceFromNewest() < 80;
    $("scroll-down").hidden = view.pinned;
  });
  const follow = () => {
    if (view.pinned !== false) list.scrollTop = list.scrollHeight;
  };
  new ResizeObserver(follow).observe(list);
  list.addEventListener("load", follow, true);
  $("scroll-down").onclick = () => scrollToNewest();
  $("start-button").onclick = () => void sendText("/start");
}

export let typingTimer = null;

/** "typing…" in the header, as Telegram shows a chat action: for 5 s, or until the bot's next message. */
export function showTyping(action) {
  $("chat-typing").textContent = action === "upload_photo" ? "sending a photo…" : "typing…";
  $("chat-typing").hidden = false;
  $("chat-sub").hidden = true;
  clearTimeout(typingTimer);
  typingTimer = setTimeout(hideTyping, 5000);
}

export function hideTyping() {
  clearTimeout(typingTimer);
  $("chat-typing").hidden = true;
  $("chat-sub").hidden = false;
}

export function applyMessage(message) {
  const existing = $("messages").querySelector(`.msg[data-message-id="${message.messageId}"]`);
  if (message.deleted) {
    if (existing) existing.remove();
    return;
  }
  place(messageElement(message), existing);
}

export function applyRejection(rejection) {
  const existing = $("messages").querySelector(`.msg[data-seq="${rejection.seq}"]`);
  place(rejectionElement(rejection), existing);
}

export async function loadChat() {
  const userId = view.userId;
  const chatId = shownChat();
  const data = await api(chatId < 0 ? `/play/api/group-chat?groupId=${chatId}` : `/play/api/chat?userId=${userId}`);
  // Another user (or chat) was chosen while this chat loaded: that load draws the chat.
  if (userId !== view.userId || chatId !== shownChat()) return;
  $("messages").replaceChildren();
  for (const message of data.messages) applyMessage(message);
  for (const rejection of data.rejections) applyRejection(rejection);
  view.syncedEventId = data.lastEventId;
  hideTyping();
  showChatState();
  scrollToNewest();
  const user = currentUser();
  $("chat-sub").textContent = user
    ? `${chatId < 0 ? `group ${data.group.title} · ` : ""}you are ${user.firstName} · id ${user.id} · ${user.languageCode}`
    : "";
  void renderReplyKeyboard().catch(() => undefined);
  $("export").href = `/play/api/transcript?userId=${view.userId}&download=1`;
}
