import type { Hono } from "hono";
import type { EmbeddedSandbox } from "../embedded-sandbox";
import type { Logger } from "../logger";
import type { ServerEnv } from "../server/create-server";
import type { FakeTelegram } from "../telegram-fake";

export interface PlaygroundRouteDeps {
  fake: FakeTelegram;
  sandbox: EmbeddedSandbox | null;
  logger: Logger;
}

/** GET /play and the playground's JSON interface. */
export function registerPlaygroundRoutes(deps: PlaygroundRouteDeps) {
  return (app: Hono<ServerEnv>) => {
    app.get("/play", (c) => c.text(`Playground: ${deps.sandbox ? "sandbox marketplace" : "external marketplace"}`));
  };
}
