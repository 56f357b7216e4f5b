import type { Kysely, Migration } from "kysely";

/**
 * The language of the command menu set for a user's own chat (`setMyCommands` with the chat's
 * scope), so the menu follows the language chosen in /settings. Users who chose a language before
 * this existed have none recorded: their menu is set at their next update.
 */
export const commandMenu: Migration = {
  async up(db: Kysely<unknown>) {
    await db.schema.alterTable("users").addColumn("menu_language", "text").execute();
  },
  async down(db: Kysely<unknown>) {
    await db.schema.alterTable("users").dropColumn("menu_language").execute();
  },
};
