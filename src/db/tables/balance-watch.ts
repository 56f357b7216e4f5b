/**
 * What the low-balance check and the delivery alerts keep per user with an active rule between
 * polls. Written by db/repos/balance-watch.ts alone.
 */
export interface BalanceWatchTable {
  telegram_id: number;
  /** When the next check reads the balance (ms); a deposit seen by the poller brings it forward. */
  next_check_at: number;
  /** 1 while the next crossing alerts; 0 from an alert until a top-up (a higher balance) arms it again. */
  armed: number;
  /** Crossings alerted so far; the outbox dedupe key is "balance:<crossings>". */
  crossings: number;
  /** The balance (sun) the last alert was sent at. */
  alerted_balance_sun: string | null;
  /** When the balance was last read (ms). */
  checked_at: number | null;
  /** The active rules as last read (JSON: id, type, target, volume, duration and next delivery's cost of each), or null before the first read. */
  active_rules: string | null;
  /** When `active_rules` and the figures below were read (ms). */
  rules_read_at: number | null;
  /** What the active rules cost a day over the last 7 days (sun), or null without a firing there. */
  per_day_sun: string | null;
}
