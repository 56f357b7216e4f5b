import type { Kysely, Migration } from "kysely";

/**
 * Scale-out: the state several replicas share. Leases on the poll and follow queues, poll cycles,
 * named lease rows (polling leader, cron jobs), the shared Telegram send budget (global per-slot
 * counters and per-chat spacing) and the per-chat turn of Telegram updates in webhook mode.
 */
export const scaleOut: Migration = {
  async up(db: Kysely<unknown>) {
    await db.schema
      .alterTable("poll_state")
      .addColumn("last_cycle", "bigint", (c) => c.notNull().defaultTo(0))
      .execute();
    await db.schema.alterTable("poll_state").addColumn("lease_owner", "text").execute();
    await db.schema.alterTable("poll_state").addColumn("lease_until", "bigint").execute();
    await db.schema.createIndex("poll_state_due").on("poll_state").columns(["last_cycle", "next_poll_at"]).execute();

    await db.schema.alterTable("followed_orders").addColumn("lease_owner", "text").execute();
    await db.schema.alterTable("followed_orders").addColumn("lease_until", "bigint").execute();

    await db.schema
      .createTable("poll_cycles")
      .addColumn("id", "bigint", (c) => c.primaryKey())
      .addColumn("opened_by", "text", (c) => c.notNull())
      .addColumn("opened_at", "bigint", (c) => c.notNull())
      .execute();

    await db.schema
      .createTable("leases")
      .addColumn("name", "text", (c) => c.primaryKey())
      .addColumn("owner", "text", (c) => c.notNull())
      .addColumn("lease_until", "bigint", (c) => c.notNull())
      .addColumn("acquired_at", "bigint", (c) => c.notNull())
      .execute();

    await db.schema
      .createTable("send_budget")
      .addColumn("name", "text", (c) => c.primaryKey())
      .addColumn("tokens_milli", "bigint", (c) => c.notNull())
      .addColumn("updated_at", "bigint", (c) => c.notNull())
      .execute();

    await db.schema
      .createTable("chat_send")
      .addColumn("chat_id", "bigint", (c) => c.primaryKey())
      .addColumn("next_send_at", "bigint", (c) => c.notNull())
      .execute();

    await db.schema
      .createTable("telegram_updates")
      .addColumn("update_id", "bigint", (c) => c.primaryKey())
      .addColumn("chat_id", "bigint", (c) => c.notNull())
      .addColumn("owner", "text", (c) => c.notNull())
      .addColumn("lease_until", "bigint", (c) => c.notNull())
      .addColumn("done", "integer", (c) => c.notNull().defaultTo(0))
      .addColumn("received_at", "bigint", (c) => c.notNull())
      .execute();
    await db.schema
      .createIndex("telegram_updates_turn")
      .on("telegram_updates")
      .columns(["chat_id", "done", "update_id"])
      .execute();
    await db.schema.createIndex("telegram_updates_age").on("telegram_updates").column("received_at").execute();
  },
  async down(db: Kysely<unknown>) {
    for (const table of ["telegram_updates", "chat_send", "send_budget", "leases", "poll_cycles"])
      await db.schema.dropTable(table).ifExists().execute();
    await db.schema.dropIndex("poll_state_due").ifExists().execute();
    for (const column of ["last_cycle", "lease_owner", "lease_until"])
      await db.schema.alterTable("poll_state").dropColumn(column).execute();
    for (const column of ["lease_owner", "lease_until"])
      await db.schema.alterTable("followed_orders").dropColumn(column).execute();
  },
};
