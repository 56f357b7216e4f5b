import { existsSync, readFileSync } from "node:fs";
import { join, sep } from "node:path";
import type { Hono } from "hono";
import type { EmbeddedSandbox } from "#src/embedded-sandbox";
import type { Logger } from "#src/logger";
import type { ServerEnv } from "#src/server/create-server";
import { projectRoot } from "#src/paths";
import type { FakeTelegram } from "#src/telegram-fake/index";
import { playgroundGuard, type PlaygroundAddress } from "./guard";
import { handle } from "./api-input";
import { registerChatRoutes } from "./chat-routes";
import { registerEventStream } from "./event-stream";
import { createSandboxPanel, PanelError, type PanelHooks, type SandboxPanel } from "./sandbox-panel";
import { LANGUAGES, type PlaygroundState } from "./state";
import { registerUserActions } from "./user-actions";
import { registerGroupRoutes } from "./group-routes";
import { registerDashboardLaunch } from "./dashboard-launch";
import { registerEmojiFont } from "./emoji-font";

export interface PlaygroundRouteDeps {
  fake: FakeTelegram;
  sandbox: EmbeddedSandbox | null;
  logger: Logger;
  state: PlaygroundState;
  /** Set once the push machinery exists (see PlaygroundHandle.attach). */
  hooks: () => PanelHooks;
  /** Streams to end when the playground stops. */
  streams: Set<() => void>;
  botUsername?: string;
  /** Where the server listens: requests must name it (see playgroundGuard). */
  address: PlaygroundAddress;
  /** The playground's bot token: the dashboard's init data is signed with it. */
  token: string;
}

const PUBLIC_DIR = join(projectRoot(), "src", "playground", "public") + sep;
/** The page's script: the ES modules of src/playground/web, bundled by `npm run build:web` (part of `npm run build`). */
const SCRIPT = join(projectRoot(), "dist", "playground", "app.js");
const ASSETS: Record<string, string> = {
  "/play": `${PUBLIC_DIR}index.html`,
  "/play/": `${PUBLIC_DIR}index.html`,
  "/play/app.js": SCRIPT,
  "/play/app.css": `${PUBLIC_DIR}app.css`,
};
const CONTENT_TYPES: Record<string, string> = {
  html: "text/html; charset=utf-8",
  js: "text/javascript; charset=utf-8",
  css: "text/css; charset=utf-8",
};
const CSP =
  "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; font-src 'self'; frame-src 'self'; connect-src 'self'; " +
  "base-uri 'none'; form-action 'none'; frame-ancestors 'none'";
/** GET /play (the web chat), its assets, and the JSON/SSE interface under /play/api. */
export function registerPlaygroundRoutes(deps: PlaygroundRouteDeps) {
  const { fake, state } = deps;
  // Read once at start: the page is small and never changes while the process runs.
  if (!existsSync(SCRIPT))
    throw new Error(
      `The playground's script is not built (${SCRIPT}): run npm run build:web, or npm start, which builds it`,
    );
  const assets = new Map(Object.entries(ASSETS).map(([route, file]) => [route, readFileSync(file, "utf8")]));
  const panel = deps.sandbox ? createSandboxPanel(deps.sandbox, fake, deps.hooks) : null;

  return (app: Hono<ServerEnv>) => {
    const guard = playgroundGuard(deps.address);
    app.use("/play", guard);
    app.use("/play/*", guard);
    registerAssets(app, assets);
    registerEmojiFont(app);
    registerPageConfig(app, deps, panel);
    registerChatRoutes(app, fake, state);
    registerUserActions(app, fake, state);
    registerGroupRoutes(app, fake, state);
    registerDashboardLaunch(app, state, deps.token, Date.now);
    registerEventStream(app, deps);
    registerSandboxPanel(app, panel, deps.logger);
  };
}

/** The page, its script and its style, under a strict content security policy. */
function registerAssets(app: Hono<ServerEnv>, assets: Map<string, string>): void {
  for (const [route, file] of Object.entries(ASSETS)) {
    const type = CONTENT_TYPES[file.split(".").pop()!]!;
    app.get(route, (c) =>
      c.body(assets.get(route)!, 200, {
        "content-type": type,
        "cache-control": "no-cache",
        "content-security-policy": CSP,
        "x-content-type-options": "nosniff",
        "referrer-policy": "no-referrer",
      }),
    );
  }
}

/** What the page needs first: whether the sandbox panel is on, the demo account, the users, the languages. */
function registerPageConfig(app: Hono<ServerEnv>, deps: PlaygroundRouteDeps, panel: SandboxPanel | null): void {
  app.get("/play/api/config", (c) =>
    c.json({
      sandbox: panel !== null,
      demo: deps.sandbox ? { accountId: deps.sandbox.sandbox.demo.accountId, apiKey: deps.sandbox.demoApiKey } : null,
      users: deps.state.users(),
      languages: LANGUAGES,
      instance: deps.state.instance,
      lastEventId: deps.state.lastEventId(),
    }),
  );
}

/** The sandbox panel's state and actions; 404 when the playground runs against an external marketplace. */
function registerSandboxPanel(app: Hono<ServerEnv>, panel: SandboxPanel | null, logger: Logger): void {
  app.get("/play/api/sandbox", (c) =>
    panel
      ? c.json(panel.state())
      : c.json(
          { error: "the playground runs against an external marketplace (MARKETPLACE_URL); the sandbox panel is off" },
          404,
        ),
  );
  app.post("/play/api/sandbox/:action", (c) =>
    handle(c, async (body) => {
      if (!panel)
        throw new PanelError(404, "the sandbox panel is off: MARKETPLACE_URL points at an external marketplace");
      const action = c.req.param("action");
      const result = await panel.run(action, body, { origin: new URL(c.req.url).origin });
      logger.info({ action }, "playground sandbox action");
      return { ok: true, result, state: panel.state() };
    }),
  );
}
