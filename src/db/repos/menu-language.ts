import type { Kysely } from "kysely";
import type { Database } from "../schema";

/** Records the language a user's per-chat command menu was last set in, so it is set again only when the choice changes. */
export async function setMenuLanguage(db: Kysely<Database>, telegramId: number, language: string): Promise<void> {
  await db.updateTable("users").set({ menu_language: language }).where("telegram_id", "=", telegramId).execute();
}
