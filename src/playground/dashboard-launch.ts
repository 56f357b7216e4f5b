import type { Hono } from "hono";
import { launchPath, THEMES, type ThemeName } from "#src/miniapp/index";
import type { ServerEnv } from "#src/server/create-server";
import type { PlaygroundState } from "./state";

/**
 * GET /play/api/dashboard?userId=&theme=light|dark: where the dashboard Mini App opens for that
 * simulated user, with init data signed by the playground's bot token, as Telegram would open it
 * for them, and the theme's parameters (what Telegram's theme_changed event carries when the user
 * switches theme with the Mini App open). The page shows it in a frame beside the chat.
 */
export function registerDashboardLaunch(
  app: Hono<ServerEnv>,
  state: PlaygroundState,
  token: string,
  now: () => number,
): void {
  app.get("/play/api/dashboard", (c) => {
    const userId = Number(c.req.query("userId"));
    if (!Number.isSafeInteger(userId) || userId <= 0)
      return c.json({ error: "userId must be a simulated user's id" }, 400);
    const theme: ThemeName = c.req.query("theme") === "dark" ? "dark" : "light";
    const user = state.user(userId);
    return c.json({
      url: launchPath(
        { id: user.id, firstName: user.firstName, languageCode: user.languageCode },
        token,
        new Date(now()),
        theme,
      ),
      themeParams: THEMES[theme],
    });
  });
}
