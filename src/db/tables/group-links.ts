import type { Generated } from "kysely";

/**
 * Team alerts: one user's link to the group their chosen alerts are copied into (one group per
 * user; several users may link the same group). `owner_name` is the first name the copies show.
 */
export interface GroupLinksTable {
  telegram_id: number;
  group_chat_id: number;
  group_title: string;
  owner_name: string;
  /** 1 when that kind of alert is copied into the group. */
  copy_filled: Generated<number>;
  copy_failed: Generated<number>;
  copy_paused: Generated<number>;
  copy_prices: Generated<number>;
  copy_other: Generated<number>;
  linked_at: number;
}
