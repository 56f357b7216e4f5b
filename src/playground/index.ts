import type { AddressInfo } from "node:net";
import { randomBytes } from "node:crypto";
import { serve } from "@hono/node-server";
import type { Hono } from "hono";
import type { Kysely } from "kysely";
import type { Database } from "#src/db/schema";
import type { EmbeddedSandbox } from "#src/embedded-sandbox";
import type { Logger } from "#src/logger";
import type { ServerEnv } from "#src/server/create-server";
import { createFakeTelegram, type FakeTelegram } from "#src/telegram-fake/index";
import type { PlaygroundAddress } from "./guard";
import { registerPlaygroundRoutes } from "./routes";
import type { PanelHooks } from "./sandbox-panel";
import { createPlaygroundState } from "./state";

export interface PlaygroundAttachment {
  push: {
    checkOrdersNow(): Promise<unknown>;
    pollNow(): Promise<unknown>;
    checkPriceWatches(): Promise<unknown>;
    checkRentalEnds(): Promise<unknown>;
  };
  db: Kysely<Database>;
  now: () => number;
  /** This server's URL as reachable from this machine (the loopback when it listens on all addresses). */
  selfUrl: string;
  publicUrl: string | null;
}

/** Newest Bot API calls and events kept for the page: every getUpdates is one, for as long as the process runs. */
const KEPT_LOG_ENTRIES = 5000;

export interface PlaygroundHandle {
  fake: FakeTelegram;
  token: string;
  apiRoot: string;
  routes: (app: Hono<ServerEnv>) => void;
  /**
   * Hands the panel what exists only once the app is up: the push machinery to nudge (order
   * follower, notification poll) so an alert shows at once, the database (personal webhook
   * tokens) and this server's own URL (where the sandbox posts webhooks).
   */
  attach(app: PlaygroundAttachment): void;
  stop(): Promise<void>;
}

/**
 * With no BOT_TOKEN the bot talks to a local stand-in for the Bot API — the same strict fake the
 * tests use, over HTTP on loopback — and /play serves a web chat against it.
 */
export async function startPlayground(options: {
  logger: Logger;
  sandbox: EmbeddedSandbox | null;
  address: PlaygroundAddress;
}): Promise<PlaygroundHandle> {
  const token = `1000000:${randomBytes(24).toString("base64url")}`;
  const fake = createFakeTelegram({ token, rateLimits: { enabled: true }, logLimit: KEPT_LOG_ENTRIES });
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
    routes: registerPlaygroundRoutes({
      fake,
      sandbox: options.sandbox,
      logger: options.logger,
      state,
      streams,
      hooks: () => hooks,
      address: options.address,
      token,
    }),
    attach({ push, db, now, selfUrl, publicUrl }) {
      hooks = {
        checkOrdersNow: () => push.checkOrdersNow(),
        pollNotificationsNow: () => push.pollNow(),
        checkPriceWatchesNow: () => push.checkPriceWatches(),
        checkRentalEndsNow: () => push.checkRentalEnds(),
        db,
        now,
        selfUrl,
        publicUrl,
      };
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
