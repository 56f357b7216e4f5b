import type { Kysely, Migration } from "kysely";
import { isPostgres } from "#src/db/dialect";

/**
 * The first schema. Column types are dialect-neutral (bigint for ids and times, text for money);
 * the one difference is the outbox's generated id: INTEGER PRIMARY KEY AUTOINCREMENT on SQLite,
 * an identity bigint on PostgreSQL.
 */
export const initial: Migration = {
  async up(db: Kysely<unknown>) {
    const pg = isPostgres(db);
    await db.schema
      .createTable("users")
      .addColumn("telegram_id", "bigint", (c) => c.primaryKey())
      .addColumn("chat_id", "bigint", (c) => c.notNull())
      .addColumn("language", "text")
      .addColumn("alert_orders", "integer", (c) => c.notNull().defaultTo(1))
      .addColumn("alert_rules", "integer", (c) => c.notNull().defaultTo(1))
      .addColumn("alert_deposits", "integer", (c) => c.notNull().defaultTo(1))
      .addColumn("alert_other", "integer", (c) => c.notNull().defaultTo(1))
      .addColumn("active", "integer", (c) => c.notNull().defaultTo(1))
      .addColumn("created_at", "bigint", (c) => c.notNull())
      .addColumn("updated_at", "bigint", (c) => c.notNull())
      .execute();

    await db.schema
      .createTable("credentials")
      .addColumn("telegram_id", "bigint", (c) => c.primaryKey().references("users.telegram_id").onDelete("cascade"))
      .addColumn("key_id", "text", (c) => c.notNull())
      .addColumn("ciphertext", "text", (c) => c.notNull())
      .addColumn("last4", "text", (c) => c.notNull())
      .addColumn("broken_at", "bigint")
      .addColumn("broken_notified", "integer", (c) => c.notNull().defaultTo(0))
      .addColumn("linked_at", "bigint", (c) => c.notNull())
      .execute();

    await db.schema
      .createTable("webhook_tokens")
      .addColumn("telegram_id", "bigint", (c) => c.primaryKey().references("users.telegram_id").onDelete("cascade"))
      .addColumn("token_hash", "text", (c) => c.notNull().unique())
      .addColumn("created_at", "bigint", (c) => c.notNull())
      .execute();

    await db.schema
      .createTable("addresses")
      .addColumn("telegram_id", "bigint", (c) => c.notNull().references("users.telegram_id").onDelete("cascade"))
      .addColumn("address", "text", (c) => c.notNull())
      .addColumn("label", "text")
      .addColumn("last_used_at", "bigint", (c) => c.notNull())
      .addPrimaryKeyConstraint("addresses_pk", ["telegram_id", "address"])
      .execute();

    await db.schema
      .createTable("flows")
      .addColumn("telegram_id", "bigint", (c) => c.primaryKey().references("users.telegram_id").onDelete("cascade"))
      .addColumn("flow", "text", (c) => c.notNull())
      .addColumn("step", "text", (c) => c.notNull())
      .addColumn("data", "text", (c) => c.notNull())
      .addColumn("version", "integer", (c) => c.notNull())
      .addColumn("updated_at", "bigint", (c) => c.notNull())
      .execute();

    await db.schema
      .createTable("pending_actions")
      .addColumn("id", "text", (c) => c.primaryKey())
      .addColumn("telegram_id", "bigint", (c) => c.notNull().references("users.telegram_id").onDelete("cascade"))
      .addColumn("kind", "text", (c) => c.notNull())
      .addColumn("payload", "text", (c) => c.notNull())
      .addColumn("idempotency_key", "text", (c) => c.notNull().unique())
      .addColumn("state", "text", (c) => c.notNull())
      .addColumn("result", "text")
      .addColumn("chat_id", "bigint", (c) => c.notNull())
      .addColumn("message_id", "bigint")
      .addColumn("created_at", "bigint", (c) => c.notNull())
      .addColumn("updated_at", "bigint", (c) => c.notNull())
      .execute();
    await db.schema
      .createIndex("pending_actions_user")
      .on("pending_actions")
      .columns(["telegram_id", "created_at"])
      .execute();

    await db.schema
      .createTable("callback_refs")
      .addColumn("id", "text", (c) => c.primaryKey())
      .addColumn("telegram_id", "bigint", (c) => c.notNull().references("users.telegram_id").onDelete("cascade"))
      .addColumn("value", "text", (c) => c.notNull())
      .addColumn("created_at", "bigint", (c) => c.notNull())
      .execute();
    await db.schema
      .createIndex("callback_refs_value")
      .on("callback_refs")
      .columns(["telegram_id", "value"])
      .unique()
      .execute();

    await db.schema
      .createTable("outbox")
      .addColumn("id", pg ? "bigint" : "integer", (c) =>
        pg ? c.primaryKey().generatedByDefaultAsIdentity() : c.primaryKey().autoIncrement(),
      )
      .addColumn("telegram_id", "bigint", (c) => c.notNull())
      .addColumn("chat_id", "bigint", (c) => c.notNull())
      .addColumn("dedupe_key", "text", (c) => c.notNull())
      .addColumn("payload", "text", (c) => c.notNull())
      .addColumn("status", "text", (c) => c.notNull())
      .addColumn("attempts", "integer", (c) => c.notNull().defaultTo(0))
      .addColumn("next_attempt_at", "bigint", (c) => c.notNull())
      .addColumn("last_error", "text")
      .addColumn("lease_owner", "text")
      .addColumn("lease_until", "bigint")
      .addColumn("created_at", "bigint", (c) => c.notNull())
      .addColumn("sent_at", "bigint")
      .execute();
    await db.schema.createIndex("outbox_dedupe").on("outbox").columns(["telegram_id", "dedupe_key"]).unique().execute();
    await db.schema.createIndex("outbox_due").on("outbox").columns(["status", "next_attempt_at"]).execute();
    await db.schema.createIndex("outbox_chat").on("outbox").columns(["chat_id", "status", "id"]).execute();

    await db.schema
      .createTable("webhook_events")
      .addColumn("dedupe_key", "text", (c) => c.primaryKey())
      .addColumn("received_at", "bigint", (c) => c.notNull())
      .execute();
    await db.schema.createIndex("webhook_events_age").on("webhook_events").column("received_at").execute();

    await db.schema
      .createTable("seen_notifications")
      .addColumn("telegram_id", "bigint", (c) => c.notNull().references("users.telegram_id").onDelete("cascade"))
      .addColumn("notification_id", "text", (c) => c.notNull())
      .addColumn("seen_at", "bigint", (c) => c.notNull())
      .addPrimaryKeyConstraint("seen_notifications_pk", ["telegram_id", "notification_id"])
      .execute();

    await db.schema
      .createTable("poll_state")
      .addColumn("telegram_id", "bigint", (c) => c.primaryKey().references("users.telegram_id").onDelete("cascade"))
      .addColumn("primed", "integer", (c) => c.notNull().defaultTo(0))
      .addColumn("failures", "integer", (c) => c.notNull().defaultTo(0))
      .addColumn("next_poll_at", "bigint", (c) => c.notNull())
      .execute();

    await db.schema
      .createTable("followed_orders")
      .addColumn("order_id", "text", (c) => c.primaryKey())
      .addColumn("telegram_id", "bigint", (c) => c.notNull().references("users.telegram_id").onDelete("cascade"))
      .addColumn("attempts", "integer", (c) => c.notNull().defaultTo(0))
      .addColumn("next_check_at", "bigint", (c) => c.notNull())
      .addColumn("done", "integer", (c) => c.notNull().defaultTo(0))
      .addColumn("created_at", "bigint", (c) => c.notNull())
      .execute();
    await db.schema
      .createIndex("followed_orders_due")
      .on("followed_orders")
      .columns(["done", "next_check_at"])
      .execute();
  },
  async down(db: Kysely<unknown>) {
    for (const table of [
      "followed_orders",
      "poll_state",
      "seen_notifications",
      "webhook_events",
      "outbox",
      "callback_refs",
      "pending_actions",
      "flows",
      "addresses",
      "webhook_tokens",
      "credentials",
      "users",
    ]) {
      await db.schema.dropTable(table).ifExists().execute();
    }
  },
};
