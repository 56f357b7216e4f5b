import { randomUUID } from "node:crypto";
import { Api, GrammyError, HttpError } from "grammy";
import type { Kysely } from "kysely";
import type { Database } from "../db/schema";
import { markUserInactive } from "../db/repos/users";
import type { Logger } from "../logger";
import type { Metrics } from "../metrics";
import { DEFAULT_GLOBAL_BUDGET, deferChat, pruneSendBudget, returnChatSlot, takeChatSlot, takeGlobal, type GlobalBudget } from "../scale/send-budget";
import { claimDue, nextDueAt, markDropped, markRetry, markSent, releaseLease, type OutboxPayload, type OutboxRow } from "./outbox";

export interface SenderOptions {
  db: Kysely<Database>;
  logger: Logger;
  metrics: Metrics;
  now: () => number;
  /** Messages per second across all chats and replicas (Telegram: about 30; default 20). */
  globalPerSecond?: number;
  /** Messages that may leave at once after a quiet spell (default 5: at most 25 in any second). */
  globalBurst?: number;
  /** Minimum spacing between two messages to one chat (Telegram: about 1 s). */
  perChatIntervalMs?: number;
  leaseMs?: number;
  /** This replica's id (lease owner); random by default. */
  owner?: string;
}

const MAX_BACKOFF_MS = 5 * 60_000;

/**
 * The loop that sends pushed messages, one per replica: claims due rows with a lease (SKIP LOCKED
 * on PostgreSQL), keeps to Telegram's limits through a budget shared by every replica in the
 * database (a global per-slot counter and a per-chat next-send time), honours 429 retry_after,
 * backs off on 5xx and network errors, drops on 400 and stops a user's alerts on 403.
 * A row recorded as sent is never sent again.
 */
export class OutboxSender {
  readonly owner: string;
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<void> | null = null;
  private stopped = true;
  private api: Api | null = null;
  private readonly budget: GlobalBudget;
  private readonly perChatIntervalMs: number;
  private readonly leaseMs: number;
  private abort = new AbortController();
  private cycles = 0;
  /** When the earliest row released in the last cycle becomes due (to come back in time). */
  private nextDue: number | null = null;

  constructor(private readonly options: SenderOptions) {
    this.owner = options.owner ?? randomUUID();
    this.budget = { perSecond: options.globalPerSecond ?? DEFAULT_GLOBAL_BUDGET.perSecond, burst: options.globalBurst ?? DEFAULT_GLOBAL_BUDGET.burst };
    this.perChatIntervalMs = options.perChatIntervalMs ?? 1050;
    this.leaseMs = options.leaseMs ?? 30_000;
    this.clockOrigin = { app: options.now(), wall: Date.now() };
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
          this.schedule(this.delayToNext());
        });
    }, delay);
  }

  private idle = true;

  private readonly clockOrigin: { app: number; wall: number };

  /** How fast the app clock runs against the wall clock (1 in production; tests may speed it up). */
  private clockRate(): number {
    const wall = Date.now() - this.clockOrigin.wall;
    if (wall < 200) return 1;
    return Math.max(1, (this.options.now() - this.clockOrigin.app) / wall);
  }

  private delayToNext(): number {
    if (!this.idle) return 5;
    if (this.nextDue === null) return 250;
    // Rows waiting for their chat's turn or a budget slot: come back when the first is due.
    return Math.round(Math.min(250, Math.max(5, (this.nextDue - this.options.now()) / this.clockRate())));
  }

  /** One pass: send what is due and allowed now. Exposed for tests and the benchmark. */
  async cycle(): Promise<number> {
    const { db, now } = this.options;
    if (!this.api) {
      this.idle = false;
      return 0;
    }
    this.cycles += 1;
    if (this.cycles % 500 === 1) await pruneSendBudget(db, now()).catch(() => undefined);
    const rows = await claimDue(db, this.owner, now(), 20, this.leaseMs);
    this.idle = true;
    this.nextDue = null;
    const release = async (row: OutboxRow, at: number) => {
      await releaseLease(db, row.id, Math.max(row.next_attempt_at, at), this.owner);
      this.nextDue = this.nextDue === null ? at : Math.min(this.nextDue, at);
    };
    // 1. each row's chat turn (per-chat limit, shared by every replica)
    const ready: Array<{ row: OutboxRow; takenAt: number }> = [];
    for (const row of rows) {
      const current = now();
      const chatWait = await takeChatSlot(db, row.chat_id, current, this.perChatIntervalMs);
      if (chatWait !== null) await release(row, chatWait);
      else ready.push({ row, takenAt: current });
    }
    // 2. as many as the global budget (shared by every replica) allows now, oldest first
    const { granted, nextAt } = ready.length > 0 ? await takeGlobal(db, now(), ready.length, this.budget) : { granted: 0, nextAt: now() };
    for (const { row, takenAt } of ready.slice(granted)) {
      await returnChatSlot(db, row.chat_id, takenAt, this.perChatIntervalMs);
      await release(row, nextAt);
    }
    const sending = ready.slice(0, granted).map(({ row }) => this.send(row));
    await Promise.all(sending);
    // A full batch may have more behind it: come back at once.
    if (granted > 0 && rows.length >= 20) this.idle = false;
    if (rows.length === 0) this.nextDue = await nextDueAt(db);
    return granted;
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
      // The chat's spacing counts from the end of this send, so network jitter cannot squeeze two
      // messages closer than the interval at Telegram's end.
      await deferChat(db, row.chat_id, now() + this.perChatIntervalMs).catch(() => undefined);
      if (!(await markSent(db, row.id, now(), this.owner))) logger.warn({ outboxId: row.id }, "alert sent after its lease had run out (slow send); another replica may send it too");
      metrics.alerts.inc({ outcome: "sent" });
    } catch (error) {
      if (error instanceof GrammyError) {
        if (error.error_code === 429) {
          const retryAfter = Number(error.parameters.retry_after ?? 1);
          await deferChat(db, row.chat_id, now() + retryAfter * 1000);
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
