import type { Kysely } from "kysely";
import type { Database } from "#src/db/schema";
import type { Logger } from "#src/logger";
import { deleteCallbackRefsIssuedBefore, REF_REISSUE_MS } from "#src/db/repos/callback-refs";
import { deleteConnectAttemptsBefore } from "#src/db/repos/connect-attempts";
import { deleteConversationsUpdatedBefore } from "#src/db/repos/conversations";
import { deleteFlowsUpdatedBefore } from "#src/db/repos/flows";
import { deletePendingActionsChangedBefore } from "#src/db/repos/pending-actions";
import { deleteUpdateWindowsBefore } from "#src/db/repos/update-windows";
import { pruneTelegramUpdates } from "#src/db/repos/telegram-updates";
import { deletePollCyclesBefore } from "#src/db/repos/poll-cycles";
import { deleteFinishedFollowsBefore } from "#src/db/repos/followed-orders";
import { deleteFinishedAlerts } from "#src/db/repos/outbox";
import { deleteOpenRuleCardsDrawnBefore } from "#src/db/repos/open-rule-cards";
import { pruneWebhookEvents } from "#src/db/repos/webhook-events";
import { deleteSpendsBefore } from "#src/db/repos/bot-spends";
import { deleteRentalsEndedBefore } from "#src/db/repos/rental-ends";
import { utcDay } from "#src/db/utc-day";
import { deleteSettledAutoBuyOrdersBefore } from "#src/db/repos/auto-buy-orders";

const DAY = 86_400_000;

/**
 * How long each kind of row outlives its last use. Every window is at least as long as anything
 * that could still read the row: a button in a chat, a sender retrying, a redelivery.
 */
export const RETENTION = {
  /** Confirmation cards, from their last state change: a card can be pressed for 30 days. */
  cardsMs: 30 * DAY,
  /** Callback references, from the last button that carried one. */
  callbackRefsMs: 30 * DAY,
  /** The chats' open rule cards, from their last drawing: as long as their buttons' references are sure to live. */
  openRuleCardsMs: 30 * DAY,
  /** Sent alerts (from sending) and dropped ones (from their last attempt). */
  finishedAlertsMs: 7 * DAY,
  /** Orders followed to settlement: as long as a card could look its order up again. */
  finishedFollowsMs: 30 * DAY,
  /** Poll cycles (one per cron tick); the newest is always kept. */
  pollCyclesMs: 1 * DAY,
  /** /connect attempts: far past the hour the cap counts. */
  connectAttemptsMs: 1 * DAY,
  /** Flood-limit windows (10 s each) not reopened since. */
  updateWindowsMs: 1 * DAY,
  /** An auto-buy's settled orders (its card lists the last ones; budgets count one UTC day). */
  autoBuyOrdersMs: 90 * DAY,
  /** Guided flows untouched since: a step expires after 10 minutes, so these are long over. */
  conversationsMs: 1 * DAY,
  /** A guided flow's first question or the /connect key step untouched since (each expires after 10 minutes). */
  flowsMs: 1 * DAY,
  /** What was bought through the bot per UTC day: the daily cap counts today only; yesterday is kept too. */
  botSpendsMs: 2 * DAY,
  /** Rentals the "ends" alert watched, from their end: long over by then (a rental is a day at most in the price book). */
  rentalEndsMs: 7 * DAY,
} as const;

/** Rows one statement deletes at most: a backlog is worked off in short steps, never one long lock. */
const CHUNK = 2_000;
/** Statements per table and pass at most; the next cron tick goes on where this one stopped. */
const MAX_CHUNKS = 25;

export interface RetentionDeps {
  db: Kysely<Database>;
  logger: Logger;
  /** The app's clock (the times in most tables). */
  now: () => number;
  /** The wall clock (Telegram update turns and leases are wall-clock times). */
  wallNow?: () => number;
}

/** Rows deleted per table in one pass. */
export type RetentionReport = Record<string, number>;

/**
 * Deletes `chunk` rows at a time until fewer come back or MAX_CHUNKS were run, yielding to the
 * event loop between statements (a SQLite delete holds it while it runs).
 */
async function inChunks(run: (limit: number) => Promise<number>, chunk: number): Promise<number> {
  let total = 0;
  for (let step = 0; step < MAX_CHUNKS; step++) {
    const deleted = await run(chunk);
    total += deleted;
    if (deleted < chunk) break;
    await new Promise((resolve) => setImmediate(resolve));
  }
  return total;
}

/**
 * One retention pass over every table that would otherwise only grow. Run on the cron tick by
 * one replica at a time (under a lease). Never touches a queued alert, a card in "processing", a
 * card or button younger than its window, nor the newest poll cycle. Seen notifications are kept
 * by the poller itself (see SEEN_NOTIFICATION_MS), chat turns by the sender.
 */
export async function runRetention(deps: RetentionDeps, chunk = CHUNK): Promise<RetentionReport> {
  const now = deps.now();
  const wallNow = (deps.wallNow ?? Date.now)();
  const { db } = deps;
  const report: RetentionReport = {
    pending_actions: await inChunks(
      (limit) => deletePendingActionsChangedBefore(db, now - RETENTION.cardsMs, limit),
      chunk,
    ),
    callback_refs: await inChunks(
      (limit) => deleteCallbackRefsIssuedBefore(db, now - RETENTION.callbackRefsMs - REF_REISSUE_MS, limit),
      chunk,
    ),
    open_rule_cards: await inChunks(
      (limit) => deleteOpenRuleCardsDrawnBefore(db, now - RETENTION.openRuleCardsMs, limit),
      chunk,
    ),
    outbox: await inChunks((limit) => deleteFinishedAlerts(db, now - RETENTION.finishedAlertsMs, limit), chunk),
    webhook_events: await inChunks((limit) => pruneWebhookEvents(db, now, limit), chunk),
    followed_orders: await inChunks(
      (limit) => deleteFinishedFollowsBefore(db, now - RETENTION.finishedFollowsMs, limit),
      chunk,
    ),
    poll_cycles: await inChunks((limit) => deletePollCyclesBefore(db, now - RETENTION.pollCyclesMs, limit), chunk),
    connect_attempts: await inChunks(
      (limit) => deleteConnectAttemptsBefore(db, now - RETENTION.connectAttemptsMs, limit),
      chunk,
    ),
    update_windows: await inChunks(
      (limit) => deleteUpdateWindowsBefore(db, now - RETENTION.updateWindowsMs, limit),
      chunk,
    ),
    conversations: await inChunks(
      (limit) => deleteConversationsUpdatedBefore(db, now - RETENTION.conversationsMs, limit),
      chunk,
    ),
    flows: await inChunks((limit) => deleteFlowsUpdatedBefore(db, now - RETENTION.flowsMs, limit), chunk),
    telegram_updates: await inChunks((limit) => pruneTelegramUpdates(db, wallNow, limit), chunk),
    bot_spends: await inChunks((limit) => deleteSpendsBefore(db, utcDay(now - RETENTION.botSpendsMs), limit), chunk),
    rental_ends: await inChunks((limit) => deleteRentalsEndedBefore(db, now - RETENTION.rentalEndsMs, limit), chunk),
    auto_buy_orders: await inChunks(
      (limit) => deleteSettledAutoBuyOrdersBefore(db, now - RETENTION.autoBuyOrdersMs, limit),
      chunk,
    ),
  };
  const deleted = Object.fromEntries(Object.entries(report).filter(([, count]) => count > 0));
  if (Object.keys(deleted).length > 0) deps.logger.info({ deleted }, "retention: rows past their window deleted");
  return report;
}
