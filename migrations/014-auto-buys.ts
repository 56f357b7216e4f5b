import type { Kysely, Migration } from "kysely";

/**
 * Auto-buys: a user's standing authorization to buy one rent (resource, volume, duration) for one
 * address whenever their own order total is at or under `max_total_sun`, within `daily_budget_sun`
 * and `orders_per_day` per UTC day, until `ends_at`. Money is kept in sun as decimal strings.
 *
 * `auto_buy_orders` holds every order an auto-buy tried, numbered per UTC day (`n`): the order's
 * Idempotency-Key is derived from (auto-buy, day, n), and the row is written ("placing") before the
 * marketplace is called, so a retry, a crash between the call and its record, or a second replica
 * sends that same key again and never places a second order. Its lease says which replica is
 * working on a "placing" row.
 *
 * `auto_buy_switch` is /settings' Automatic buying switch: no row means on; off stops every
 * auto-buy of the user, and stays off until turned on.
 */
export const autoBuys: Migration = {
  async up(db: Kysely<unknown>) {
    await db.schema
      .createTable("auto_buys")
      .addColumn("id", "text", (c) => c.primaryKey())
      .addColumn("telegram_id", "bigint", (c) => c.notNull())
      .addColumn("resource", "text", (c) => c.notNull())
      .addColumn("volume", "text", (c) => c.notNull())
      .addColumn("duration", "text", (c) => c.notNull())
      .addColumn("address", "text", (c) => c.notNull())
      .addColumn("max_total_sun", "text", (c) => c.notNull())
      .addColumn("daily_budget_sun", "text", (c) => c.notNull())
      .addColumn("orders_per_day", "integer", (c) => c.notNull())
      .addColumn("ends_at", "bigint", (c) => c.notNull())
      .addColumn("status", "text", (c) => c.notNull())
      .addColumn("reason", "text")
      .addColumn("resume_at", "bigint")
      .addColumn("provider_failures", "integer", (c) => c.notNull().defaultTo(0))
      .addColumn("key_linked_at", "bigint", (c) => c.notNull())
      .addColumn("last_price_sun", "text")
      .addColumn("last_checked_at", "bigint")
      .addColumn("created_at", "bigint", (c) => c.notNull())
      .addColumn("updated_at", "bigint", (c) => c.notNull())
      .execute();
    await db.schema.createIndex("auto_buys_user").on("auto_buys").columns(["telegram_id", "created_at"]).execute();
    await db.schema
      .createIndex("auto_buys_rent")
      .on("auto_buys")
      .columns(["status", "resource", "volume", "duration"])
      .execute();
    await db.schema
      .createTable("auto_buy_orders")
      .addColumn("auto_buy_id", "text", (c) => c.notNull())
      .addColumn("day", "text", (c) => c.notNull())
      .addColumn("n", "integer", (c) => c.notNull())
      .addColumn("telegram_id", "bigint", (c) => c.notNull())
      .addColumn("idempotency_key", "text", (c) => c.notNull())
      .addColumn("state", "text", (c) => c.notNull())
      .addColumn("order_id", "text")
      .addColumn("total_sun", "text", (c) => c.notNull())
      .addColumn("rental_ends_at", "bigint", (c) => c.notNull())
      .addColumn("lease_owner", "text")
      .addColumn("lease_until", "bigint")
      .addColumn("created_at", "bigint", (c) => c.notNull())
      .addColumn("updated_at", "bigint", (c) => c.notNull())
      .addPrimaryKeyConstraint("auto_buy_orders_pk", ["auto_buy_id", "day", "n"])
      .execute();
    await db.schema.createIndex("auto_buy_orders_user").on("auto_buy_orders").columns(["telegram_id"]).execute();
    await db.schema.createIndex("auto_buy_orders_order").on("auto_buy_orders").columns(["order_id"]).execute();
    await db.schema
      .createIndex("auto_buy_orders_state")
      .on("auto_buy_orders")
      .columns(["state", "auto_buy_id"])
      .execute();
    await db.schema
      .createTable("auto_buy_switch")
      .addColumn("telegram_id", "bigint", (c) => c.primaryKey())
      .addColumn("enabled", "integer", (c) => c.notNull())
      .addColumn("changed_at", "bigint", (c) => c.notNull())
      .execute();
  },
  async down(db: Kysely<unknown>) {
    await db.schema.dropTable("auto_buy_switch").ifExists().execute();
    await db.schema.dropTable("auto_buy_orders").ifExists().execute();
    await db.schema.dropTable("auto_buys").ifExists().execute();
  },
};
