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

  /** Milliseconds until `key` is under the limit again; 0 while it is under it. */
  waitFor(key: string, now: number): number {
    const window = this.windows.get(key);
    if (!window || now - window.start >= this.settings.windowMs) return 0;
    return window.count >= this.settings.limit ? window.start + this.settings.windowMs - now : 0;
  }

  /** Counts one request of `key`; true when this one reached the limit (once per window). */
  record(key: string, now: number): boolean {
    const window = this.windows.get(key);
    if (window && now - window.start < this.settings.windowMs) {
      window.count += 1;
      return window.count === this.settings.limit;
    }
    // Re-inserted, so the map's order stays the order windows opened in.
    this.windows.delete(key);
    this.windows.set(key, { start: now, count: 1 });
    // The map's first entries opened their windows first: expired ones go (each once, so this
    // costs nothing over time), and past the cap the oldest live one goes too.
    for (const [oldest, opened] of this.windows) {
      if (now - opened.start < this.settings.windowMs && this.windows.size <= this.maxKeys) break;
      this.windows.delete(oldest);
    }
    return this.settings.limit <= 1;
  }

  /** Counts one request of `key` when it is under the limit and answers 0; past it, counts nothing and answers the wait. */
  take(key: string, now: number): number {
    const wait = this.waitFor(key, now);
    if (wait === 0) this.record(key, now);
    return wait;
  }

  /** Keys held now (for tests). */
  get size(): number {
    return this.windows.size;
  }
}
