/**
 * How many requests for unknown webhook tokens one client address may make per window. A
 * marketplace still delivering to a user's old URL after a rotation makes a handful; someone
 * guessing tokens makes thousands.
 */
export interface UnknownTokenLimit {
  limit: number;
  windowMs: number;
}

export const UNKNOWN_TOKEN_LIMIT: UnknownTokenLimit = { limit: 30, windowMs: 60_000 };

/** Addresses remembered at most; past it the oldest windows are forgotten first. */
const MAX_ADDRESSES = 100_000;

/**
 * Counts, per client address, the requests that named an unknown token, in a window opened by the
 * first of them. While an address is past the limit, every request from it is refused alike (429,
 * known token or not, no database read), so the limit neither costs a lookup nor tells which
 * tokens exist; the marketplace retries what was refused. In this process's memory: the limit is
 * per replica, and a restart forgets it.
 */
export class UnknownTokenLimiter {
  private readonly windows = new Map<string, { start: number; count: number }>();

  constructor(
    private readonly settings: UnknownTokenLimit = UNKNOWN_TOKEN_LIMIT,
    private readonly maxAddresses = MAX_ADDRESSES,
  ) {}

  /** Milliseconds until `address` may be told "unknown token" again; 0 while it is under the limit. */
  waitFor(address: string, now: number): number {
    const window = this.windows.get(address);
    if (!window || now - window.start >= this.settings.windowMs) return 0;
    return window.count >= this.settings.limit ? window.start + this.settings.windowMs - now : 0;
  }

  /** Records one request from `address` that named an unknown token; true when this one reached the limit (once per window). */
  record(address: string, now: number): boolean {
    const window = this.windows.get(address);
    if (window && now - window.start < this.settings.windowMs) {
      window.count += 1;
      return window.count === this.settings.limit;
    }
    // Re-inserted, so the map's order stays the order windows opened in.
    this.windows.delete(address);
    this.windows.set(address, { start: now, count: 1 });
    // The map's first entries opened their windows first: expired ones go (each once, so this
    // costs nothing over time), and past the cap the oldest live one goes too.
    for (const [oldest, opened] of this.windows) {
      if (now - opened.start < this.settings.windowMs && this.windows.size <= this.maxAddresses) break;
      this.windows.delete(oldest);
    }
    return this.settings.limit <= 1;
  }

  /** Addresses held now (for tests). */
  get size(): number {
    return this.windows.size;
  }
}
