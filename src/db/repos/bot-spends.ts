/**
 * What was bought through the bot, per UTC day: the daily cap's count (src/spend-guard). Amounts
 * are sun, as decimal strings in the table and bigint here.
 */
import type { Kysely, Transaction } from "kysely";
import type { Database } from "../schema";
import { isPostgres } from "../dialect";
import { findGuardSettings } from "./guard-settings";
import { deleteChunk } from "../chunked-delete";

type Db = Kysely<Database> | Transaction<Database>;

/** The sum of a user's spends counted for `day`, leaving out the spend `except` (its own retry). */
export async function spentOnDay(db: Db, telegramId: number, day: string, except?: string): Promise<bigint> {
  const rows = await db
    .selectFrom("bot_spends")
    .select(["id", "total_sun"])
    .where("telegram_id", "=", telegramId)
    .where("day", "=", day)
    .execute();
  return rows.reduce((sum, row) => (row.id === except ? sum : sum + BigInt(row.total_sun)), 0n);
}

/** What a reservation found: the day's spends before it, the cap in force, and whether it was made. */
export interface Reservation {
  reserved: boolean;
  spentSun: bigint;
  capSun: bigint | null;
}

/**
 * Reserves `totalSun` for the spend `id` on `day`, unless the user's daily cap would be passed.
 * One transaction: the user's settings row is locked first on PostgreSQL (SQLite runs one
 * transaction at a time), so two spends of one user checked at once cannot both pass the cap.
 * A spend already reserved (a retry of the same card) stays reserved, whatever the cap says now.
 */
export async function reserveSpend(
  db: Kysely<Database>,
  spend: { id: string; telegramId: number; day: string; totalSun: bigint; now: number },
): Promise<Reservation> {
  return db.transaction().execute(async (trx) => {
    const settings = await findGuardSettings(trx, spend.telegramId, isPostgres(db));
    const existing = await trx.selectFrom("bot_spends").select("id").where("id", "=", spend.id).executeTakeFirst();
    const spentSun = await spentOnDay(trx, spend.telegramId, spend.day, spend.id);
    const capSun = settings.dailyCapSun;
    if (existing) return { reserved: true, spentSun, capSun };
    if (capSun !== null && spentSun + spend.totalSun > capSun) return { reserved: false, spentSun, capSun };
    await trx
      .insertInto("bot_spends")
      .values({
        id: spend.id,
        telegram_id: spend.telegramId,
        day: spend.day,
        total_sun: spend.totalSun.toString(),
        state: "reserved",
        order_id: null,
        created_at: spend.now,
      })
      .execute();
    return { reserved: true, spentSun, capSun };
  });
}

/** The spend went through: its row holds the order's own total from now on. */
export async function markSpent(db: Db, id: string, totalSun: bigint, orderId: string): Promise<void> {
  await db
    .updateTable("bot_spends")
    .set({ total_sun: totalSun.toString(), state: "spent", order_id: orderId })
    .where("id", "=", id)
    .execute();
}

/** The spend certainly did not happen (refused, failed before charging): it no longer counts. */
export async function releaseSpend(db: Db, id: string): Promise<void> {
  await db.deleteFrom("bot_spends").where("id", "=", id).where("state", "=", "reserved").execute();
}

/** Deletes up to `limit` spends of days before `day` (retention: the cap counts today only). */
export async function deleteSpendsBefore(db: Kysely<Database>, day: string, limit: number): Promise<number> {
  return deleteChunk(db, "bot_spends", "id", limit, (eb) => eb("day", "<", day));
}
