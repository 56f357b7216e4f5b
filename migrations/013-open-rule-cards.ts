import type { Kysely, Migration } from "kysely";

/**
 * The rule cards open in each chat, as the bot last sent or edited them, so a Pause or Resume on
 * the dashboard redraws the chat's card whichever replica serves it, and after a restart. One row
 * per message; a chat keeps its last 20 (the repository trims on each write) and retention deletes
 * a card 30 days after it was last drawn (by then its buttons' references may be gone).
 */
export const openRuleCards: Migration = {
  async up(db: Kysely<unknown>) {
    await db.schema
      .createTable("open_rule_cards")
      .addColumn("chat_id", "bigint", (c) => c.notNull())
      .addColumn("message_id", "bigint", (c) => c.notNull())
      .addColumn("rule_ref", "text", (c) => c.notNull())
      .addColumn("payload", "text", (c) => c.notNull())
      .addColumn("text", "text", (c) => c.notNull())
      .addColumn("keyboard", "text", (c) => c.notNull())
      .addColumn("drawn_at", "bigint", (c) => c.notNull())
      .addPrimaryKeyConstraint("open_rule_cards_pk", ["chat_id", "message_id"])
      .execute();
    await db.schema.createIndex("open_rule_cards_age").on("open_rule_cards").column("drawn_at").execute();
  },
  async down(db: Kysely<unknown>) {
    await db.schema.dropTable("open_rule_cards").ifExists().execute();
  },
};
