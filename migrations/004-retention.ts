import { sql, type Kysely, type Migration } from "kysely";

/**
 * Retention: the indexes the retention job deletes by (so a pass reads only what it removes),
 * the time a callback reference last went out on a button (a reference handed out again today
 * must outlive one first made long ago), and the per-user update windows that hold the flood
 * limit across replicas on PostgreSQL.
 */
export const retention: Migration = {
  async up(db: Kysely<unknown>) {
    await db.schema
      .alterTable("callback_refs")
      .addColumn("issued_at", "bigint", (c) => c.notNull().defaultTo(0))
      .execute();
    await sql`update callback_refs set issued_at = created_at`.execute(db);
    await db.schema.createIndex("callback_refs_issued").on("callback_refs").column("issued_at").execute();
    await db.schema.createIndex("pending_actions_age").on("pending_actions").column("updated_at").execute();
    await db.schema.createIndex("outbox_settled").on("outbox").columns(["status", "sent_at"]).execute();
    await db.schema.createIndex("followed_orders_age").on("followed_orders").columns(["done", "created_at"]).execute();

    await db.schema
      .createTable("update_windows")
      .addColumn("telegram_id", "bigint", (c) => c.primaryKey())
      .addColumn("window_start", "bigint", (c) => c.notNull())
      .addColumn("updates", "integer", (c) => c.notNull())
      .execute();
    await db.schema.createIndex("update_windows_age").on("update_windows").column("window_start").execute();
  },
  async down(db: Kysely<unknown>) {
    await db.schema.dropTable("update_windows").ifExists().execute();
    for (const index of ["followed_orders_age", "outbox_settled", "pending_actions_age", "callback_refs_issued"])
      await db.schema.dropIndex(index).ifExists().execute();
    await db.schema.alterTable("callback_refs").dropColumn("issued_at").execute();
  },
};
