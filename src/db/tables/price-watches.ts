/** Price watches (/watch) and the last cron tick whose check a replica claimed. */

/**
 * A price watch: alert when renting `volume` of `resource` for `duration` costs at most
 * `threshold_sun` by the public quote. Money and volumes are decimal strings (sun for money).
 */
export interface PriceWatchesTable {
  /** Short random id (10 characters of [A-Za-z0-9_-]); callback data carries it. */
  id: string;
  telegram_id: number;
  resource: string;
  volume: string;
  duration: string;
  /** Where Buy now sends the energy; null = asked when buying. */
  address: string | null;
  threshold_sun: string;
  /** active | paused */
  status: string;
  /** 1 while the next crossing alerts; 0 from an alert until the watch rearms. */
  armed: number;
  /** above: rearms when the price is seen above the threshold; cooldown: when the cooldown ends. */
  rearm: string;
  cooldown_ms: number;
  /** No alert before this time (the cooldown after the last one). */
  quiet_until: number;
  /** Alerts given so far; the outbox dedupe key is "watch:<id>:<crossings>". */
  crossings: number;
  last_price_sun: string | null;
  last_checked_at: number | null;
  created_at: number;
  updated_at: number;
}

/** The last cron tick whose price watch check one replica claimed. */
export interface PriceWatchCyclesTable {
  name: string;
  tick: number;
}
