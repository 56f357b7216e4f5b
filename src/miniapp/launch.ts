import { signInitData } from "./init-data";

/** Telegram's theme parameters as its web client passes them, light and dark. */
export const THEMES = {
  light: {
    bg_color: "#ffffff",
    text_color: "#000000",
    hint_color: "#707579",
    link_color: "#3390ec",
    button_color: "#3390ec",
    button_text_color: "#ffffff",
    secondary_bg_color: "#f4f4f5",
    header_bg_color: "#ffffff",
    accent_text_color: "#3390ec",
    section_bg_color: "#ffffff",
    subtitle_text_color: "#707579",
    destructive_text_color: "#e53935",
  },
  dark: {
    bg_color: "#212121",
    text_color: "#ffffff",
    hint_color: "#aaaaaa",
    link_color: "#8774e1",
    button_color: "#8774e1",
    button_text_color: "#ffffff",
    secondary_bg_color: "#0f0f0f",
    header_bg_color: "#212121",
    accent_text_color: "#8774e1",
    section_bg_color: "#212121",
    subtitle_text_color: "#aaaaaa",
    destructive_text_color: "#ee686f",
  },
} as const;

export type ThemeName = keyof typeof THEMES;

/**
 * The address Telegram would open the dashboard at for `user`: /app with the launch parameters in
 * the fragment (init data signed with `botToken`, the theme, the client's version and platform),
 * exactly as Telegram's clients pass them. The playground and the tests open it so.
 */
export function launchPath(
  user: { id: number; firstName: string; languageCode?: string },
  botToken: string,
  signedAt: Date,
  theme: ThemeName = "light",
): string {
  const fragment = new URLSearchParams({
    tgWebAppData: signInitData(user, botToken, signedAt),
    tgWebAppVersion: "8.0",
    tgWebAppPlatform: "weba",
    tgWebAppThemeParams: JSON.stringify(THEMES[theme]),
  });
  return `/app#${fragment.toString()}`;
}
