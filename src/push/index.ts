import cron from "node-cron";
import type { Api } from "grammy";
import type { Hono } from "hono";
import type { Kysely } from "kysely";
import type { Config } from "../config";
import type { Database } from "../db/schema";
import type { Logger } from "../logger";
import type { MarketplaceClient } from "../marketplace";
import type { Metrics } from "../metrics";
import type { SecretBox } from "../security/secret-box";
import type { ServerEnv } from "../server/create-server";
import type { Translations } from "./alerts";
import { checkFollowedOrders, followOrder } from "./order-follower";
import { pollAll, primeNotifications, type PollerDeps } from "./notification-poller";
import { queueDepth } from "./outbox";
import { createSenderApi, OutboxSender } from "./sender";
import { pruneWebhookEvents, registerMarketplaceWebhook } from "./webhook-receiver";

export interface PushDeps {
  db: Kysely<Database>;
  logger: Logger;
  metrics: Metrics;
  now: () => number;
  marketplace: (apiKey?: () => string) => MarketplaceClient;
  box: SecretBox;
  config: Config;
  i18n: Translations;
  token: string;
  apiRoot: string;
}

export interface PushHandle {
  routes: (app: Hono<ServerEnv>) => void;
  followOrder(telegramId: number, orderId: string): Promise<void>;
  primeNotifications(telegramId: number): Promise<void>;
  /** One notification poll cycle now (also run by cron); skipped when one is already running. */
  pollNow(): Promise<{ users: number; queued: number } | null>;
  /** One pass of the order follower now. */
  checkOrdersNow(): Promise<number>;
  sender: OutboxSender;
  start(api?: Api): void;
  stop(): Promise<void>;
}

/**
 * Pushed alerts: the marketplace webhook receiver, the persistent outbox and its sender, the
 * notification poller (cron) and the order follower. Every path queues through the outbox with
 * the same dedupe keys, so one event gives one alert.
 */
export function startPush(deps: PushDeps): PushHandle {
  const sender = new OutboxSender({ db: deps.db, logger: deps.logger, metrics: deps.metrics, now: deps.now });
  const wake = () => sender.wake();
  const pollerDeps: PollerDeps = { db: deps.db, logger: deps.logger, box: deps.box, translations: deps.i18n, now: deps.now, marketplace: deps.marketplace, onQueued: wake, ratePerSecond: deps.config.POLL_RATE };
  const followerDeps = { db: deps.db, logger: deps.logger, box: deps.box, translations: deps.i18n, now: deps.now, marketplace: deps.marketplace, onQueued: wake };
  let polling: Promise<{ users: number; queued: number }> | null = null;
  let following: Promise<number> | null = null;
  let task: { stop(): void | Promise<void> } | null = null;
  let followTimer: NodeJS.Timeout | null = null;

  deps.metrics.gauge("outbox_queue_depth", "Alerts queued and not yet sent", () => queueDepth(deps.db));

  const handle: PushHandle = {
    routes: registerMarketplaceWebhook({
      db: deps.db,
      logger: deps.logger,
      translations: deps.i18n,
      now: deps.now,
      secret: deps.config.MARKETPLACE_WEBHOOK_SECRET,
      signatureHeader: deps.config.MARKETPLACE_WEBHOOK_SIGNATURE_HEADER,
      onQueued: wake,
    }),
    followOrder: (telegramId, orderId) => followOrder(deps.db, telegramId, orderId, deps.now()),
    primeNotifications: (telegramId) => primeNotifications(pollerDeps, telegramId),
    async pollNow() {
      if (polling) return null;
      polling = pollAll(pollerDeps);
      try {
        return await polling;
      } finally {
        polling = null;
      }
    },
    async checkOrdersNow() {
      if (following) return 0;
      following = checkFollowedOrders(followerDeps);
      try {
        return await following;
      } finally {
        following = null;
      }
    },
    sender,
    start(api) {
      sender.start(api ?? createSenderApi(deps.token, deps.apiRoot));
      task = cron.schedule(deps.config.NOTIFICATIONS_POLL, () => {
        void handle.pollNow().catch((error: unknown) => deps.logger.error({ err: error }, "notification poll cycle failed"));
        void pruneWebhookEvents(deps.db, deps.now()).catch(() => undefined);
      });
      followTimer = setInterval(() => {
        void handle.checkOrdersNow().catch((error: unknown) => deps.logger.error({ err: error }, "order follower pass failed"));
      }, 2_000);
    },
    async stop() {
      await task?.stop();
      if (followTimer) clearInterval(followTimer);
      await Promise.allSettled([polling, following]);
      // Drain what can be sent in a few seconds; the rest stays queued for the next start.
      await sender.stop(3_000);
    },
  };
  return handle;
}
