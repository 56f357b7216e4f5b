import type { SpendingRecords } from "./collect";

/** How long a user's records are reused: long enough to flip between 7 and 30 days, short enough to stay current. */
export const STATS_CACHE_MS = 5 * 60_000;
/** How long /stats itself shows the records already read instead of reading them again. */
export const STATS_FRESH_MS = 60_000;
const MAX_USERS = 2_000;

/**
 * Each user's last read of the marketplace, in this process: a tap on "30 days" after /stats
 * reuses the 30 days read for it instead of reading them again. `identity` names the linked key,
 * so relinking another key never shows the old account's figures.
 */
export class SpendingCache {
  private readonly entries = new Map<number, { identity: string; records: SpendingRecords }>();

  constructor(private readonly ttlMs = STATS_CACHE_MS) {}

  /** Records read less than ttlMs (or `maxAgeMs`, when shorter) ago under the same key that reach back to `since`. */
  get(telegramId: number, identity: string, since: number, now: number, maxAgeMs = this.ttlMs): SpendingRecords | null {
    const entry = this.entries.get(telegramId);
    const age = now - (entry?.records.readAt ?? 0);
    if (
      !entry ||
      entry.identity !== identity ||
      age >= Math.min(maxAgeMs, this.ttlMs) ||
      age < 0 ||
      entry.records.since > since
    )
      return null;
    return entry.records;
  }

  set(telegramId: number, identity: string, records: SpendingRecords): void {
    this.entries.delete(telegramId);
    this.entries.set(telegramId, { identity, records });
    // Oldest first in a Map: past the bound, the least recently read user goes.
    while (this.entries.size > MAX_USERS) this.entries.delete(this.entries.keys().next().value!);
  }
}
