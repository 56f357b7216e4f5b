import type { Kysely, Migration } from "kysely";

/**
 * Issue 56: never caught short.
 *
 * - `guard_settings`: a user's spend guard and reminders, one row once they change one (absent:
 *   every default): the rental ending alert (on), rule delivery alerts (off, and since when they
 *   are on), the low-balance warning time in hours (24; 0 = off), Ask again above (sun, null =
 *   off) and the daily cap on what is bought through the bot (sun, null = off).
 * - `bot_spends`: what was bought through the bot, one row per confirmation (or auto-buy), with
 *   its UTC day: the daily cap counts them. A row is reserved before the order goes out and holds
 *   the order's own total once it is placed.
 * - `rental_ends`: every filled order the bot knows of, with when its rental ends and when the
 *   "ends" alert is due; `state` is the alert's marker (waiting → alerted, or missed when the end
 *   passed first), set in the transaction that queues the alert.
 * - `balance_watch`: per user with an active rule, what the low-balance check and the delivery
 *   alerts keep between polls: when the balance is read again, whether a crossing may alert
 *   (`armed`), how many crossings were alerted (the dedupe key), the balance at the last alert (a
 *   higher one later is a top-up, which arms it again), and the active rules with the figures read
 *   from their firings (the cost a day, each rule's next delivery), so most checks read the balance only.
 * - `delivery_marks`: per user and rule, the creation time (marketplace clock) of the newest
 *   firing already alerted, so each firing gives one "delivered" alert.
 */
export const spendGuardAndReminders: Migration = {
  async up(db: Kysely<unknown>) {
    await db.schema
      .createTable("guard_settings")
      .addColumn("telegram_id", "bigint", (c) => c.primaryKey())
      .addColumn("alert_ends", "integer", (c) => c.notNull().defaultTo(1))
      .addColumn("alert_deliveries", "integer", (c) => c.notNull().defaultTo(0))
      .addColumn("deliveries_since", "bigint")
      .addColumn("balance_warning_hours", "integer", (c) => c.notNull().defaultTo(24))
      .addColumn("ask_above_sun", "text")
      .addColumn("daily_cap_sun", "text")
      .addColumn("updated_at", "bigint", (c) => c.notNull())
      .execute();
    await db.schema
      .createTable("bot_spends")
      .addColumn("id", "text", (c) => c.primaryKey())
      .addColumn("telegram_id", "bigint", (c) => c.notNull())
      .addColumn("day", "text", (c) => c.notNull())
      .addColumn("total_sun", "text", (c) => c.notNull())
      .addColumn("state", "text", (c) => c.notNull())
      .addColumn("order_id", "text")
      .addColumn("created_at", "bigint", (c) => c.notNull())
      .execute();
    await db.schema.createIndex("bot_spends_day").on("bot_spends").columns(["telegram_id", "day"]).execute();
    await db.schema
      .createTable("rental_ends")
      .addColumn("telegram_id", "bigint", (c) => c.notNull())
      .addColumn("order_id", "text", (c) => c.notNull())
      .addColumn("resource", "text", (c) => c.notNull())
      .addColumn("volume", "text", (c) => c.notNull())
      .addColumn("duration", "text", (c) => c.notNull())
      .addColumn("target_address", "text", (c) => c.notNull())
      .addColumn("ends_at", "bigint", (c) => c.notNull())
      .addColumn("alert_at", "bigint", (c) => c.notNull())
      .addColumn("state", "text", (c) => c.notNull())
      .addColumn("created_at", "bigint", (c) => c.notNull())
      .addPrimaryKeyConstraint("rental_ends_pk", ["telegram_id", "order_id"])
      .execute();
    await db.schema.createIndex("rental_ends_due").on("rental_ends").columns(["state", "alert_at"]).execute();
    await db.schema
      .createTable("balance_watch")
      .addColumn("telegram_id", "bigint", (c) => c.primaryKey())
      .addColumn("next_check_at", "bigint", (c) => c.notNull())
      .addColumn("armed", "integer", (c) => c.notNull().defaultTo(1))
      .addColumn("crossings", "integer", (c) => c.notNull().defaultTo(0))
      .addColumn("alerted_balance_sun", "text")
      .addColumn("checked_at", "bigint")
      .addColumn("active_rules", "text")
      .addColumn("rules_read_at", "bigint")
      .addColumn("per_day_sun", "text")
      .execute();
    await db.schema
      .createTable("delivery_marks")
      .addColumn("telegram_id", "bigint", (c) => c.notNull())
      .addColumn("rule_id", "text", (c) => c.notNull())
      .addColumn("seen_until", "bigint", (c) => c.notNull())
      .addColumn("updated_at", "bigint", (c) => c.notNull())
      .addPrimaryKeyConstraint("delivery_marks_pk", ["telegram_id", "rule_id"])
      .execute();
  },
  async down(db: Kysely<unknown>) {
    for (const table of ["delivery_marks", "balance_watch", "rental_ends", "bot_spends", "guard_settings"])
      await db.schema.dropTable(table).ifExists().execute();
  },
};
