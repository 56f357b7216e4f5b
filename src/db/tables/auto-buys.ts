import type { Generated } from "kysely";

/**
 * An auto-buy: buy `volume` of `resource` for `duration` for `address` whenever the user's own
 * order total (the marketplace's preview for their key) is at most `max_total_sun`, within
 * `daily_budget_sun` and `orders_per_day` per UTC day, until `ends_at`. Written by
 * db/repos/auto-buys.ts alone.
 */
export interface AutoBuysTable {
  /** Short random id (10 characters of [A-Za-z0-9_-]); callback data carries it. */
  id: string;
  telegram_id: number;
  resource: string;
  volume: string;
  duration: string;
  address: string;
  /** The most one order may cost, in sun: the preview's total (price and activation fee). */
  max_total_sun: string;
  /** The most all its orders of one UTC day may cost together, in sun. */
  daily_budget_sun: string;
  orders_per_day: number;
  /** When it stops buying (ms). */
  ends_at: number;
  /**
   * active: buys when the price is right; paused: by the user (or the Automatic buying switch);
   * waiting: the key's daily spend limit was reached, until `resume_at`; stopped: by itself (see
   * `reason`), until the user resumes it; ended: its end date passed, or the user stopped it for good.
   */
  status: string;
  /** Why it is not active: user, switch, balance, scope, key, provider, rejected, relinked, spend_limit, ended. */
  reason: string | null;
  /** waiting: when it resumes by itself (the next UTC midnight). */
  resume_at: number | null;
  /** Provider failures (502) in a row; two stop it. */
  provider_failures: Generated<number>;
  /** The key link (credentials.linked_at) it was authorized under: another key stops it. */
  key_linked_at: number;
  last_price_sun: string | null;
  last_checked_at: number | null;
  created_at: number;
  updated_at: number;
}

/** An order an auto-buy tried: numbered per UTC day, its Idempotency-Key derived from (auto-buy, day, n). */
export interface AutoBuyOrdersTable {
  auto_buy_id: string;
  /** The UTC day (YYYY-MM-DD) whose budget it counts against. */
  day: string;
  /** Its number that day (1, 2, …), refused attempts included, so each attempt has its own key. */
  n: number;
  telegram_id: number;
  idempotency_key: string;
  /** placing: written before the call, outcome not recorded yet; placed; failed: refused or refunded; unknown: given up on. */
  state: string;
  order_id: string | null;
  /** What it costs, in sun: the preview's total until the order's own is known. */
  total_sun: string;
  /** When the rental ends (created + duration): until then the address is covered. */
  rental_ends_at: number;
  lease_owner: string | null;
  lease_until: number | null;
  created_at: number;
  updated_at: number;
}

/** /settings' Automatic buying switch; no row = on. */
export interface AutoBuySwitchTable {
  telegram_id: number;
  enabled: number;
  changed_at: number;
}
