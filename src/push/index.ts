import { randomUUID } from "node:crypto";
import { setMaxListeners } from "node:events";
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
import type { Translations } from "../chat/alerts";
import { checkFollowedOrders } from "./order-follower";
import { countOpenFollows, followOrder, releaseFollowLeases } from "../db/repos/followed-orders";
import { primeNotifications } from "./notification-poller";
import { pollCycle } from "./poll-cycle";
import type { PollerDeps } from "./poller-deps";
import { countPollLeasesHeld, countUsersLeftIn, currentPollCycle, cycleHasClaimableUsers, nextPollCycleId, openPollCycle, releasePollLeases } from "../db/repos/poll-cycles";
import { leasedBy, queueDepth, releaseLeasesOf } from "../db/repos/outbox";
import { countUsersBySchedule, MOTION_REASONS } from "../db/repos/poll-schedule";
import { withLease } from "../scale/leases";
import type { SendBudgetStore } from "../scale/send-budget";
import type { ArrivalWindow } from "../scale/arrival-window";
import { createSenderApi, OutboxSender } from "./sender";
import { releaseStuckCards } from "./stuck-cards";
import { registerMarketplaceWebhook } from "./webhook-receiver";
import { runRetention, type RetentionReport } from "./retention";
import { digestBuilder, queueWeeklyDigests } from "./digest";
import { checkPriceWatches, type PriceWatchReport } from "./price-watch-job";
import { reportFailure } from "../db/health";

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
   * Checks the price watches for a cron tick (ms), under a lease and once per tick across
   * replicas; null when another replica has it or the tick was already checked. Without a tick,
   * a check now (the playground's button, tests), still under the lease.
   */
  checkPriceWatches(tick?: number): Promise<PriceWatchReport | null>;
  /**
   * Queues the weekly digests whose Monday 09:00 has come (on every cron tick), under a lease so
   * one replica does it; null when another replica holds the lease.
   */
  queueDigests(): Promise<number | null>;
  sender: OutboxSender;
  start(api?: Api): void;
  stop(): Promise<void>;
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
/** Requests in flight the poller needs to keep its rate with up to 100 ms per marketplace call. */
export function pollConcurrency(ratePerSecond: number): number {
  return Math.max(16, Math.ceil(ratePerSecond / 10));
}

export function startPush(deps: PushDeps): PushHandle {
  const replicaId = deps.replicaId ?? randomUUID();
  const sender = new OutboxSender({ db: deps.db, logger: deps.logger, metrics: deps.metrics, now: deps.now, owner: replicaId, leaseMs: deps.leaseMs ?? 30_000, prepare: digestBuilder({ db: deps.db, logger: deps.logger, box: deps.box, translations: deps.i18n, marketplace: deps.marketplace, now: deps.now }), ...(deps.sendWindow ? { window: deps.sendWindow } : {}), ...(deps.sendBudget ? { budgetStore: deps.sendBudget } : {}) });
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
  };
  const stuckCardDeps = { db: deps.db, marketplaceTimeoutMs: deps.config.MARKETPLACE_TIMEOUT_MS, translations: deps.i18n, now: deps.now, onQueued: wake };
  const followerDeps = { db: deps.db, logger: deps.logger, box: deps.box, translations: deps.i18n, now: deps.now, marketplace: deps.marketplace, onQueued: wake };
  /** This replica's poll work, one cycle at a time (a new cycle waits for the one in progress). */
  let pollChain: Promise<unknown> = Promise.resolve();
  /** Poll work queued or running on this replica: a cron tick is skipped while there is any. */
  let polling = 0;
  let ticksSkipped = 0;
  /** Aborted by stop(): the running cycle claims no more users and hands back the ones it holds. */
  const stopPolling = new AbortController();
  // Every poll worker waiting for its rate slot listens for the abort (and stops listening after
  // the wait): more than Node's default of 10 at once is expected, not a leak.
  setMaxListeners(0, stopPolling.signal);
  let following: Promise<number> = Promise.resolve(0);
  let task: { stop(): void | Promise<void> } | null = null;
  let followTimer: NodeJS.Timeout | null = null;
  let stopped = false;

  deps.metrics.gauge("outbox_queue_depth", "Alerts queued and not yet sent", () => queueDepth(deps.db));
  deps.metrics.gauge("replica_outbox_leases", "Outbox rows this replica holds a lease on", () => leasedBy(deps.db, replicaId, deps.now()));
  deps.metrics.gauge("replica_poll_leases", "Users this replica holds a poll lease on", () => countPollLeasesHeld(deps.db, replicaId, deps.now()));
  deps.metrics.gauge("poll_cycle_pending_users", "Linked users due in the open cycle and not yet polled in it", async () => {
    const cycle = await currentPollCycle(deps.db);
    return cycle === null ? 0 : countUsersLeftIn(deps.db, cycle, deps.now());
  });
  deps.metrics.labeledGauge("poll_schedule_users", "Linked users with a working key by poll schedule: fast (every tick) with the reason (rule, order, deposit), or idle (every POLL_IDLE_INTERVAL)", async () => {
    const counts = await countUsersBySchedule(deps.db);
    return [{ labels: { schedule: "idle", reason: "none" }, value: counts.idle }, ...MOTION_REASONS.map((reason) => ({ labels: { schedule: "fast", reason }, value: counts[reason] }))];
  });
  deps.metrics.gauge("poll_ticks_skipped", "Cron ticks skipped because this replica's poll cycle was still running", () => ticksSkipped);
  deps.metrics.gauge("followed_orders_open", "Orders followed until they settle", () => countOpenFollows(deps.db));

  /** Runs `work` after this replica's poll work in progress. */
  const queuePoll = <T>(work: () => Promise<T>): Promise<T> => {
    polling += 1;
    const run = pollChain.then(work).finally(() => {
      polling -= 1;
    });
    pollChain = run.catch(() => undefined);
    return run;
  };
  const leaseMs = deps.leaseMs ?? 60_000;
  const workOn = (cycle: number) => pollCycle(pollerDeps, replicaId, cycle, leaseMs, stopPolling.signal);

  /**
   * A cron tick. Skipped while this replica's cycle is unfinished; works on the open cycle while
   * it has users this replica can claim, and otherwise opens the tick's cycle: when every user left
   * is held by another replica (finishing its last batch, or stopped without handing them back),
   * the users due meanwhile are polled in the new cycle rather than waiting on those leases. Every
   * replica's tick names the same cycle (its scheduled second), so the first to open it wins.
   */
  const onTick = async (tick: number): Promise<{ users: number; queued: number } | null> => {
    if (stopped) return null;
    if (polling > 0) {
      ticksSkipped += 1;
      deps.logger.info({ tick }, "poll cycle still running; this cron tick is skipped");
      return null;
    }
    return queuePoll(async () => {
      const open = await currentPollCycle(deps.db);
      // The tick's own cycle (or a later one) already open: another replica's tick opened it first.
      if (open === null || (open < tick && !(await cycleHasClaimableUsers(deps.db, open, deps.now())))) await openPollCycle(deps.db, replicaId, tick, deps.now());
      else deps.logger.info({ cycle: open }, "the open poll cycle still has users left; working on it instead of opening another");
      const cycle = await currentPollCycle(deps.db);
      return cycle === null ? null : workOn(cycle);
    });
  };

  /** One follower pass after the one in progress (never two at once on this replica). */
  const followPass = (scope: Parameters<typeof checkFollowedOrders>[4] = {}): Promise<number> => {
    const run = following.catch(() => 0).then(() => checkFollowedOrders(followerDeps, 50, replicaId, leaseMs, scope));
    following = run.catch(() => 0);
    return run;
  };
  let followPending = false;

  /** Joins the open cycle (another replica's tick, or users left by a replica that died). */
  const joinPoll = async (): Promise<{ users: number; queued: number } | null> => {
    if (polling > 0 || stopped) return null;
    const cycle = await currentPollCycle(deps.db);
    // Only a cycle with users left to claim is joined, so a tick skipped meanwhile had nothing to open.
    if (cycle === null || !(await cycleHasClaimableUsers(deps.db, cycle, deps.now()))) return null;
    return queuePoll(() => workOn(cycle));
  };

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
    async pollNow() {
      const cycle = await openPollCycle(deps.db, replicaId, await nextPollCycleId(deps.db, Date.now()), deps.now(), { everyone: true });
      return queuePoll(() => workOn(cycle));
    },
    async pollTick() {
      return onTick(await nextPollCycleId(deps.db, Date.now()));
    },
    joinPoll,
    checkOrdersNow: (telegramId) => followPass({ now: true, ...(telegramId === undefined ? {} : { telegramId }) }),
    releaseStuckCards: () => releaseStuckCards(stuckCardDeps),
    runRetention: () => withLease(deps.db, "cron:retention", replicaId, 60_000, () => runRetention({ db: deps.db, logger: deps.logger, now: deps.now })),
    queueDigests: () => withLease(deps.db, "cron:digest", replicaId, 60_000, () => queueWeeklyDigests({ db: deps.db, logger: deps.logger, now: deps.now, onQueued: wake })),
    checkPriceWatches: (tick) =>
      withLease(deps.db, "cron:watches", replicaId, 60_000, () =>
        checkPriceWatches({ db: deps.db, logger: deps.logger, translations: deps.i18n, now: deps.now, marketplace: deps.marketplace, onQueued: wake, metrics: deps.metrics }, tick ?? null),
      ).then((report) => report ?? null),
    sender,
    start(api) {
      sender.start(api ?? createSenderApi(deps.token, deps.apiRoot));
      const releaseCards = () =>
        void withLease(deps.db, "cron:cards", replicaId, 60_000, () => releaseStuckCards(stuckCardDeps)).catch((error: unknown) =>
          reportFailure(deps.db, deps.logger, error, "releasing stuck confirmation cards failed"),
        );
      // After a crash, the cards it left on "processing…" get their buttons back.
      releaseCards();
      task = cron.schedule(deps.config.NOTIFICATIONS_POLL, (context) => {
        // Every replica's tick names the same cycle (its scheduled second): the first opens it.
        const tick = Math.floor((context?.date ?? new Date()).getTime() / 1000) * 1000;
        void onTick(tick).catch((error: unknown) => reportFailure(deps.db, deps.logger, error, "notification poll cycle failed"));
        void handle.runRetention().catch((error: unknown) => reportFailure(deps.db, deps.logger, error, "retention pass failed; the next cron tick tries again"));
        void handle.queueDigests().catch((error: unknown) => reportFailure(deps.db, deps.logger, error, "queueing weekly digests failed; the next cron tick tries again"));
        void handle.checkPriceWatches(tick).catch((error: unknown) => reportFailure(deps.db, deps.logger, error, "price watch check failed; the next cron tick tries again"));
        releaseCards();
      });
      followTimer = setInterval(() => {
        // A background pass is skipped while one is still running (a nudge waits instead).
        if (!followPending) {
          followPending = true;
          void followPass()
            .catch((error: unknown) => reportFailure(deps.db, deps.logger, error, "order follower pass failed"))
            .finally(() => {
              followPending = false;
            });
        }
        void joinPoll().catch((error: unknown) => reportFailure(deps.db, deps.logger, error, "joining the poll cycle failed"));
      }, 2_000);
    },
    async stop() {
      stopped = true;
      await task?.stop();
      if (followTimer) clearInterval(followTimer);
      // A cycle can take minutes: it stops claiming users and hands back those it holds; polls in
      // flight get a moment to be recorded (one not recorded is simply polled again later).
      stopPolling.abort();
      await Promise.race([Promise.allSettled([pollChain, following]), new Promise((resolve) => setTimeout(resolve, 2_000).unref())]);
      // Drain what can be sent in a few seconds; the rest stays queued for the next start.
      await sender.stop(3_000);
      // Every claim still held is handed back (a poll or an order check waiting on a slow
      // marketplace answer, an alert whose outcome could not be recorded): the replacement, or
      // another replica, takes them at once instead of after the lease.
      const released = await Promise.all([releasePollLeases(deps.db, replicaId), releaseFollowLeases(deps.db, replicaId), releaseLeasesOf(deps.db, replicaId)]).catch((error: unknown) => {
        deps.logger.warn({ err: error }, "could not hand back this replica's leases; they return when they run out");
        return null;
      });
      if (released && released.some((count) => count > 0)) deps.logger.info({ users: released[0], orders: released[1], alerts: released[2] }, "handed back the work this replica still held");
    },
  };
  return handle;
}
