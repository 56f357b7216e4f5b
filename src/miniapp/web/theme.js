// The page follows Telegram's theme and viewport: each theme parameter becomes a CSS variable
// (--tg-theme-bg-color, …), the page is dark when the background is dark, and it fills the height
// Telegram gives it (--tg-viewport-height).

const FALLBACK_LIGHT = {
  bg_color: "#ffffff",
  text_color: "#000000",
  hint_color: "#707579",
  link_color: "#3390ec",
  button_color: "#3390ec",
  button_text_color: "#ffffff",
  secondary_bg_color: "#f4f4f5",
};
const FALLBACK_DARK = {
  bg_color: "#212121",
  text_color: "#ffffff",
  hint_color: "#aaaaaa",
  link_color: "#8774e1",
  button_color: "#8774e1",
  button_text_color: "#ffffff",
  secondary_bg_color: "#181818",
};

function isDark(color) {
  const match = /^#?([0-9a-f]{6})$/i.exec(color || "");
  if (!match) return false;
  const value = parseInt(match[1], 16);
  const luminance = 0.2126 * (value >> 16) + 0.7152 * ((value >> 8) & 255) + 0.0722 * (value & 255);
  return luminance < 128;
}

/** Applies `theme` (Telegram's theme parameters); without any, the system's light or dark. */
export function applyTheme(theme) {
  const given = theme && Object.keys(theme).length > 0;
  const systemDark = window.matchMedia && window.matchMedia("(prefers-color-scheme: dark)").matches;
  const dark = given ? isDark(theme.bg_color) : systemDark;
  const params = { ...(dark ? FALLBACK_DARK : FALLBACK_LIGHT), ...(given ? theme : {}) };
  const root = document.documentElement;
  for (const [name, value] of Object.entries(params)) {
    if (typeof value === "string" && /^#[0-9a-f]{3,8}$/i.test(value))
      root.style.setProperty(`--tg-theme-${name.replace(/_/g, "-")}`, value);
  }
  root.dataset.theme = dark ? "dark" : "light";
}

const SIDES = ["top", "bottom", "left", "right"];

/**
 * Applies a safe_area_changed (`kind` "safe-area": the device's notch, rounded corners, home bar) or
 * content_safe_area_changed ("content-safe-area": what Telegram's own controls cover, in
 * fullscreen) event as the CSS variables Telegram's own script sets (--tg-safe-area-inset-top, …),
 * which app.css pads the page with.
 */
export function applyInsets(kind, insets) {
  const root = document.documentElement;
  for (const side of SIDES) {
    const value = Number(insets && insets[side]);
    root.style.setProperty(`--tg-${kind}-inset-${side}`, `${Number.isFinite(value) && value > 0 ? value : 0}px`);
  }
}

/** Applies a fullscreen_changed event (and the launch's tgWebAppFullscreen): the page marks itself so. */
export function applyFullscreen(fullscreen) {
  document.documentElement.dataset.fullscreen = fullscreen ? "true" : "false";
}

/**
 * Applies a viewport_changed event: the page fills the height the client shows it in (while the
 * sheet is dragged, too); the stable height is the one it settles at.
 */
export function applyViewport({ height, is_state_stable: stable }) {
  const root = document.documentElement;
  root.style.setProperty("--tg-viewport-height", `${height}px`);
  if (stable) root.style.setProperty("--tg-viewport-stable-height", `${height}px`);
}
