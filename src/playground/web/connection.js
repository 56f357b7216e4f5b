import { addCall } from "./calls.js";
import { loadChat } from "./chat.js";
import { followUser } from "./dashboard.js";
import { onEvent } from "./events.js";
import { loadGroups } from "./group.js";
import { refreshPanel, showDemo } from "./panel.js";
import { $, view } from "./state.js";
import { renderUsers } from "./users.js";
import { api, currentUser } from "./util.js";

// The playground page: the live connection to the server, and drawing everything again when the
// server behind it is a new one. `npm start` restarted with this tab open comes back with a new
// fake Telegram, whose events, messages and calls are numbered from 1 again: the stream names the
// server's instance when it opens, and a page that sees another one starts over from the new
// server's state. While the server is away, the dot says so.

/** The server sends `ping` every 15 s: nothing heard for this long, the connection is dead though not closed. */
const SILENCE_MS = 40_000;
const RETRY_MS = 2_000;

let source = null;
/** The newest event id the stream carried, to go on from after a reconnection made here. */
let streamedEventId = 0;
let silence = null;
let retry = null;
let resyncing = false;

export function showConnection(live, title) {
  const dot = $("conn");
  dot.classList.toggle("live", live);
  dot.classList.toggle("away", !live);
  dot.title = title;
  dot.setAttribute("aria-label", title);
}

function away(title = "The server is not reachable: reconnecting…") {
  showConnection(false, title);
}

/** Something came over the stream: it is alive; silence for SILENCE_MS from now reconnects. */
function heard() {
  clearTimeout(silence);
  silence = setTimeout(() => {
    away("No word from the server for 40 s: reconnecting…");
    connect(streamedEventId);
  }, SILENCE_MS);
}

/** Opens the event stream from the event after `since`, closing the one open. */
export function connect(since) {
  clearTimeout(retry);
  if (source) source.close();
  streamedEventId = since;
  const opened = new EventSource(`/play/api/events?since=${since}`);
  source = opened;
  heard();
  opened.addEventListener("hello", (message) => {
    if (opened !== source) return;
    heard();
    let hello;
    try {
      hello = JSON.parse(message.data);
    } catch {
      return;
    }
    if (hello.instance !== view.config.instance) void resync();
    else if (!resyncing) showConnection(true, "Live updates: connected");
  });
  opened.addEventListener("ping", () => {
    if (opened === source) heard();
  });
  opened.onmessage = (message) => {
    if (opened !== source) return;
    heard();
    if (/^\d+$/.test(message.lastEventId)) streamedEventId = Number(message.lastEventId);
    try {
      onEvent(JSON.parse(message.data));
    } catch (error) {
      console.error("bad event", error);
    }
  };
  opened.onerror = () => {
    if (opened !== source) return;
    away();
    // The browser reconnects by itself after a network error, not after an answer that is not a
    // stream (a proxy's 502 while the server restarts): then this page does.
    if (opened.readyState === EventSource.CLOSED) {
      clearTimeout(retry);
      retry = setTimeout(() => connect(streamedEventId), RETRY_MS);
    }
  };
}

/**
 * The server is a new one: everything the page shows came from the old one. Takes the new server's
 * config (users, demo key, groups), keeps the user chosen here (their name and language, which the
 * new server does not know yet), and draws the chat, the call log, the panel and the open dashboard
 * from the new server; the dot turns green once that is done.
 */
export async function resync() {
  if (resyncing) return;
  resyncing = true;
  if (source) source.close();
  source = null;
  clearTimeout(silence);
  clearTimeout(retry);
  showConnection(false, "A new server: drawing the chat again…");
  try {
    const chosen = currentUser();
    const config = await api("/play/api/config");
    if (chosen && !config.users.some((user) => sameUser(user, chosen))) {
      const { user } = await api("/play/api/users", {
        id: chosen.id,
        firstName: chosen.firstName,
        languageCode: chosen.languageCode,
      });
      config.users = [...config.users.filter((u) => u.id !== user.id), user].sort((a, b) => a.id - b.id);
    }
    view.config = config;
    if (!chosen) view.userId = config.users[0].id;
    view.unread.clear();
    view.seenCalls.clear();
    view.syncedEventId = 0;
    view.priceDraft = null;
    $("calls").replaceChildren();
    renderUsers();
    await loadGroups();
    connect(config.lastEventId);
    await loadChat();
    const { calls } = await api("/play/api/calls?getUpdates=1");
    for (const call of calls) addCall(call);
    if (config.sandbox) {
      showDemo();
      await refreshPanel();
    }
    followUser();
    resyncing = false;
    if (source && source.readyState === EventSource.OPEN) showConnection(true, "Live updates: connected");
  } catch {
    // Gone again, or not all the way up yet: start over in a moment.
    resyncing = false;
    if (source) source.close();
    source = null;
    away();
    retry = setTimeout(() => void resync(), RETRY_MS);
  }
}

function sameUser(a, b) {
  return a.id === b.id && a.firstName === b.firstName && a.languageCode === b.languageCode;
}
