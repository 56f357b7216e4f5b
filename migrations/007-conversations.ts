import type { Kysely, Migration } from "kysely";

/**
 * Guided flows run on @grammyjs/conversations; their state (the plugin's replay log, versioned)
 * is one row per chat here, so a restart or another replica resumes a flow at the same step.
 * `flow` and `step` name where the user is, for support and retention; `state` is the plugin's.
 */
export const conversations: Migration = {
  async up(db: Kysely<unknown>) {
    await db.schema
      .createTable("conversations")
      .addColumn("chat_id", "bigint", (c) => c.primaryKey())
      .addColumn("flow", "text", (c) => c.notNull())
      .addColumn("step", "text", (c) => c.notNull().defaultTo(""))
      .addColumn("state", "text", (c) => c.notNull())
      .addColumn("updated_at", "bigint", (c) => c.notNull())
      .execute();
    await db.schema.createIndex("conversations_age").on("conversations").column("updated_at").execute();
  },
  async down(db: Kysely<unknown>) {
    await db.schema.dropTable("conversations").ifExists().execute();
  },
};
