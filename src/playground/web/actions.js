import { SAFE_LINK, view } from "./state.js";
import { api, copy, toast } from "./util.js";
import { shownChat } from "./group.js";

// The playground page: actions.

export async function sendText(text) {
  try {
    const chatId = shownChat();
    await api("/play/api/send", { userId: view.userId, text, ...(chatId < 0 ? { groupId: chatId } : {}) });
  } catch (error) {
    toast(error.message);
  }
}

export async function press(messageId, callbackData) {
  try {
    const chatId = shownChat();
    await api("/play/api/press", { userId: view.userId, messageId, callbackData, ...(chatId < 0 ? { chatId } : {}) });
  } catch (error) {
    toast(error.message);
  }
}

/**
 * A link into the bot, as Telegram opens it: t.me/<bot>?start=… sends "/start …" in this chat;
 * Telegram's share page (t.me/share/url?url=…) is shown as the link it would share. Null otherwise.
 */
export function botLink(href) {
  let url;
  try {
    url = new URL(href);
  } catch {
    return null;
  }
  if (url.hostname === "t.me" && url.pathname === "/share/url") return { share: url.searchParams.get("url") || "" };
  if (
    (url.hostname === "t.me" && url.searchParams.has("start")) ||
    (url.protocol === "tg:" && url.hostname === "resolve")
  )
    return { open: href };
  return null;
}

export async function openLink(href) {
  const link = botLink(href);
  if (!link) {
    if (SAFE_LINK.test(href)) window.open(href, "_blank", "noopener,noreferrer");
    return;
  }
  if (link.share !== undefined) {
    await copy(link.share, "the link to share (open it in another user's chat to see what they get)");
    return;
  }
  try {
    await api("/play/api/open-link", { userId: view.userId, url: link.open });
  } catch (error) {
    toast(error.message);
  }
}
