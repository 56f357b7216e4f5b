import type { Kysely, Selectable, Transaction } from "kysely";
import type { Database, UsersTable } from "../schema";
import { dropQueuedAlerts } from "./outbox";
import type { Credential } from "./credentials";
import { storedConversation, type StoredConversation } from "./conversations";
import { prepared, type ParamFn } from "../prepared";

export type User = Selectable<UsersTable>;
export type AlertKind = "orders" | "rules" | "deposits" | "other" | "prices";

const upsertUserQuery = prepared((db: Kysely<Database>, param: ParamFn<{ telegramId: number; chatId: number; now: number }>) =>
  db
    .insertInto("users")
    .values({ telegram_id: param("telegramId"), chat_id: param("chatId"), language: null, alert_orders: 1, alert_rules: 1, alert_deposits: 1, alert_other: 1, active: 1, created_at: param("now"), updated_at: param("now") })
    .onConflict((oc) => oc.column("telegram_id").doUpdateSet({ chat_id: param("chatId"), active: 1, updated_at: param("now") }))
    .returningAll(),
);

/** Creates the user on first contact, refreshes the chat id and re-activates a user who blocked and came back. */
export async function upsertUser(db: Kysely<Database>, telegramId: number, chatId: number, now: number): Promise<User> {
  const [row] = (await upsertUserQuery(db, { telegramId, chatId, now })).rows;
  if (!row) throw new Error("the user upsert returned no row");
  return row;
}

/** A user's row with what an update of their chat reads next: their key, the chat's guided flow, and whether the key step waits. */
export interface UserWithState {
  user: User;
  credential: Credential | null;
  conversation: StoredConversation | null;
  keyStep: boolean;
}

const userWithStateQuery = prepared((db: Kysely<Database>, param: ParamFn<{ telegramId: number; chatId: number }>) =>
  db
    .selectFrom("users")
    .leftJoin("credentials", "credentials.telegram_id", "users.telegram_id")
    .leftJoin("conversations", (join) => join.on("conversations.chat_id", "=", param("chatId")))
    .selectAll("users")
    .select([
      "credentials.key_id as credential_key_id",
      "credentials.ciphertext as credential_ciphertext",
      "credentials.last4 as credential_last4",
      "credentials.broken_at as credential_broken_at",
      "credentials.broken_notified as credential_broken_notified",
      "credentials.linked_at as credential_linked_at",
      "conversations.flow as conversation_flow",
      "conversations.step as conversation_step",
      "conversations.state as conversation_state",
      "conversations.updated_at as conversation_updated_at",
    ])
    .select((eb) => eb.exists(eb.selectFrom("flows").select("flows.telegram_id").whereRef("flows.telegram_id", "=", "users.telegram_id")).as("key_step"))
    .where("users.telegram_id", "=", param("telegramId")),
);

/**
 * The user's row, their stored key, their chat's guided flow and whether the /connect key step
 * waits, in one indexed read: every update needs the user, and most of them the other three,
 * which would otherwise be three more statements per update. Compiled once (it runs on every update).
 */
export async function findUserWithState(db: Kysely<Database>, telegramId: number, chatId: number): Promise<UserWithState | undefined> {
  const [row] = (await userWithStateQuery(db, { telegramId, chatId })).rows;
  if (!row) return undefined;
  // The user's columns picked one by one (the type names them all): an object rest over the joined
  // row's 26 columns was the largest piece of JS in an update's read of its user.
  const user: User = {
    telegram_id: row.telegram_id,
    chat_id: row.chat_id,
    language: row.language,
    alert_orders: row.alert_orders,
    alert_rules: row.alert_rules,
    alert_deposits: row.alert_deposits,
    alert_other: row.alert_other,
    active: row.active,
    created_at: row.created_at,
    updated_at: row.updated_at,
    digest_enabled: row.digest_enabled,
    digest_time_zone: row.digest_time_zone,
    digest_week: row.digest_week,
    alert_prices: row.alert_prices,
    menu_language: row.menu_language,
  };
  const { credential_key_id: keyId, credential_ciphertext: ciphertext, credential_last4: last4, credential_broken_at: brokenAt, credential_broken_notified: brokenNotified, credential_linked_at: linkedAt } = row;
  const { conversation_flow: flow, conversation_step: step, conversation_state: state, conversation_updated_at: updatedAt } = row;
  return {
    user,
    credential: keyId === null || ciphertext === null || last4 === null || brokenNotified === null || linkedAt === null ? null : { telegram_id: user.telegram_id, key_id: keyId, ciphertext, last4, broken_at: brokenAt, broken_notified: brokenNotified, linked_at: linkedAt },
    conversation: flow === null || step === null || state === null || updatedAt === null ? null : storedConversation({ flow, step, state, updated_at: updatedAt }),
    // SQLite answers 0 or 1, PostgreSQL a boolean.
    keyStep: Boolean(Number(row.key_step)),
  };
}

export async function findUser(db: Kysely<Database>, telegramId: number): Promise<User | undefined> {
  return db.selectFrom("users").selectAll().where("telegram_id", "=", telegramId).executeTakeFirst();
}

export async function setUserLanguage(db: Kysely<Database>, telegramId: number, language: string | null, now: number): Promise<void> {
  await db.updateTable("users").set({ language, updated_at: now }).where("telegram_id", "=", telegramId).execute();
}

const ALERT_COLUMNS = { orders: "alert_orders", rules: "alert_rules", deposits: "alert_deposits", other: "alert_other", prices: "alert_prices" } as const;

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
    await dropQueuedAlerts(trx, telegramId, "user blocked the bot");
  });
}

/** The weekly digest settings as /settings changes them; `week` marks the last Monday already behind the user. */
export async function setDigestPreference(
  db: Kysely<Database>,
  telegramId: number,
  change: { enabled?: boolean; timeZone?: string; week: string },
  now: number,
): Promise<void> {
  await db
    .updateTable("users")
    .set({
      ...(change.enabled === undefined ? {} : { digest_enabled: change.enabled ? 1 : 0 }),
      ...(change.timeZone === undefined ? {} : { digest_time_zone: change.timeZone }),
      digest_week: change.week,
      updated_at: now,
    })
    .where("telegram_id", "=", telegramId)
    .execute();
}

/** Active users with a working linked key whose digest in `timeZone` was not yet queued for `week` (a local Monday date). */
export async function usersDueForDigest(db: Kysely<Database>, timeZone: string, week: string, limit: number): Promise<Array<{ telegram_id: number; chat_id: number }>> {
  const rows = await db
    .selectFrom("users")
    .select(["users.telegram_id", "users.chat_id"])
    .where("users.digest_enabled", "=", 1)
    .where("users.digest_time_zone", "=", timeZone)
    .where("users.active", "=", 1)
    .where((eb) => eb.or([eb("users.digest_week", "is", null), eb("users.digest_week", "<", week)]))
    .where((eb) => eb.exists(eb.selectFrom("credentials").select("credentials.telegram_id").whereRef("credentials.telegram_id", "=", "users.telegram_id").where("credentials.broken_at", "is", null)))
    .orderBy("users.telegram_id")
    .limit(limit)
    .execute();
  return rows.map((row) => ({ telegram_id: Number(row.telegram_id), chat_id: Number(row.chat_id) }));
}

/** Records that `week`'s digest was queued (or skipped) for the user; call in the transaction that queues it. */
export async function markDigestWeek(db: Kysely<Database> | Transaction<Database>, telegramId: number, week: string): Promise<void> {
  await db.updateTable("users").set({ digest_week: week }).where("telegram_id", "=", telegramId).execute();
}
