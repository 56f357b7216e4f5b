import { openLink } from "./actions.js";
import { $, view } from "./state.js";
import { api, toast } from "./util.js";

// The playground page: the dashboard Mini App in a frame beside the chat, as the current user
// would see it. The frame speaks Telegram's Mini App protocol (messages to its parent), and this
// page answers as Telegram's web client does: links into the bot open in the chat, the Back
// button shows here, haptic taps flash the frame, a request for the viewport gets the frame's size.

const frame = () => $("dashboard-frame");

const chosenTheme = () => ($("dashboard-dark").checked ? "dark" : "light");

export async function openDashboard() {
  const { url } = await api(`/play/api/dashboard?userId=${view.userId}&theme=${chosenTheme()}`);
  // A new frame for each launch, as Telegram opens a Mini App afresh: setting the src of the one
  // there (the fragment alone may differ between two users) could leave it blank.
  const fresh = frame().cloneNode(false);
  fresh.hidden = false;
  fresh.src = url;
  frame().replaceWith(fresh);
  $("close-dashboard").hidden = false;
  $("dashboard-back").hidden = true;
}

/**
 * The dark theme switched on or off with the dashboard open: as Telegram's clients do, the open
 * Mini App is told (theme_changed with the new theme's parameters) and redraws itself in it;
 * nothing is loaded again.
 */
async function switchTheme() {
  if (frame().hidden) return;
  const { themeParams } = await api(`/play/api/dashboard?userId=${view.userId}&theme=${chosenTheme()}`);
  tell("theme_changed", { theme_params: themeParams });
}

/** Reopens the dashboard for the user now chosen, when it is open. */
export function followUser() {
  if (!frame().hidden) void openDashboard().catch((error) => toast(error.message));
}

/** Sends the frame one event of the protocol, as Telegram's web client posts it. */
function tell(eventType, eventData) {
  frame().contentWindow.postMessage(JSON.stringify({ eventType, eventData }), window.location.origin);
}

function receive(event) {
  if (event.source !== frame().contentWindow) return;
  let message;
  try {
    message = typeof event.data === "string" ? JSON.parse(event.data) : event.data;
  } catch {
    return;
  }
  const data = message && message.eventData;
  switch (message && message.eventType) {
    case "web_app_open_tg_link":
      if (data && typeof data.path_full === "string") void openLink(`https://t.me${data.path_full}`);
      break;
    case "web_app_setup_back_button":
      $("dashboard-back").hidden = !(data && data.is_visible);
      break;
    case "web_app_trigger_haptic_feedback":
      frame().classList.remove("tap");
      void frame().offsetWidth;
      frame().classList.add("tap");
      break;
    case "web_app_request_viewport":
      tell("viewport_changed", {
        height: frame().clientHeight,
        width: frame().clientWidth,
        is_expanded: true,
        is_state_stable: true,
      });
      break;
    default:
      break;
  }
}

export function wireDashboard() {
  window.addEventListener("message", receive);
  $("open-dashboard").onclick = () => void openDashboard().catch((error) => toast(error.message));
  $("dashboard-dark").onchange = () => void switchTheme().catch((error) => toast(error.message));
  $("close-dashboard").onclick = () => {
    const closed = frame().cloneNode(false);
    closed.hidden = true;
    closed.removeAttribute("src");
    frame().replaceWith(closed);
    $("close-dashboard").hidden = true;
    $("dashboard-back").hidden = true;
  };
  $("dashboard-back").onclick = () => tell("back_button_pressed", null);
}
