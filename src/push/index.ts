import { randomUUID } from "node:crypto";
import cron from "node-cron";
import type { Api } from "grammy";
import type { Hono } from "hono";
import type { Kysely } from "kysely";
import type { Config } from "#src/config";
import type { Database } from "#src/db/schema";
import type { Logger } from "#src/logger";
import type { MarketplaceClient } from "#src/marketplace/index";
import type { Metrics } from "#src/metrics";
import type { SecretBox } from "#src/security/secret-box";
import type { ServerEnv } from "#src/server/create-server";
import type { Translations } from "#src/chat/alerts";
import { checkFollowedOrders, type FollowerDeps } from "./order-follower";
import { followOrder, releaseFollowLeases, type FollowScope } from "#src/db/repos/followed-orders";
import { primeNotifications } from "./notification-poller";
import type { PollerDeps } from "./poller-deps";
import { PollWork } from "./poll-work";
import { registerPushGauges } from "./push-metrics";
import { releasePollLeases } from "#src/db/repos/poll-cycles";
import { releaseLeasesOf } from "#src/db/repos/outbox";
import { withLease } from "#src/scale/leases";
import { releaseNamedLeasesOf } from "#src/db/repos/leases";
import type { SendBudgetStore } from "#src/scale/send-budget";
import type { ArrivalWindow } from "#src/scale/arrival-window";
import { createSenderApi, OutboxSender } from "./sender";
import { GroupGate } from "./group-gate";
import { releaseStuckCards } from "./stuck-cards";
import { registerMarketplaceWebhook } from "./webhook-receiver";
import { runRetention, type RetentionReport } from "./retention";
import { digestBuilder, queueWeeklyDigests } from "./digest";
import { checkPriceWatches, type PriceWatchReport } from "./price-watch-job";
import { checkRentalEnds, type RentalEndsReport } from "./rental-ends";
import { reportFailure } from "#src/db/health";
import { releaseAttemptLeases } from "#src/db/repos/auto-buy-orders";

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
  /** This replica's id (lease owner); random by default. */
  replicaId?: string;
  /** Lease length of claimed alerts, users and orders (a dead replica's work returns after it). */
  leaseMs?: number;
  /** This process's messages on arrival at Telegram, shared with the bot's replies. */
  sendWindow?: ArrivalWindow;
  /** Where Telegram's budgets live, shared with the bot's replies; default: the database. */
  sendBudget?: SendBudgetStore;
  /** A poll found a rule the marketplace paused (see PollerDeps). */
  onRuleChanged?: (telegramId: number, ruleId: string) => void;
}

export interface PushHandle {
  routes: (app: Hono<ServerEnv>) => void;
  followOrder(telegramId: number, orderId: string): Promise<void>;
  primeNotifications(telegramId: number): Promise<void>;
  /**
   * Opens an on-demand poll cycle over every linked user, whatever their schedule (/play, tests),
   * and works on it until no user is left.
   */
  pollNow(): Promise<{ users: number; queued: number } | null>;
  /**
   * Does what a cron tick does for notifications, now: opens the next scheduled cycle (the users
   * due: fast ones, idle ones whose interval has passed) unless the open one still has users this
   * replica can claim, and works on it. Null when this replica's poll work is still running.
   */
  pollTick(): Promise<{ users: number; queued: number } | null>;
  /** Works on the open poll cycle with the other replicas (run every 2 s in the background). */
  joinPoll(): Promise<{ users: number; queued: number } | null>;
  /** This replica's id: the owner name of every lease it takes. */
  replicaId: string;
  /**
   * Checks followed orders now, whatever their back-off (a nudge after a settlement: the
   * playground's "settle now", tests): one user's, or every open one. Waits for a pass in progress.
   */
  checkOrdersNow(telegramId?: number): Promise<number>;
  /** Gives back the cards a crash left in "processing" (done at start and on every cron tick). */
  releaseStuckCards(): Promise<number>;
  /**
   * Deletes what is past its retention window (on every cron tick). Under a lease, so one replica
   * does it; null when another replica holds the lease.
   */
  runRetention(): Promise<RetentionReport | null>;
  /**
   * Checks the price watches and auto-buys (they share the quotes) for a cron tick (ms), under a
   * lease and once per tick across replicas; null when another replica has it or the tick was
   * already checked. Without a tick, a check now (the playground's button, tests), still under the lease.
   */
  checkPriceWatches(tick?: number): Promise<PriceWatchReport | null>;
  /**
   * Queues the weekly digests whose Monday 09:00 has come (on every cron tick), under a lease so
   * one replica does it; null when another replica holds the lease.
   */
  queueDigests(): Promise<number | null>;
  /**
   * Queues the "ends" alerts that are due (on every cron tick), under a lease so one replica does
   * it; null when another replica holds the lease. Each rental is alerted once whoever runs it.
   */
  checkRentalEnds(): Promise<RentalEndsReport | null>;
  sender: OutboxSender;
  start(api?: Api): void;
  stop(): Promise<void>;
}

/** How long a stop gives polls in flight to be recorded, the sender to drain, and the hand-back of claims. */
const STOP_POLLS_MS = 600;
const STOP_SENDING_MS = 500;
const STOP_HAND_BACK_MS = 300;

/** `work`, or nothing once `ms` have passed (what is not done by then is left to leases running out). */
function within(work: Promise<unknown>, ms: number): Promise<unknown> {
  return Promise.race([work, new Promise((resolve) => setTimeout(resolve, ms).unref())]);
}

/** Requests in flight the poller needs to keep its rate with up to 100 ms per marketplace call. */
export function pollConcurrency(ratePerSecond: number): number {
  return Math.max(16, Math.ceil(ratePerSecond / 10));
}

/**
 * Pushed alerts: the marketplace webhook receiver, the persistent outbox and its sender, the
 * notification poller (cron) and the order follower. Every path queues through the outbox with
 * the same dedupe keys, so one event gives one alert.
 *
 * With several replicas on one database the work is shared through leases: the sender claims
 * outbox rows, the poller claims the users of the open poll cycle, the follower claims due orders;
 * a cron tick opens a cycle once (whichever replica fires first) and every replica works on it.
 */
export function startPush(deps: PushDeps): PushHandle {
  const replicaId = deps.replicaId ?? randomUUID();
  // Team alerts: each group copy is checked before it leaves; a notice to an owner wakes the sender.
  const groups = new GroupGate({
    db: deps.db,
    logger: deps.logger,
    translations: deps.i18n,
    now: deps.now,
    onQueued: () => sender.wake(),
  });
  const sender = new OutboxSender({
    db: deps.db,
    logger: deps.logger,
    metrics: deps.metrics,
    now: deps.now,
    owner: replicaId,
    leaseMs: deps.leaseMs ?? 30_000,
    prepare: digestBuilder({
      db: deps.db,
      logger: deps.logger,
      box: deps.box,
      translations: deps.i18n,
      marketplace: deps.marketplace,
      now: deps.now,
    }),
    groups,
    ...(deps.sendWindow ? { window: deps.sendWindow } : {}),
    ...(deps.sendBudget ? { budgetStore: deps.sendBudget } : {}),
  });
  const wake = () => sender.wake();
  const pollerDeps: PollerDeps = {
    db: deps.db,
    logger: deps.logger,
    box: deps.box,
    translations: deps.i18n,
    now: deps.now,
    marketplace: deps.marketplace,
    onQueued: wake,
    ratePerSecond: deps.config.POLL_RATE,
    concurrency: pollConcurrency(deps.config.POLL_RATE),
    idleIntervalMs: deps.config.POLL_IDLE_INTERVAL,
    metrics: deps.metrics,
    ...(deps.onRuleChanged ? { onRuleChanged: deps.onRuleChanged } : {}),
  };
  const stuckCardDeps = {
    db: deps.db,
    marketplaceTimeoutMs: deps.config.MARKETPLACE_TIMEOUT_MS,
    translations: deps.i18n,
    now: deps.now,
    onQueued: wake,
  };
  const leaseMs = deps.leaseMs ?? 60_000;
  const polls = new PollWork(deps, pollerDeps, replicaId, leaseMs);
  const follower = new FollowerPasses(
    {
      db: deps.db,
      logger: deps.logger,
      box: deps.box,
      translations: deps.i18n,
      now: deps.now,
      marketplace: deps.marketplace,
      onQueued: wake,
    },
    replicaId,
    leaseMs,
  );
  registerPushGauges(deps, replicaId);
  let jobs: { stop(): Promise<void> } | null = null;

  const handle: PushHandle = {
    replicaId,
    routes: registerMarketplaceWebhook({
      db: deps.db,
      logger: deps.logger,
      translations: deps.i18n,
      now: deps.now,
      secret: deps.config.MARKETPLACE_WEBHOOK_SECRET,
      signatureHeader: deps.config.MARKETPLACE_WEBHOOK_SIGNATURE_HEADER,
      metrics: deps.metrics,
      onQueued: wake,
    }),
    followOrder: (telegramId, orderId) => followOrder(deps.db, telegramId, orderId, deps.now()),
    primeNotifications: (telegramId) => primeNotifications(pollerDeps, telegramId),
    pollNow: () => polls.pollNow(),
    pollTick: () => polls.pollTick(),
    joinPoll: () => polls.joinPoll(),
    checkOrdersNow: (telegramId) => follower.pass({ now: true, ...(telegramId === undefined ? {} : { telegramId }) }),
    releaseStuckCards: () => releaseStuckCards(stuckCardDeps),
    runRetention: () =>
      withLease(deps.db, "cron:retention", replicaId, 60_000, () =>
        runRetention({ db: deps.db, logger: deps.logger, now: deps.now }),
      ),
    queueDigests: () =>
      withLease(deps.db, "cron:digest", replicaId, 60_000, () =>
        queueWeeklyDigests({ db: deps.db, logger: deps.logger, now: deps.now, onQueued: wake }),
      ),
    checkRentalEnds: () =>
      withLease(deps.db, "cron:rentals", replicaId, 60_000, () =>
        checkRentalEnds({ db: deps.db, logger: deps.logger, translations: deps.i18n, now: deps.now, onQueued: wake }),
      ).then((report) => report ?? null),
    checkPriceWatches: (tick) =>
      withLease(deps.db, "cron:watches", replicaId, 60_000, () =>
        checkPriceWatches(
          {
            db: deps.db,
            logger: deps.logger,
            translations: deps.i18n,
            now: deps.now,
            marketplace: deps.marketplace,
            box: deps.box,
            onQueued: wake,
            metrics: deps.metrics,
            autoBuys: { ...follower.deps, owner: replicaId, leaseMs },
          },
          tick ?? null,
        ),
      ).then((report) => report ?? null),
    sender,
    start(api) {
      sender.start(api ?? createSenderApi(deps.token, deps.apiRoot));
      jobs = scheduleJobs(deps, handle, polls, follower, () =>
        withLease(deps.db, "cron:cards", replicaId, 60_000, () => releaseStuckCards(stuckCardDeps)),
      );
    },
    async stop() {
      polls.close();
      await jobs?.stop();
      // The whole stop fits in about a second: a cycle can take minutes, so it stops claiming users
      // and polls in flight get a moment to be recorded (one not recorded is polled again later);
      // meanwhile the sender sends what it can and leaves the rest queued. Then every claim still
      // held is handed back, so another replica (or the next start) takes it at once.
      const settled = Promise.allSettled([polls.abort(), follower.running]);
      await Promise.all([within(settled, STOP_POLLS_MS), sender.stop(STOP_SENDING_MS)]);
      await within(handBackLeases(deps, replicaId), STOP_HAND_BACK_MS);
    },
  };
  return handle;
}

/** Order follower passes on this replica, one after the other (never two at once). */
class FollowerPasses {
  /** The pass in progress (or the last one). */
  running: Promise<number> = Promise.resolve(0);
  /** A background pass is on its way (the next timer tick skips its own). */
  pending = false;

  constructor(
    readonly deps: FollowerDeps,
    private readonly replicaId: string,
    private readonly leaseMs: number,
  ) {}

  /** One follower pass after the one in progress. */
  pass(scope: FollowScope = {}): Promise<number> {
    const run = this.running
      .catch(() => 0)
      .then(() => checkFollowedOrders(this.deps, 50, this.replicaId, this.leaseMs, scope));
    this.running = run.catch(() => 0);
    return run;
  }
}

/**
 * Starts the background work: stuck cards released now and on every cron tick, the tick's poll
 * cycle, retention, digests and price watches, and every 2 s a follower pass and a join of the
 * open poll cycle. Returns what stops the timers.
 */
function scheduleJobs(
  deps: PushDeps,
  handle: PushHandle,
  polls: PollWork,
  follower: FollowerPasses,
  releaseCardsOnce: () => Promise<unknown>,
): { stop(): Promise<void> } {
  const releaseCards = () =>
    void releaseCardsOnce().catch((error: unknown) =>
      reportFailure(deps.db, deps.logger, error, "releasing stuck confirmation cards failed"),
    );
  // After a crash, the cards it left on "processing…" get their buttons back.
  releaseCards();
  const task = cron.schedule(deps.config.NOTIFICATIONS_POLL, (context) => {
    // Every replica's tick names the same cycle (its scheduled second): the first opens it.
    const tick = Math.floor((context?.date ?? new Date()).getTime() / 1000) * 1000;
    void polls
      .onTick(tick)
      .catch((error: unknown) => reportFailure(deps.db, deps.logger, error, "notification poll cycle failed"));
    void handle
      .runRetention()
      .catch((error: unknown) =>
        reportFailure(deps.db, deps.logger, error, "retention pass failed; the next cron tick tries again"),
      );
    void handle
      .queueDigests()
      .catch((error: unknown) =>
        reportFailure(deps.db, deps.logger, error, "queueing weekly digests failed; the next cron tick tries again"),
      );
    void handle
      .checkRentalEnds()
      .catch((error: unknown) =>
        reportFailure(deps.db, deps.logger, error, "rental ending check failed; the next cron tick tries again"),
      );
    void handle
      .checkPriceWatches(tick)
      .catch((error: unknown) =>
        reportFailure(deps.db, deps.logger, error, "price watch check failed; the next cron tick tries again"),
      );
    releaseCards();
  });
  const followTimer = setInterval(() => {
    // A background pass is skipped while one is still running (a nudge waits instead).
    if (!follower.pending) {
      follower.pending = true;
      void follower
        .pass()
        .catch((error: unknown) => reportFailure(deps.db, deps.logger, error, "order follower pass failed"))
        .finally(() => {
          follower.pending = false;
        });
    }
    void polls
      .joinPoll()
      .catch((error: unknown) => reportFailure(deps.db, deps.logger, error, "joining the poll cycle failed"));
  }, 2_000);
  return {
    async stop() {
      await task.stop();
      clearInterval(followTimer);
    },
  };
}

/**
 * Hands back every claim this replica still holds (a poll or an order check waiting on a slow
 * marketplace answer, an alert whose outcome could not be recorded): the replacement, or another
 * replica, takes them at once instead of after the lease.
 */
async function handBackLeases(deps: PushDeps, replicaId: string): Promise<void> {
  const released = await Promise.all([
    releasePollLeases(deps.db, replicaId),
    releaseFollowLeases(deps.db, replicaId),
    releaseLeasesOf(deps.db, replicaId),
    releaseNamedLeasesOf(deps.db, replicaId),
    releaseAttemptLeases(deps.db, replicaId),
  ]).catch((error: unknown) => {
    deps.logger.warn({ err: error }, "could not hand back this replica's leases; they return when they run out");
    return null;
  });
  if (released && released.some((count) => count > 0))
    deps.logger.info(
      { users: released[0], orders: released[1], alerts: released[2], jobs: released[3], autoBuyOrders: released[4] },
      "handed back the work this replica still held",
    );
}
