import type { Kysely, Migration } from "kysely";

/**
 * Price watches: a user's "tell me when renting this costs at most that much". `crossings` counts
 * the alerts a watch has given; with the watch id it makes the outbox dedupe key, so one crossing
 * is alerted once whatever restarts or replicas do. `armed` is 0 from an alert until the price is
 * seen above the threshold again (or the cooldown ends, as the watch's rearm mode says).
 *
 * `price_watch_cycles` holds the last cron tick whose check was claimed: every replica's tick
 * names the same second, and only the first to claim it asks the marketplace.
 *
 * `users.alert_prices` is the /settings switch for price alerts (on by default).
 */
export const priceWatches: Migration = {
  async up(db: Kysely<unknown>) {
    await db.schema
      .createTable("price_watches")
      .addColumn("id", "text", (c) => c.primaryKey())
      .addColumn("telegram_id", "bigint", (c) => c.notNull())
      .addColumn("resource", "text", (c) => c.notNull())
      .addColumn("volume", "text", (c) => c.notNull())
      .addColumn("duration", "text", (c) => c.notNull())
      .addColumn("address", "text")
      .addColumn("threshold_sun", "text", (c) => c.notNull())
      .addColumn("status", "text", (c) => c.notNull())
      .addColumn("armed", "integer", (c) => c.notNull())
      .addColumn("rearm", "text", (c) => c.notNull())
      .addColumn("cooldown_ms", "bigint", (c) => c.notNull())
      .addColumn("quiet_until", "bigint", (c) => c.notNull())
      .addColumn("crossings", "integer", (c) => c.notNull())
      .addColumn("last_price_sun", "text")
      .addColumn("last_checked_at", "bigint")
      .addColumn("created_at", "bigint", (c) => c.notNull())
      .addColumn("updated_at", "bigint", (c) => c.notNull())
      .execute();
    await db.schema
      .createIndex("price_watches_user")
      .on("price_watches")
      .columns(["telegram_id", "created_at"])
      .execute();
    await db.schema
      .createIndex("price_watches_target")
      .on("price_watches")
      .columns(["status", "resource", "volume", "duration"])
      .execute();
    await db.schema
      .createTable("price_watch_cycles")
      .addColumn("name", "text", (c) => c.primaryKey())
      .addColumn("tick", "bigint", (c) => c.notNull())
      .execute();
    await db.schema
      .alterTable("users")
      .addColumn("alert_prices", "integer", (c) => c.notNull().defaultTo(1))
      .execute();
  },
  async down(db: Kysely<unknown>) {
    await db.schema.alterTable("users").dropColumn("alert_prices").execute();
    await db.schema.dropTable("price_watch_cycles").ifExists().execute();
    await db.schema.dropTable("price_watches").ifExists().execute();
  },
};
