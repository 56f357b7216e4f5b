import type { Generated } from "kysely";

/**
 * A user's spend guard and reminders (/settings), one row once they changed one; no row means
 * every default. Amounts are decimal strings of sun. Written by db/repos/guard-settings.ts alone.
 */
export interface GuardSettingsTable {
  telegram_id: number;
  /** 1 when the "ends" alert comes before a rental ends (on by default). */
  alert_ends: Generated<number>;
  /** 1 when each firing of an active rule is alerted ("delivered"; off by default). */
  alert_deliveries: Generated<number>;
  /** When rule delivery alerts were last switched on (ms): firings before it are not alerted. */
  deliveries_since: number | null;
  /** The low-balance warning: alert when the balance lasts less than this many hours (12, 24, 72; 0 = off). */
  balance_warning_hours: Generated<number>;
  /** Ask again above: a card whose total is above this (sun) needs a second tap naming it; null = off. */
  ask_above_sun: string | null;
  /** The daily cap (sun) on what is bought through the bot per UTC day; null = off. */
  daily_cap_sun: string | null;
  updated_at: number;
}
