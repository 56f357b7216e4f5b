import { randomUUID } from "node:crypto";
import { Api, GrammyError, HttpError } from "grammy";
import type { Kysely } from "kysely";
import type { Database } from "../db/schema";
import { markUserInactive } from "../db/repos/users";
import type { Logger } from "../logger";
import type { Metrics } from "../metrics";
import { claimDue, markDropped, markRetry, markSent, releaseLease, type OutboxPayload, type OutboxRow } from "./outbox";

export interface SenderOptions {
  db: Kysely<Database>;
  logger: Logger;
  metrics: Metrics;
  now: () => number;
  /** Messages per second across all chats (Telegram: about 30). */
  globalPerSecond?: number;
  /** Minimum spacing between two messages to one chat (Telegram: about 1 s). */
  perChatIntervalMs?: number;
  leaseMs?: number;
}

const MAX_BACKOFF_MS = 5 * 60_000;

/**
 * The one loop that sends pushed messages: claims due rows with a lease, keeps to Telegram's
 * limits (a global token bucket and a per-chat spacing), honours 429 retry_after, backs off on
 * 5xx and network errors, drops on 400 and stops a user's alerts on 403.
 * A row recorded as sent is never sent again.
 */
export class OutboxSender {
  private readonly owner = randomUUID();
  private readonly lastSentToChat = new Map<number, number>();
  private tokens: number;
  private lastRefill: number;
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<void> | null = null;
  private stopped = true;
  private api: Api | null = null;
  private readonly globalPerSecond: number;
  private readonly perChatIntervalMs: number;
  private readonly leaseMs: number;
  private abort = new AbortController();

  constructor(private readonly options: SenderOptions) {
    this.globalPerSecond = options.globalPerSecond ?? 28;
    this.perChatIntervalMs = options.perChatIntervalMs ?? 1050;
    this.leaseMs = options.leaseMs ?? 30_000;
    this.tokens = this.globalPerSecond;
    this.lastRefill = options.now();
  }

  start(api: Api): void {
    this.api = api;
    this.abort = new AbortController();
    this.stopped = false;
    this.schedule(0);
  }

  /** Wakes the loop now (after an enqueue). */
  wake(): void {
    if (!this.stopped && !this.running) this.schedule(0);
  }

  private schedule(delay: number): void {
    if (this.stopped) return;
    if (this.timer) clearTimeout(this.timer);
    this.timer = setTimeout(() => {
      this.timer = null;
      this.running = this.cycle()
        .then(() => undefined)
        .catch((error: unknown) => this.options.logger.error({ err: error }, "outbox cycle failed; retrying shortly"))
        .finally(() => {
          this.running = null;
          this.schedule(this.idle ? 250 : 20);
        });
    }, delay);
  }

  private idle = true;

  private refill(now: number): void {
    const elapsed = now - this.lastRefill;
    if (elapsed <= 0) return;
    this.tokens = Math.min(this.globalPerSecond, this.tokens + (elapsed / 1000) * this.globalPerSecond);
    this.lastRefill = now;
  }

  /** One pass: send what is due and allowed now. Exposed for tests and the benchmark. */
  async cycle(): Promise<number> {
    const { db, now } = this.options;
    this.refill(now());
    const budget = Math.floor(this.tokens);
    if (budget < 1 || !this.api) {
      this.idle = false;
      return 0;
    }
    const rows = await claimDue(db, this.owner, now(), Math.min(budget * 2, 100), this.leaseMs);
    this.idle = rows.length === 0;
    let sent = 0;
    const sends: Array<Promise<void>> = [];
    for (const row of rows) {
      const last = this.lastSentToChat.get(row.chat_id);
      const current = now();
      if ((last !== undefined && current - last < this.perChatIntervalMs) || this.tokens < 1) {
        await releaseLease(db, row.id, Math.max(row.next_attempt_at, (last ?? current) + this.perChatIntervalMs));
        continue;
      }
      this.tokens -= 1;
      this.lastSentToChat.set(row.chat_id, current);
      sent += 1;
      sends.push(this.send(row));
    }
    await Promise.all(sends);
    if (this.lastSentToChat.size > 100_000) this.lastSentToChat.clear();
    return sent;
  }

  private async send(row: OutboxRow): Promise<void> {
    const { db, logger, metrics, now } = this.options;
    let payload: OutboxPayload;
    try {
      payload = JSON.parse(row.payload) as OutboxPayload;
    } catch {
      await markDropped(db, row.id, "unreadable payload");
      return;
    }
    try {
      const raw = this.api!.raw as unknown as Record<string, (params: unknown) => Promise<unknown>>;
      await (raw[payload.method] as (params: unknown, signal?: AbortSignal) => Promise<unknown>)({ ...payload.params, chat_id: row.chat_id }, this.abort.signal);
      await markSent(db, row.id, now());
      metrics.alerts.inc({ outcome: "sent" });
    } catch (error) {
      if (error instanceof GrammyError) {
        if (error.error_code === 429) {
          const retryAfter = Number(error.parameters.retry_after ?? 1);
          this.lastSentToChat.set(row.chat_id, now() + retryAfter * 1000);
          await markRetry(db, row.id, now() + retryAfter * 1000, error.description);
          metrics.alerts.inc({ outcome: "throttled" });
          return;
        }
        if (error.error_code === 403) {
          logger.info({ userId: row.telegram_id }, "user blocked the bot; alerts to them stop and their queue is dropped");
          await markDropped(db, row.id, error.description);
          await markUserInactive(db, row.telegram_id, now());
          metrics.alerts.inc({ outcome: "blocked" });
          return;
        }
        if (error.error_code >= 400 && error.error_code < 500) {
          logger.error({ outboxId: row.id, userId: row.telegram_id, description: error.description }, "Telegram refused an alert (400); dropped, not retried");
          await markDropped(db, row.id, error.description);
          metrics.alerts.inc({ outcome: "refused" });
          return;
        }
      }
      const reason = error instanceof GrammyError ? error.description : error instanceof HttpError ? "network error" : String(error);
      const delay = Math.min(MAX_BACKOFF_MS, 1000 * 2 ** Math.min(row.attempts, 10));
      logger.warn({ outboxId: row.id, attempts: row.attempts + 1, retryInMs: delay, reason }, "alert not delivered; will retry");
      await markRetry(db, row.id, now() + delay, reason);
      metrics.alerts.inc({ outcome: "retry" });
    }
  }

  /**
   * Stops the loop, draining what can be sent within `drainMs`; sends still in flight then are
   * aborted and their rows stay queued for the next start.
   */
  async stop(drainMs = 3_000): Promise<void> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    const deadline = Date.now() + drainMs;
    const remaining = () => Math.max(0, deadline - Date.now());
    const until = <T>(work: Promise<T>) => Promise.race([work, new Promise<null>((resolve) => setTimeout(() => resolve(null), remaining()).unref())]);
    if (this.running) await until(this.running);
    while (remaining() > 0) {
      const sent = await until(this.cycle());
      if (sent === null) break;
      if (sent === 0) {
        if (this.idle) break;
        await new Promise((resolve) => setTimeout(resolve, Math.min(100, remaining())));
      }
    }
    this.abort.abort();
    if (this.running) await this.running;
  }
}

export function createSenderApi(token: string, apiRoot: string): Api {
  return new Api(token, { apiRoot, timeoutSeconds: 15 });
}
