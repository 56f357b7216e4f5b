import type { Kysely, Migration } from "kysely";

/**
 * /connect attempts, one row each, so the hourly cap per user holds across restarts and is shared
 * by every replica (it lived in process memory before). Rows older than the window are pruned.
 */
export const connectAttempts: Migration = {
  async up(db: Kysely<unknown>) {
    await db.schema
      .createTable("connect_attempts")
      .addColumn("id", "text", (c) => c.primaryKey())
      .addColumn("telegram_id", "bigint", (c) => c.notNull())
      .addColumn("attempted_at", "bigint", (c) => c.notNull())
      .execute();
    await db.schema
      .createIndex("connect_attempts_user")
      .on("connect_attempts")
      .columns(["telegram_id", "attempted_at"])
      .execute();
    await db.schema.createIndex("connect_attempts_age").on("connect_attempts").column("attempted_at").execute();
  },
  async down(db: Kysely<unknown>) {
    await db.schema.dropTable("connect_attempts").ifExists().execute();
  },
};
