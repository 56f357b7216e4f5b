import { TelegramApiError } from "./api-error";

export interface QueuedUpdate {
  update_id: number;
  [type: string]: unknown;
}

export interface PollRequest {
  offset?: number;
  limit?: number;
  /** Seconds, as in getUpdates. */
  timeout?: number;
  allowedUpdates?: string[];
  /** Aborted when the bot hangs up, which ends its poll as Telegram would. */
  signal?: AbortSignal;
}

// Telegram leaves these out unless asked for by name.
const OPT_IN_TYPES = new Set(["chat_member", "message_reaction", "message_reaction_count"]);

/**
 * Waits until the queue wakes the poll, the bot hangs up or `waitMs` ends. `setWake` is given the
 * waker while the poll waits, and null once it is done.
 */
function waitForUpdates(
  signal: AbortSignal | undefined,
  waitMs: number,
  setWake: (finish: (() => void) | null) => void,
): Promise<void> {
  return new Promise<void>((resolve) => {
    const timer = setTimeout(finish, waitMs);
    signal?.addEventListener("abort", finish, { once: true });
    setWake(finish);
    function finish() {
      clearTimeout(timer);
      signal?.removeEventListener("abort", finish);
      setWake(null);
      resolve();
    }
  });
}

/** Updates waiting for the bot, and the one long poll allowed to wait for them. */
export function createUpdateQueue(longPollMaxMs: number) {
  let nextUpdateId = 1;
  let pending: QueuedUpdate[] = [];
  let allowed: string[] = [];
  let wake: (() => void) | null = null;
  let closed = false;
  const onEnqueue = new Set<() => void>();

  const typeOf = (update: QueuedUpdate) => Object.keys(update).find((key) => key !== "update_id") ?? "";
  const isAllowed = (update: QueuedUpdate) =>
    allowed.length > 0 ? allowed.includes(typeOf(update)) : !OPT_IN_TYPES.has(typeOf(update));

  function confirmBelow(offset: number): void {
    if (offset < 0) pending = pending.slice(offset);
    else pending = pending.filter((update) => update.update_id >= offset);
  }

  function take(limit: number): QueuedUpdate[] {
    // Telegram drops updates of types the bot did not ask for rather than keep them.
    pending = pending.filter(isAllowed);
    return pending.slice(0, Math.min(Math.max(limit, 1), 100));
  }

  return {
    enqueue(update: object): number {
      const queued = { ...update, update_id: nextUpdateId++ } as QueuedUpdate;
      pending.push(queued);
      wake?.();
      for (const listener of [...onEnqueue]) listener();
      return queued.update_id;
    },
    /** Long polling: answers at once when updates are waiting, else when one arrives or the timeout ends. */
    async poll(request: PollRequest): Promise<QueuedUpdate[]> {
      if (wake) {
        throw new TelegramApiError(
          409,
          "Conflict: terminated by other getUpdates request; make sure that only one bot instance is running",
        );
      }
      if (request.offset !== undefined && request.offset !== 0) confirmBelow(request.offset);
      if (request.allowedUpdates) allowed = request.allowedUpdates;
      const limit = request.limit ?? 100;
      const ready = take(limit);
      const timeoutMs = Math.min((request.timeout ?? 0) * 1000, longPollMaxMs);
      if (ready.length > 0 || timeoutMs <= 0) return ready;
      // After close the poll still waits (briefly), so a bot left running does not spin.
      await waitForUpdates(request.signal, closed ? Math.min(timeoutMs, 1000) : timeoutMs, (finish) => {
        wake = closed ? null : finish;
      });
      return closed ? [] : take(limit);
    },
    /** The oldest `limit` updates not yet confirmed, for webhook delivery. */
    waiting(limit: number): QueuedUpdate[] {
      return take(limit);
    },
    /** Confirms one delivered update, leaving older ones still being delivered in place. */
    confirmOne(updateId: number): void {
      pending = pending.filter((update) => update.update_id !== updateId);
    },
    pendingCount(): number {
      return pending.length;
    },
    dropPending(): void {
      pending = [];
    },
    onEnqueue(listener: () => void): () => void {
      onEnqueue.add(listener);
      return () => onEnqueue.delete(listener);
    },
    close(): void {
      closed = true;
      wake?.();
    },
  };
}

export type UpdateQueue = ReturnType<typeof createUpdateQueue>;
