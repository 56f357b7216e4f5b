/**
 * Rule delivery alerts: per user and rule, the newest firing already alerted, so each firing gives
 * one "delivered" alert. Written by db/repos/delivery-marks.ts alone.
 */
export interface DeliveryMarksTable {
  telegram_id: number;
  rule_id: string;
  /** Creation time (marketplace clock, ms) of the newest firing alerted (or passed over when the alerts were switched on). */
  seen_until: number;
  updated_at: number;
}
