import { addCall } from "./calls.js";
import { applyMessage, applyRejection, hideTyping, showTyping } from "./chat.js";
import { renderUsers } from "./users.js";
import { scheduleRefresh } from "./panel.js";
import { view } from "./state.js";
import { alertBox, toast } from "./util.js";
import { renderReplyKeyboard, shownChat } from "./group.js";

// The playground page: live events.

export function onEvent(event) {
  if (event.kind === "call") {
    addCall(event.call);
    if (
      event.call.method === "sendChatAction" &&
      event.call.ok &&
      event.chatId === shownChat() &&
      event.id > view.syncedEventId
    )
      showTyping(event.call.action);
    if (event.rejection && event.rejection.chatId === shownChat() && event.id > view.syncedEventId)
      applyRejection(event.rejection);
    return;
  }
  if (event.kind === "callback_answer") {
    if (event.chatId !== shownChat()) return;
    const answer = event.callbackAnswer;
    if (answer.text) (answer.showAlert ? alertBox : toast)(answer.text);
    if (answer.url) toast(`The bot answered with a link: ${answer.url}`);
    return;
  }
  if (event.chatId !== shownChat()) {
    if (event.kind === "message" && event.message.from === "bot" && event.chatId > 0) markUnread(event.chatId);
    return;
  }
  if (event.id <= view.syncedEventId) return;
  if (event.message.from === "bot" && event.kind === "message") hideTyping();
  applyMessage(event.message);
  if (event.message.from === "bot") scheduleRefresh();
  if (event.message.from === "bot" && event.kind === "message") void renderReplyKeyboard().catch(() => undefined);
}

export function markUnread(userId) {
  view.unread.add(userId);
  renderUsers();
}
