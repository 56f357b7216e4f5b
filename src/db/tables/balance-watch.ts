/**
 * The low-balance check of a user with an active rule: when it reads the balance again and
 * whether a crossing may alert. Written by db/repos/balance-watch.ts alone.
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
  checked_at: number | null;
}
