/**
 * At most `limit` holders at once; the rest wait their turn in arrival order. A waiter whose
 * signal aborts leaves the queue at once (it never takes a slot it no longer needs).
 */
export class Semaphore {
  private holders = 0;
  private readonly queue: Array<{ grant: () => void }> = [];

  constructor(readonly limit: number) {
    if (!Number.isInteger(limit) || limit < 1)
      throw new RangeError(`a semaphore needs a limit of at least 1, got ${limit}`);
  }

  /** Holders now. */
  get active(): number {
    return this.holders;
  }

  /** Waiters now. */
  get waiting(): number {
    return this.queue.length;
  }

  /**
   * Runs `task` once a slot is free and frees it when the task settles. `onWait` is called when
   * the task has to wait (the limit bites). Rejects with the signal's reason if it aborts first.
   */
  async run<T>(task: () => Promise<T>, options: { signal?: AbortSignal; onWait?: () => void } = {}): Promise<T> {
    await this.acquire(options);
    try {
      return await task();
    } finally {
      this.release();
    }
  }

  private acquire({ signal, onWait }: { signal?: AbortSignal; onWait?: () => void }): Promise<void> {
    if (signal?.aborted) return Promise.reject(abortReason(signal));
    if (this.holders < this.limit) {
      this.holders += 1;
      return Promise.resolve();
    }
    onWait?.();
    return new Promise<void>((resolve, reject) => {
      const waiter = {
        grant: () => {
          signal?.removeEventListener("abort", leave);
          this.holders += 1;
          resolve();
        },
      };
      const leave = () => {
        const index = this.queue.indexOf(waiter);
        if (index !== -1) this.queue.splice(index, 1);
        reject(abortReason(signal!));
      };
      signal?.addEventListener("abort", leave, { once: true });
      this.queue.push(waiter);
    });
  }

  private release(): void {
    this.holders -= 1;
    this.queue.shift()?.grant();
  }
}

/** The reason a signal was aborted with, as an Error. */
export function abortReason(signal: AbortSignal): Error {
  const reason: unknown = signal.reason;
  return reason instanceof Error ? reason : new DOMException("the operation was aborted", "AbortError");
}
