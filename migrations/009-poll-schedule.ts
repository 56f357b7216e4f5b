import type { Kysely, Migration } from "kysely";

/**
 * Polling that follows activity. Each user's poll state records why they are on the fast
 * schedule (`motion`: rule, order or deposit; null: idle) and what that is computed from: an
 * active rule (with when the rule list was last read), a recent Confirm or order webhook, a recent
 * /topup or /wallet. `seen_until` is the creation time of the newest notification recorded as seen,
 * so one older than it is never taken for new.
 *
 * The due index leads with `next_poll_at`: most users are idle and not due, so a claim must reach
 * the due ones without passing them. Poll cycles opened on demand poll everyone (`everyone`).
 * Open followed orders are found per user, inside the poll's schedule update.
 *
 * Users already linked have their rules read at their next poll (`rules_checked_at` 0).
 */
export const pollSchedule: Migration = {
  async up(db: Kysely<unknown>) {
    await db.schema.alterTable("poll_state").addColumn("motion", "text").execute();
    await db.schema
      .alterTable("poll_state")
      .addColumn("rule_active", "integer", (c) => c.notNull().defaultTo(0))
      .execute();
    await db.schema
      .alterTable("poll_state")
      .addColumn("rules_checked_at", "bigint", (c) => c.notNull().defaultTo(0))
      .execute();
    await db.schema.alterTable("poll_state").addColumn("order_until", "bigint").execute();
    await db.schema.alterTable("poll_state").addColumn("deposit_until", "bigint").execute();
    await db.schema.alterTable("poll_state").addColumn("seen_until", "bigint").execute();
    await db.schema.dropIndex("poll_state_due").ifExists().execute();
    await db.schema.createIndex("poll_state_next").on("poll_state").columns(["next_poll_at", "last_cycle"]).execute();
    await db.schema
      .alterTable("poll_cycles")
      .addColumn("everyone", "integer", (c) => c.notNull().defaultTo(0))
      .execute();
    await db.schema
      .createIndex("followed_orders_user")
      .on("followed_orders")
      .columns(["telegram_id", "done"])
      .execute();
  },
  async down(db: Kysely<unknown>) {
    await db.schema.dropIndex("followed_orders_user").ifExists().execute();
    await db.schema.alterTable("poll_cycles").dropColumn("everyone").execute();
    await db.schema.dropIndex("poll_state_next").ifExists().execute();
    await db.schema.createIndex("poll_state_due").on("poll_state").columns(["last_cycle", "next_poll_at"]).execute();
    for (const column of ["seen_until", "deposit_until", "order_until", "rules_checked_at", "rule_active", "motion"])
      await db.schema.alterTable("poll_state").dropColumn(column).execute();
  },
};
