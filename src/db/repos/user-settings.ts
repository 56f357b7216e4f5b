/** The user's settings: languages, which alerts they get, and the weekly digest. */
import type { Kysely, Transaction } from "kysely";
import type { Database } from "../schema";
import { findUser, type User } from "./user-row";

export type AlertKind = "orders" | "rules" | "deposits" | "other" | "prices";

/** Records the language picked from the user's Telegram app (read by alerts while they chose none). */
export async function setTelegramLanguage(db: Kysely<Database>, telegramId: number, language: string): Promise<void> {
  await db.updateTable("users").set({ telegram_language: language }).where("telegram_id", "=", telegramId).execute();
}

export async function setUserLanguage(
  db: Kysely<Database>,
  telegramId: number,
  language: string | null,
  now: number,
): Promise<void> {
  await db.updateTable("users").set({ language, updated_at: now }).where("telegram_id", "=", telegramId).execute();
}

const ALERT_COLUMNS = {
  orders: "alert_orders",
  rules: "alert_rules",
  deposits: "alert_deposits",
  other: "alert_other",
  prices: "alert_prices",
} as const;

export function alertEnabled(user: User, kind: AlertKind): boolean {
  return user[ALERT_COLUMNS[kind]] === 1;
}

export async function toggleAlert(
  db: Kysely<Database>,
  telegramId: number,
  kind: AlertKind,
  now: number,
): Promise<void> {
  const user = await findUser(db, telegramId);
  if (!user) return;
  const column = ALERT_COLUMNS[kind];
  await db
    .updateTable("users")
    .set({ [column]: user[column] === 1 ? 0 : 1, updated_at: now })
    .where("telegram_id", "=", telegramId)
    .execute();
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
export async function usersDueForDigest(
  db: Kysely<Database>,
  timeZone: string,
  week: string,
  limit: number,
): Promise<Array<{ telegram_id: number; chat_id: number }>> {
  const rows = await db
    .selectFrom("users")
    .select(["users.telegram_id", "users.chat_id"])
    .where("users.digest_enabled", "=", 1)
    .where("users.digest_time_zone", "=", timeZone)
    .where("users.active", "=", 1)
    .where((eb) => eb.or([eb("users.digest_week", "is", null), eb("users.digest_week", "<", week)]))
    .where((eb) =>
      eb.exists(
        eb
          .selectFrom("credentials")
          .select("credentials.telegram_id")
          .whereRef("credentials.telegram_id", "=", "users.telegram_id")
          .where("credentials.broken_at", "is", null),
      ),
    )
    .orderBy("users.telegram_id")
    .limit(limit)
    .execute();
  return rows.map((row) => ({ telegram_id: Number(row.telegram_id), chat_id: Number(row.chat_id) }));
}

/** Records that `week`'s digest was queued (or skipped) for the user; call in the transaction that queues it. */
export async function markDigestWeek(
  db: Kysely<Database> | Transaction<Database>,
  telegramId: number,
  week: string,
): Promise<void> {
  await db.updateTable("users").set({ digest_week: week }).where("telegram_id", "=", telegramId).execute();
}
