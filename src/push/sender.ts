import { randomUUID } from "node:crypto";
import { Api } from "grammy";
import {
  DEFAULT_CHAT_PACE,
  databaseSendBudget,
  type ChatPace,
  type GlobalBudget,
  type SendBudgetStore,
} from "#src/scale/send-budget";
import { reportFailure } from "#src/db/health";
import {
  claimDue,
  nextClaimableAt,
  nextDueAt,
  markDropped,
  markRetry,
  markSent,
  releaseLease,
  type OutboxPayload,
  type OutboxRow,
} from "#src/db/repos/outbox";
import { recordFailedSend } from "./send-failure";
import { GROUP_CHAT_PACE } from "#src/db/repos/chat-send";
import { isGroupChat } from "./group-gate";
import type { SenderOptions } from "./sender-options";

export type { SenderOptions } from "./sender-options";

/** Pause after a failed outbox cycle: the database answering again is noticed within it. */
const FAILED_CYCLE_PAUSE_MS = 1_000;

/** Rows one cycle may claim, and sends this replica may have in flight at once. */
const MAX_PER_CYCLE = 20;
const MAX_IN_FLIGHT = 32;

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
  private readonly chatPace: ChatPace;
  private readonly store: SendBudgetStore;
  private readonly leaseMs: number;
  private abort = new AbortController();
  private cycles = 0;
  /** When the earliest row released in the last cycle becomes due (to come back in time). */
  private nextDue: number | null = null;

  constructor(private readonly options: SenderOptions) {
    this.owner = options.owner ?? randomUUID();
    this.store = options.budgetStore ?? databaseSendBudget(options.db);
    this.budget = {
      perSecond: options.globalPerSecond ?? this.store.budget.perSecond,
      burst: options.globalBurst ?? this.store.budget.burst,
    };
    this.chatPace = options.chatPace ?? DEFAULT_CHAT_PACE;
    this.leaseMs = options.leaseMs ?? 30_000;
    this.clockOrigin = { app: options.now(), wall: Date.now() };
  }

  /** A group's pace (Telegram: 20 a minute) or a private chat's. */
  private paceOf(chatId: number): ChatPace {
    return isGroupChat(chatId) ? GROUP_CHAT_PACE : this.chatPace;
  }

  start(api: Api): void {
    this.api = api;
    this.abort = new AbortController();
    this.stopped = false;
    this.schedule(0);
  }

  /**
   * Passes of the loop finished so far (each looked at the queue once). Something read after a
   * pass that began later saw every row queued before it: tests wait on this, not on a quiet spell.
   */
  get sweeps(): number {
    return this.sweepsDone;
  }

  private sweepsDone = 0;

  /** Wakes the loop now (after an enqueue). */
  wake(): void {
    if (!this.stopped && !this.running) this.schedule(0);
  }

  private schedule(delay: number): void {
    if (this.stopped) return;
    if (this.timer) clearTimeout(this.timer);
    this.timer = setTimeout(() => {
      this.timer = null;
      let failed = false;
      this.running = this.cycle()
        .then(() => undefined)
        .catch((error: unknown) => {
          failed = true;
          reportFailure(this.options.db, this.options.logger, error, "outbox cycle failed; retrying shortly");
        })
        .finally(() => {
          this.running = null;
          this.sweepsDone += 1;
          // A failed cycle (the database gone, most likely) is tried again after a pause, not at once.
          this.schedule(failed ? FAILED_CYCLE_PAUSE_MS : this.delayToNext());
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

  /** Sends in flight (not awaited by the cycle: a slow Telegram must not stall the budget's pace). */
  private readonly inFlight = new Set<Promise<void>>();
  /**
   * Alerts Telegram accepted whose "sent" could not be recorded (the database went away): recorded
   * at the start of the next cycles, before anything is claimed, so this replica never sends them
   * again when their lease runs out.
   */
  private readonly unrecorded = new Set<number>();

  /** Records the sends kept in `unrecorded`; throws (the cycle fails and pauses) while the database is away. */
  private async recordUnrecorded(): Promise<void> {
    for (const id of [...this.unrecorded]) {
      // False: another replica took the row meanwhile; nothing left to record here.
      await markSent(this.options.db, id, this.options.now(), this.owner);
      this.unrecorded.delete(id);
    }
  }

  /**
   * One pass: in one short transaction, takes what the global budget allows (shared by every
   * replica), claims that many due rows whose chats' turns have come, takes those turns and gives
   * back the unused part of the grant; then starts the sends. Exposed for tests and the benchmark.
   */
  async cycle(): Promise<number> {
    const { db, now } = this.options;
    if (!this.api) {
      this.idle = false;
      return 0;
    }
    this.cycles += 1;
    const abortedBefore = this.abort.signal.aborted;
    if (this.unrecorded.size > 0) await this.recordUnrecorded();
    if (this.cycles % 500 === 1) await this.store.prune(now()).catch(() => undefined);
    // The last cycle filled its whole grant: there may be more rows, so no look before the transaction.
    const draining = !this.idle;
    this.idle = true;
    this.nextDue = null;
    const room = Math.min(MAX_PER_CYCLE, MAX_IN_FLIGHT - this.inFlight.size);
    if (room <= 0) return 0; // a finishing send wakes the loop
    const at = now();
    // Nothing due: no transaction. It would lock the shared budget's row (on PostgreSQL, where
    // every reply's turn locks it too) for a grant given straight back, four times a second.
    if (!draining) {
      const due = await nextDueAt(db);
      if (due === null || due > at) {
        this.nextDue = due;
        return 0;
      }
    }
    const { rows, granted, limited, nextAt } = await db.transaction().execute(async (trx) => {
      const grant = await this.store.takeGlobalIn(trx, at, room, this.budget);
      if (grant.granted === 0) return { rows: [] as OutboxRow[], granted: 0, limited: true, nextAt: grant.nextAt };
      const claimed = await claimDue(trx, this.owner, at, grant.granted, this.leaseMs);
      const ready: OutboxRow[] = [];
      for (const [index, row] of claimed.entries()) {
        if (index >= grant.granted) {
          await releaseLease(trx, row.id, row.next_attempt_at, this.owner);
          continue;
        }
        const chatWait = await this.store.takeChatSlot(trx, row.chat_id, at, this.paceOf(row.chat_id));
        if (chatWait === null) ready.push(row);
        else await releaseLease(trx, row.id, Math.max(row.next_attempt_at, chatWait), this.owner);
      }
      await this.store.refundGlobal(trx, grant.granted - ready.length, this.budget);
      return { rows: ready, granted: grant.granted, limited: grant.limited, nextAt: grant.nextAt };
    });
    if (!abortedBefore && this.abort.signal.aborted) {
      // Stopped for good while this pass claimed: the rows go back at once, unsent.
      for (const row of rows) await releaseLease(db, row.id, row.next_attempt_at, this.owner);
      return 0;
    }
    for (const row of rows) {
      const sending: Promise<void> = this.send(row)
        .catch((error: unknown) =>
          reportFailure(
            this.options.db,
            this.options.logger,
            error,
            "recording an alert's outcome failed; its lease will run out",
            { outboxId: row.id },
          ),
        )
        .finally(() => {
          this.inFlight.delete(sending);
          this.wake();
        });
      this.inFlight.add(sending);
    }
    if (granted === 0 || (limited && rows.length === granted)) {
      // The budget is spent: come back when the next message is allowed.
      this.nextDue = nextAt;
    } else if (rows.length === granted) {
      // Every granted message found a row and the budget had more: there may be more rows.
      this.idle = false;
    } else {
      const next = await nextClaimableAt(db, now());
      // Rows held by leases (ours in flight, or another replica's) are waited for, not polled hard.
      this.nextDue = next === null ? null : Math.max(next, now() + 50);
    }
    return rows.length;
  }

  private async send(row: OutboxRow): Promise<void> {
    const { db, logger, metrics, now } = this.options;
    let payload: OutboxPayload;
    try {
      payload = JSON.parse(row.payload) as OutboxPayload;
    } catch {
      await markDropped(db, row.id, "unreadable payload", this.owner);
      return;
    }
    let accepted = false;
    try {
      if (payload.method === "sendDigest") {
        const built = this.options.prepare ? await this.options.prepare(row, payload) : null;
        if (!built) {
          await markDropped(db, row.id, "nothing to send any more", this.owner);
          return;
        }
        payload = built;
      }
      const verdict =
        isGroupChat(row.chat_id) && this.options.groups ? await this.options.groups.check(this.api!, row) : "send";
      if (verdict !== "send") {
        await (verdict === "drop"
          ? markDropped(db, row.id, "the group link ended", this.owner)
          : markRetry(db, row.id, now(), "the group moved", this.owner));
        return;
      }
      const raw = this.api!.raw as unknown as Record<string, (params: unknown) => Promise<unknown>>;
      const leave = this.options.window ? await this.options.window.enter() : null;
      try {
        await (raw[payload.method] as (params: unknown, signal?: AbortSignal) => Promise<unknown>)(
          { ...payload.params, chat_id: row.chat_id },
          this.abort.signal,
        );
      } finally {
        leave?.();
      }
      accepted = true;
      metrics.alertDeliverySeconds.observe({}, (now() - row.created_at) / 1000);
      // The chat's pace counts this send from its answer, so network jitter cannot squeeze two
      // messages closer than the pace at Telegram's end.
      const recorded = await db.transaction().execute(async (trx) => {
        await this.store.recordChatSendAt(trx, row.chat_id, now(), this.paceOf(row.chat_id));
        return markSent(trx, row.id, now(), this.owner);
      });
      if (!recorded)
        logger.warn(
          { outboxId: row.id },
          "alert sent after its lease had run out (slow send); another replica may send it too",
        );
      metrics.alerts.inc({ outcome: "sent" });
    } catch (error) {
      if (accepted) {
        // Delivered, but not recorded: kept for the next cycles rather than sent again.
        this.unrecorded.add(row.id);
        metrics.alerts.inc({ outcome: "sent" });
        reportFailure(db, logger, error, "recording a sent alert failed; recorded when the database answers", {
          outboxId: row.id,
        });
        return;
      }
      const group =
        isGroupChat(row.chat_id) && this.options.groups
          ? await this.options.groups.afterFailure(error, row.chat_id)
          : null;
      if (group === "drop") await markDropped(db, row.id, "the group link ended", this.owner);
      else if (group === "retry") await markRetry(db, row.id, now(), "the group moved", this.owner);
      else await recordFailedSend({ db, logger, metrics, now, store: this.store, owner: this.owner }, row, error);
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
    const until = <T>(work: Promise<T>) =>
      Promise.race([work, new Promise<null>((resolve) => setTimeout(() => resolve(null), remaining()).unref())]);
    if (this.running) await until(this.running);
    while (remaining() > 0) {
      // A cycle that fails (the database gone) ends the drain: what is queued stays for the next start.
      const pass = this.cycle().catch(() => null);
      this.running = pass.then(() => undefined);
      const sent = await until(pass);
      if (sent === null) break;
      if (sent === 0 && this.idle && this.nextDue === null && this.inFlight.size === 0) break;
      if (sent === 0)
        await new Promise((resolve) => setTimeout(resolve, Math.min(this.inFlight.size > 0 ? 10 : 100, remaining())));
    }
    await until(Promise.allSettled([...this.inFlight]));
    this.abort.abort();
    // An aborted send still records its outcome, and a pass still claiming gives its rows back
    // (a moment on a busy database, where the shared budget's row is locked in turn); one that
    // cannot within 0.8 s keeps its lease, which the stop hands back or which runs out.
    const settle = Promise.allSettled([...this.inFlight, this.running]);
    await Promise.race([settle, new Promise((resolve) => setTimeout(resolve, 800).unref())]);
  }
}

export const createSenderApi = (token: string, apiRoot: string): Api => new Api(token, { apiRoot, timeoutSeconds: 15 });
