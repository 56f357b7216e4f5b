import type { Kysely, Selectable } from "kysely";
import type { Database, UsersTable } from "../schema";

export type User = Selectable<UsersTable>;
export type AlertKind = "orders" | "rules" | "deposits" | "other";

/** Creates the user on first contact, refreshes the chat id and re-activates a user who blocked and came back. */
export async function upsertUser(db: Kysely<Database>, telegramId: number, chatId: number, now: number): Promise<User> {
  await db
    .insertInto("users")
    .values({ telegram_id: telegramId, chat_id: chatId, language: null, alert_orders: 1, alert_rules: 1, alert_deposits: 1, alert_other: 1, active: 1, created_at: now, updated_at: now })
    .onConflict((oc) => oc.column("telegram_id").doUpdateSet({ chat_id: chatId, active: 1, updated_at: now }))
    .execute();
  return (await findUser(db, telegramId))!;
}

export async function findUser(db: Kysely<Database>, telegramId: number): Promise<User | undefined> {
  return db.selectFrom("users").selectAll().where("telegram_id", "=", telegramId).executeTakeFirst();
}

export async function setUserLanguage(db: Kysely<Database>, telegramId: number, language: string | null, now: number): Promise<void> {
  await db.updateTable("users").set({ language, updated_at: now }).where("telegram_id", "=", telegramId).execute();
}

const ALERT_COLUMNS = { orders: "alert_orders", rules: "alert_rules", deposits: "alert_deposits", other: "alert_other" } as const;

export function alertEnabled(user: User, kind: AlertKind): boolean {
  return user[ALERT_COLUMNS[kind]] === 1;
}

export async function toggleAlert(db: Kysely<Database>, telegramId: number, kind: AlertKind, now: number): Promise<void> {
  const user = await findUser(db, telegramId);
  if (!user) return;
  const column = ALERT_COLUMNS[kind];
  await db.updateTable("users").set({ [column]: user[column] === 1 ? 0 : 1, updated_at: now }).where("telegram_id", "=", telegramId).execute();
}

/** The user blocked the bot: stop pushing to them and drop what was queued (the key stays). */
export async function markUserInactive(db: Kysely<Database>, telegramId: number, now: number): Promise<void> {
  await db.transaction().execute(async (trx) => {
    await trx.updateTable("users").set({ active: 0, updated_at: now }).where("telegram_id", "=", telegramId).execute();
    await trx.updateTable("outbox").set({ status: "dropped", last_error: "user blocked the bot" }).where("telegram_id", "=", telegramId).where("status", "=", "queued").execute();
  });
}
