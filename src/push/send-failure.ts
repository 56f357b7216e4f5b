import { GrammyError, HttpError } from "grammy";
import type { Kysely } from "kysely";
import type { Database } from "#src/db/schema";
import type { Logger } from "#src/logger";
import type { Metrics } from "#src/metrics";
import { markUserInactive } from "#src/db/repos/users";
import { markDropped, markRetry, type OutboxRow } from "#src/db/repos/outbox";
import type { SendBudgetStore } from "#src/scale/send-budget-store";

// What the sender does with an alert Telegram did not take: later (429, 5xx, network), never (400), or never to that user again (403).

const MAX_BACKOFF_MS = 5 * 60_000;

/** What recording a failed send needs of the sender. */
export interface FailedSendContext {
  db: Kysely<Database>;
  logger: Logger;
  metrics: Metrics;
  now: () => number;
  store: SendBudgetStore;
  /** The sender's lease owner: only the lease holder records an outcome. */
  owner: string;
}

/**
 * Records a send that Telegram refused or that failed on the way: a 429 defers the chat and
 * retries after retry_after; a 403 drops the row and the user's other queued alerts; any other
 * 4xx drops the row; anything else retries with an exponential back-off.
 */
export async function recordFailedSend(context: FailedSendContext, row: OutboxRow, error: unknown): Promise<void> {
  const { db, logger, metrics, now, owner } = context;
  if (error instanceof GrammyError) {
    if (error.error_code === 429) {
      const retryAfter = Number(error.parameters.retry_after ?? 1);
      await context.store.deferChat(null, row.chat_id, now() + retryAfter * 1000);
      await markRetry(db, row.id, now() + retryAfter * 1000, error.description, owner);
      metrics.alerts.inc({ outcome: "throttled" });
      return;
    }
    if (error.error_code === 403) {
      logger.info({ userId: row.telegram_id }, "user blocked the bot; alerts to them stop and their queue is dropped");
      // Their other queued alerts would only meet the same 403: dropped without a call, in the
      // transaction that drops this one, so no other cycle sends the next in between.
      const others = await db.transaction().execute(async (trx) => {
        await markDropped(trx, row.id, error.description, owner);
        return markUserInactive(trx, row.telegram_id, now());
      });
      metrics.alerts.inc({ outcome: "blocked" }, 1 + others);
      return;
    }
    if (error.error_code >= 400 && error.error_code < 500) {
      logger.error(
        { outboxId: row.id, userId: row.telegram_id, description: error.description },
        "Telegram refused an alert (400); dropped, not retried",
      );
      await markDropped(db, row.id, error.description, owner);
      metrics.alerts.inc({ outcome: "refused" });
      return;
    }
  }
  const reason =
    error instanceof GrammyError ? error.description : error instanceof HttpError ? "network error" : String(error);
  const delay = Math.min(MAX_BACKOFF_MS, 1000 * 2 ** Math.min(row.attempts, 10));
  logger.warn(
    { outboxId: row.id, attempts: row.attempts + 1, retryInMs: delay, reason },
    "alert not delivered; will retry",
  );
  await markRetry(db, row.id, now() + delay, reason, owner);
  metrics.alerts.inc({ outcome: "retry" });
}
