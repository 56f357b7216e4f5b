/** The user row: its first-contact insert, its reads, and what blocking the bot changes. */
import type { Kysely, QueryCreator, Selectable } from "kysely";
import type { Database, UsersTable } from "../schema";
import { dropQueuedAlerts } from "./outbox";
import { prepared, type ParamFn } from "../prepared";

export type User = Selectable<UsersTable>;

/** What a first contact stores besides its ids and times: active, every alert on, the language left to Telegram. */
export const NEW_USER = {
  language: null,
  alert_orders: 1,
  alert_rules: 1,
  alert_deposits: 1,
  alert_other: 1,
  active: 1,
} as const;

/** The row a first contact stores (NEW_USER for this user and chat). */
export function insertUserRow(
  db: QueryCreator<Database>,
  param: ParamFn<{ telegramId: number; chatId: number; now: number }>,
) {
  return db.insertInto("users").values({
    telegram_id: param("telegramId"),
    chat_id: param("chatId"),
    ...NEW_USER,
    created_at: param("now"),
    updated_at: param("now"),
  });
}

const upsertUserQuery = prepared(
  (db: Kysely<Database>, param: ParamFn<{ telegramId: number; chatId: number; now: number }>) =>
    insertUserRow(db, param)
      .onConflict((oc) =>
        oc.column("telegram_id").doUpdateSet({ chat_id: param("chatId"), active: 1, updated_at: param("now") }),
      )
      .returningAll(),
);

/** Creates the user on first contact, refreshes the chat id and re-activates a user who blocked and came back. */
export async function upsertUser(db: Kysely<Database>, telegramId: number, chatId: number, now: number): Promise<User> {
  const [row] = (await upsertUserQuery(db, { telegramId, chatId, now })).rows;
  if (!row) throw new Error("the user upsert returned no row");
  return row;
}

export async function findUser(db: Kysely<Database>, telegramId: number): Promise<User | undefined> {
  return db.selectFrom("users").selectAll().where("telegram_id", "=", telegramId).executeTakeFirst();
}

/**
 * The user blocked the bot: stop pushing to them and drop what was queued (the key stays), in one
 * transaction (the caller's, when it passes one). Returns how many queued alerts were dropped.
 */
export async function markUserInactive(db: Kysely<Database>, telegramId: number, now: number): Promise<number> {
  const run = async (trx: Kysely<Database>) => {
    await trx.updateTable("users").set({ active: 0, updated_at: now }).where("telegram_id", "=", telegramId).execute();
    return dropQueuedAlerts(trx, telegramId, "user blocked the bot");
  };
  return db.isTransaction ? run(db) : db.transaction().execute(run);
}
