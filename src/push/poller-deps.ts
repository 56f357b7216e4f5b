import type { FollowerDeps } from "./order-follower";
import type { Metrics } from "#src/metrics";

// What the notification poller is given, and its limits.

export interface PollerDeps extends FollowerDeps {
  /** Marketplace requests per second the poller may make. */
  ratePerSecond: number;
  concurrency?: number;
  /**
   * Least time between two commits of a cycle's outcomes, in ms (default 25). Answers keep
   * arriving one by one at the poll rate; spacing the commits lets a few dozen users share one
   * fsync instead of holding the event loop for one per user.
   */
  commitGapMs?: number;
  /** How long a user with nothing in motion waits between polls, in ms (POLL_IDLE_INTERVAL; default 10 minutes). */
  idleIntervalMs?: number;
  /** Called when a notification says the marketplace paused a rule: the chat's open cards of it are redrawn. */
  onRuleChanged?: (telegramId: number, ruleId: string) => void;
  /** Counts pages read past the newest, polls stopped at the page limit, and the look ahead's reads. */
  metrics?: Pick<Metrics, "pollExtraPages" | "pollPageLimit" | "pollLookAhead">;
}

/** POLL_IDLE_INTERVAL's default. */
export const DEFAULT_IDLE_INTERVAL_MS = 10 * 60_000;

/**
 * Most notification pages one poll reads. A poll reads further pages until one holds a
 * notification already seen; past this many, the older ones are left unread (logged and counted).
 */
export const MAX_POLL_PAGES = 10;

/** Waits for a request slot at the poll rate, counting it as a read of the look ahead (`poll_look_ahead_requests_total`). */
export type LookAheadPace = (read: "rules" | "fires" | "preview" | "balance") => Promise<void>;
