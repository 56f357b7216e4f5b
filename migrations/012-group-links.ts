import type { Kysely, Migration } from "kysely";
import { sql } from "kysely";

/**
 * Team alerts: a user's link to one group (or supergroup) their chosen alerts are copied into,
 * with the owner's first name as the copies show it and one switch per kind of alert.
 *
 * A partial unique index keeps one alert per event in each group (chat ids below zero): two
 * members whose events coincide (one order seen by two linked keys) put one message there.
 */
export const groupLinks: Migration = {
  async up(db: Kysely<unknown>) {
    await db.schema
      .createTable("group_links")
      .addColumn("telegram_id", "bigint", (c) => c.primaryKey())
      .addColumn("group_chat_id", "bigint", (c) => c.notNull())
      .addColumn("group_title", "text", (c) => c.notNull())
      .addColumn("owner_name", "text", (c) => c.notNull())
      .addColumn("copy_filled", "integer", (c) => c.notNull().defaultTo(1))
      .addColumn("copy_failed", "integer", (c) => c.notNull().defaultTo(1))
      .addColumn("copy_paused", "integer", (c) => c.notNull().defaultTo(1))
      .addColumn("copy_prices", "integer", (c) => c.notNull().defaultTo(1))
      .addColumn("copy_other", "integer", (c) => c.notNull().defaultTo(1))
      .addColumn("linked_at", "bigint", (c) => c.notNull())
      .execute();
    await db.schema.createIndex("group_links_group").on("group_links").columns(["group_chat_id"]).execute();
    await db.schema
      .createIndex("outbox_group_dedupe")
      .on("outbox")
      .columns(["chat_id", "dedupe_key"])
      .unique()
      .where(sql.ref("chat_id"), "<", 0)
      .execute();
  },
  async down(db: Kysely<unknown>) {
    await db.schema.dropIndex("outbox_group_dedupe").ifExists().execute();
    await db.schema.dropTable("group_links").ifExists().execute();
  },
};
