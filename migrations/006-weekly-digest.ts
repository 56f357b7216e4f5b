import type { Kysely, Migration } from "kysely";

/**
 * The opt-in weekly digest: off by default, in a time zone the user picks (UTC until they do),
 * and the local date of the last Monday whose digest was queued, so a restart or a second
 * replica never queues the same week twice (the outbox's dedupe key is the second guard).
 */
export const weeklyDigest: Migration = {
  async up(db: Kysely<unknown>) {
    await db.schema
      .alterTable("users")
      .addColumn("digest_enabled", "integer", (c) => c.notNull().defaultTo(0))
      .execute();
    await db.schema
      .alterTable("users")
      .addColumn("digest_time_zone", "text", (c) => c.notNull().defaultTo("UTC"))
      .execute();
    await db.schema.alterTable("users").addColumn("digest_week", "text").execute();
    await db.schema
      .createIndex("users_digest_due")
      .on("users")
      .columns(["digest_enabled", "digest_time_zone", "digest_week"])
      .execute();
  },
  async down(db: Kysely<unknown>) {
    await db.schema.dropIndex("users_digest_due").ifExists().execute();
    for (const column of ["digest_week", "digest_time_zone", "digest_enabled"])
      await db.schema.alterTable("users").dropColumn(column).execute();
  },
};
