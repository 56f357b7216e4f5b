/**
 * A filled order the bot knows of (placed through it, or seen filled by a webhook or a poll), with
 * when its rental ends and when the "ends" alert is due. Written by db/repos/rental-ends.ts alone.
 */
export interface RentalEndsTable {
  telegram_id: number;
  order_id: string;
  resource: string;
  volume: string;
  duration: string;
  target_address: string;
  /** When the rental ends (ms): the order's creation time plus its duration. */
  ends_at: number;
  /** When the alert is due (ms): 10 minutes before the end, a quarter of the duration for rentals under an hour. */
  alert_at: number;
  /** waiting → alerted (in the transaction that queued the alert), or missed (the end came first, or alerts were off). */
  state: string;
  created_at: number;
}
