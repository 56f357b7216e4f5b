import type { AddressInfo } from "node:net";
import { randomBytes } from "node:crypto";
import { serve } from "@hono/node-server";
import type { Hono } from "hono";
import type { EmbeddedSandbox } from "../embedded-sandbox";
import type { Logger } from "../logger";
import type { ServerEnv } from "../server/create-server";
import { createFakeTelegram, type FakeTelegram } from "../telegram-fake";
import { registerPlaygroundRoutes } from "./routes";
import type { PanelHooks } from "./sandbox-panel";
import { createPlaygroundState } from "./state";

export interface PlaygroundHandle {
  fake: FakeTelegram;
  token: string;
  apiRoot: string;
  routes: (app: Hono<ServerEnv>) => void;
  /**
   * Lets the sandbox panel nudge the bot's push machinery (order follower, notification poll)
   * so an alert shows at once; the push handle exists only after the playground has started.
   */
  attach(push: { checkOrdersNow(): Promise<unknown>; pollNow(): Promise<unknown> }): void;
  stop(): Promise<void>;
}

/**
 * With no BOT_TOKEN the bot talks to a local stand-in for the Bot API — the same strict fake the
 * tests use, over HTTP on loopback — and /play serves a web chat against it.
 */
export async function startPlayground(options: { logger: Logger; sandbox: EmbeddedSandbox | null }): Promise<PlaygroundHandle> {
  const token = `1000000:${randomBytes(24).toString("base64url")}`;
  const fake = createFakeTelegram({ token, rateLimits: { enabled: true } });
  const state = createPlaygroundState(fake);
  const streams = new Set<() => void>();
  let hooks: PanelHooks = {};
  const server = await new Promise<ReturnType<typeof serve>>((resolve) => {
    const started = serve({ fetch: fake.app.fetch, port: 0, hostname: "127.0.0.1" }, () => resolve(started));
  });
  const { port } = server.address() as AddressInfo;
  return {
    fake,
    token,
    apiRoot: `http://127.0.0.1:${port}`,
    routes: registerPlaygroundRoutes({ fake, sandbox: options.sandbox, logger: options.logger, state, streams, hooks: () => hooks }),
    attach(push) {
      hooks = { checkOrdersNow: () => push.checkOrdersNow(), pollNotificationsNow: () => push.pollNow() };
    },
    stop: () =>
      new Promise<void>((resolve) => {
        for (const close of [...streams]) close();
        state.close();
        fake.close();
        server.close(() => resolve());
        (server as unknown as { closeAllConnections?: () => void }).closeAllConnections?.();
      }),
  };
}
