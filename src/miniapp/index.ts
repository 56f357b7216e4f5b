import type { Hono } from "hono";
import { dashboardUrl } from "#src/bot/features/dashboard/index";
import type { ServerEnv } from "#src/server/create-server";
import type { MiniAppDeps } from "./deps";
import { MiniAppBounds } from "./bounds";
import { OpenRuleCards } from "./open-cards";
import { registerMiniApp } from "./routes";

export { signInitData } from "./init-data";
export { launchPath, THEMES, type ThemeName } from "./launch";

/**
 * The dashboard Mini App: its page and data routes, and the record of the rule cards open in each
 * chat (installed on the bot's API and kept in the database, so a Pause on the dashboard redraws
 * the chat's card whichever replica drew it).
 */
export function startMiniApp(deps: Omit<MiniAppDeps, "cards" | "bounds">): {
  routes: (app: Hono<ServerEnv>) => void;
  cards: OpenRuleCards;
} {
  // Only where the dashboard can be opened (an https PUBLIC_URL, or the playground) are the chat's
  // rule cards worth a row each: elsewhere nothing could ever ask for them to be redrawn, nor do
  // they follow a change of their rule (which needs the record).
  const recorded = deps.config.playground || dashboardUrl(deps.config) !== null;
  const cards = new OpenRuleCards({
    db: deps.db,
    writes: deps.writes,
    now: deps.now,
    logger: deps.logger,
    ...(recorded ? { bot: deps.bot } : {}),
  });
  if (recorded) deps.bot.api.config.use(cards.transformer());
  return { routes: registerMiniApp({ ...deps, cards, bounds: new MiniAppBounds() }), cards };
}
