/** How many requests one key may make per window. */
export interface WindowLimit {
  limit: number;
  windowMs: number;
}

/**
 * Counts requests per key in a window opened by the first of them; past the limit, the key waits
 * for its window to end. In this process's memory (per replica; a restart forgets it), with at
 * most `maxKeys` keys held: expired windows go first, then the oldest live ones.
 */
export class FixedWindowLimiter {
  private readonly windows = new Map<string, { start: number; count: number }>();

  constructor(
    readonly settings: WindowLimit,
    private readonly maxKeys = 100_000,
  ) {}

  /**
   * Counts one request of `key` when it is under the limit and answers 0; past the limit, counts
   * nothing and answers the milliseconds until its window ends.
   */
  take(key: string, now: number): number {
    const window = this.windows.get(key);
    if (window && now - window.start < this.settings.windowMs) {
      if (window.count >= this.settings.limit) return window.start + this.settings.windowMs - now;
      window.count += 1;
      return 0;
    }
    // Re-inserted, so the map's order stays the order windows opened in.
    this.windows.delete(key);
    this.windows.set(key, { start: now, count: 1 });
    for (const [oldest, opened] of this.windows) {
      if (now - opened.start < this.settings.windowMs && this.windows.size <= this.maxKeys) break;
      this.windows.delete(oldest);
    }
    return 0;
  }

  /** Keys held now (for tests). */
  get size(): number {
    return this.windows.size;
  }
}
