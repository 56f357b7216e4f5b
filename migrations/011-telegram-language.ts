import type { Kysely, Migration } from "kysely";

/**
 * The language the bot picked from the user's Telegram app (en, ru or zh), kept for the alerts and
 * digests it sends without an update to read it from, while the user has chosen none in
 * /settings. Null: none recorded yet, read as English (as every user's alerts were before).
 */
export const telegramLanguage: Migration = {
  async up(db: Kysely<unknown>) {
    await db.schema.alterTable("users").addColumn("telegram_language", "text").execute();
  },
  async down(db: Kysely<unknown>) {
    await db.schema.alterTable("users").dropColumn("telegram_language").execute();
  },
};
