// Telegram's side of a Mini App, read and spoken without Telegram's script: the launch
// parameters from the URL fragment (tgWebAppData, tgWebAppThemeParams, …) and the events of its
// protocol (postEvent on mobile clients, postMessage to the parent frame in web clients and in the
// playground). window.Telegram.WebApp is used instead where a client provides it.

/** The launch parameters: the fragment first (how Telegram passes them), then the WebApp object. */
export function launchParams() {
  const fragment = new URLSearchParams(window.location.hash.slice(1));
  const webApp = window.Telegram && window.Telegram.WebApp;
  let theme = {};
  try {
    theme = JSON.parse(fragment.get("tgWebAppThemeParams") || "{}") || {};
  } catch {
    theme = {};
  }
  if (webApp && webApp.themeParams && Object.keys(theme).length === 0) theme = webApp.themeParams;
  const initData = fragment.get("tgWebAppData") || (webApp && webApp.initData) || "";
  return { initData, theme, platform: fragment.get("tgWebAppPlatform") || (webApp && webApp.platform) || "unknown" };
}

/** Sends one event of the Mini App protocol to the Telegram client around the page. */
export function postEvent(type, data) {
  const payload = data === undefined ? null : data;
  try {
    if (window.TelegramWebviewProxy && typeof window.TelegramWebviewProxy.postEvent === "function") {
      window.TelegramWebviewProxy.postEvent(type, JSON.stringify(payload));
    } else if (window.parent !== window) {
      window.parent.postMessage(JSON.stringify({ eventType: type, eventData: payload }), "*");
    }
  } catch {
    // Outside Telegram there is nobody to tell.
  }
}

const listeners = new Map();

/** Calls `handler(data)` on each event of `type` from the client (back_button_pressed, theme_changed). */
export function onEvent(type, handler) {
  if (!listeners.has(type)) listeners.set(type, new Set());
  listeners.get(type).add(handler);
  return () => listeners.get(type).delete(handler);
}

function receive(type, data) {
  for (const handler of listeners.get(type) || []) handler(data);
}

/** Mobile clients call window.Telegram.WebView.receiveEvent; web clients post a message. */
export function listenToClient() {
  window.Telegram = window.Telegram || {};
  window.Telegram.WebView = window.Telegram.WebView || {};
  if (!window.Telegram.WebView.receiveEvent) window.Telegram.WebView.receiveEvent = receive;
  window.addEventListener("message", (event) => {
    if (event.source !== window.parent) return;
    try {
      const message = typeof event.data === "string" ? JSON.parse(event.data) : event.data;
      if (message && typeof message.eventType === "string") receive(message.eventType, message.eventData);
    } catch {
      // Not an event of the protocol.
    }
  });
}

/** A light tap under the finger, when the client supports it. */
export function haptic(style = "light") {
  const webApp = window.Telegram && window.Telegram.WebApp;
  if (webApp && webApp.HapticFeedback) webApp.HapticFeedback.impactOccurred(style);
  else postEvent("web_app_trigger_haptic_feedback", { type: "impact", impact_style: style });
}

/** Shows or hides Telegram's Back button. */
export function showBackButton(visible) {
  const webApp = window.Telegram && window.Telegram.WebApp;
  if (webApp && webApp.BackButton) {
    if (visible) webApp.BackButton.show();
    else webApp.BackButton.hide();
  } else postEvent("web_app_setup_back_button", { is_visible: visible });
}

/** Opens a t.me link in Telegram (the chat's confirmation card); the Mini App stays as it is. */
export function openTelegramLink(url) {
  const webApp = window.Telegram && window.Telegram.WebApp;
  if (webApp && typeof webApp.openTelegramLink === "function") return webApp.openTelegramLink(url);
  const parsed = new URL(url);
  if (window.parent !== window || window.TelegramWebviewProxy) postEvent("web_app_open_tg_link", { path_full: parsed.pathname + parsed.search });
  else window.location.href = url;
}

/** Tells the client the page is drawn (it hides its loader) and may take the full height. */
export function ready() {
  const webApp = window.Telegram && window.Telegram.WebApp;
  if (webApp && typeof webApp.ready === "function") {
    webApp.ready();
    if (typeof webApp.expand === "function") webApp.expand();
    return;
  }
  postEvent("web_app_ready");
  postEvent("web_app_expand");
}
