import {
  createPostEvent,
  hasWebviewProxy,
  isIframe,
  on,
  postEvent as postAnyEvent,
  setTargetOrigin,
} from "@telegram-apps/bridge";
import { parseLaunchParamsQuery } from "@telegram-apps/transformers";

// Telegram's side of a Mini App, spoken through the telegram-apps SDK: its bridge posts the
// protocol's events (TelegramWebviewProxy on phones and desktops, a message to the parent frame in
// web clients and in the playground) and receives the client's, checked against their schemas.
// Telegram's own script (window.Telegram.WebApp) is never loaded: the clients speak the protocol
// to any page.

/** Telegram's web client, the only other origin allowed to frame the page (routes.ts, frame-ancestors). */
const TELEGRAM_WEB_CLIENT = "https://web.telegram.org";

/**
 * The launch parameters Telegram put in the URL fragment, read with the SDK's schema: the init
 * data exactly as signed (the server checks it), its user, the theme and the client's version.
 * Parameters the schema refuses (an older client's init data without the newer fields, say) are
 * still read as they are: the init data goes to the server, which alone decides whether it is
 * Telegram's. Only the fragment is read: launch parameters are never kept beyond the page's memory.
 */
export function launchParams() {
  const query = window.location.hash.slice(1);
  const raw = new URLSearchParams(query);
  try {
    const params = parseLaunchParamsQuery(query);
    const initData = params.tgWebAppData ? raw.get("tgWebAppData") : "";
    return {
      initData,
      user: params.tgWebAppData && params.tgWebAppData.user,
      theme: params.tgWebAppThemeParams,
      version: params.tgWebAppVersion,
      fullscreen: params.tgWebAppFullscreen === true,
    };
  } catch {
    return {
      initData: raw.get("tgWebAppData") || "",
      user: undefined,
      theme: themeOf(raw.get("tgWebAppThemeParams")),
      version: raw.get("tgWebAppVersion") || undefined,
      fullscreen: raw.get("tgWebAppFullscreen") === "1",
    };
  }
}

/** Theme parameters as a client wrote them (JSON of colours), or none. */
function themeOf(json) {
  try {
    const theme = JSON.parse(json || "{}");
    return theme && typeof theme === "object" ? theme : {};
  } catch {
    return {};
  }
}

/** The parent frame's origin when the page's own server frames it (the playground), else Telegram's web client. */
function parentOrigin() {
  try {
    return window.parent.location.origin;
  } catch {
    return TELEGRAM_WEB_CLIENT;
  }
}

let send = postAnyEvent;

/**
 * Prepares the bridge for the client that opened the page: events go to the parent frame's origin,
 * and a method the client's version does not know is left unsent.
 */
export function connect(version) {
  setTargetOrigin(parentOrigin());
  if (version) send = createPostEvent(version, () => {});
}

function inTelegram() {
  return isIframe() || hasWebviewProxy(window);
}

/** Sends one event of the Mini App protocol to the Telegram client around the page. */
export function postEvent(type, data) {
  if (!inTelegram()) return;
  try {
    send(type, data);
  } catch {
    // A client that cannot take the event has nothing to show for it.
  }
}

/** Calls `handler(data)` on each event of `type` from the client; returns the unsubscribe. */
export function onEvent(type, handler) {
  return on(type, handler);
}

/** A light tap under the finger. */
export function haptic(style = "light") {
  postEvent("web_app_trigger_haptic_feedback", { type: "impact", impact_style: style });
}

/** Shows or hides Telegram's Back button. */
export function showBackButton(visible) {
  postEvent("web_app_setup_back_button", { is_visible: visible });
}

/** Opens a t.me link in Telegram (the chat's confirmation card); the Mini App stays as it is. */
export function openTelegramLink(url) {
  if (!inTelegram()) {
    window.location.href = url;
    return;
  }
  const parsed = new URL(url);
  postEvent("web_app_open_tg_link", { path_full: parsed.pathname + parsed.search });
}

/**
 * Tells the client the page is drawn (it hides its loader), may take the full height, and asks for
 * its viewport and safe areas (the device's, and the part Telegram's own controls cover in fullscreen).
 */
export function ready() {
  postEvent("web_app_ready");
  postEvent("web_app_expand");
  postEvent("web_app_request_viewport");
  postEvent("web_app_request_safe_area");
  postEvent("web_app_request_content_safe_area");
}

/** Lets Telegram close or minimise the Mini App with a vertical swipe, or not (what WebApp.enableVerticalSwipes and disableVerticalSwipes send). */
export function allowVerticalSwipes(allowed) {
  postEvent("web_app_setup_swipe_behavior", { allow_vertical_swipe: allowed });
}
