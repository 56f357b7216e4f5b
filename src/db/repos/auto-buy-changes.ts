import type { Kysely, Transaction } from "kysely";
import type { Database } from "../schema";
import { canResume, findAutoBuy, setAutoBuyStatus, setUserAutoBuysStatus } from "./auto-buys";

type Db = Kysely<Database> | Transaction<Database>;

// What the user changes: the Automatic buying switch, and an auto-buy's Pause, Resume and Stop
// (from the chat, an alert or the dashboard alike).

/** /settings' Automatic buying switch: on unless turned off. */
export async function autoBuyingEnabled(db: Db, telegramId: number): Promise<boolean> {
  const row = await db
    .selectFrom("auto_buy_switch")
    .select("enabled")
    .where("telegram_id", "=", telegramId)
    .executeTakeFirst();
  return row === undefined || Number(row.enabled) === 1;
}

/**
 * Turns Automatic buying on or off. Off pauses every auto-buy of the user that could buy (reason
 * "switch") in the same transaction; on resumes none: each waits for its own Resume. Returns the
 * auto-buys paused.
 */
export async function setAutoBuying(
  db: Kysely<Database>,
  telegramId: number,
  enabled: boolean,
  now: number,
): Promise<string[]> {
  return db.transaction().execute(async (trx) => {
    await trx
      .insertInto("auto_buy_switch")
      .values({ telegram_id: telegramId, enabled: enabled ? 1 : 0, changed_at: now })
      .onConflict((oc) => oc.column("telegram_id").doUpdateSet({ enabled: enabled ? 1 : 0, changed_at: now }))
      .execute();
    if (enabled) return [];
    return setUserAutoBuysStatus(trx, telegramId, ["active", "waiting"], "paused", "switch", now);
  });
}

/** What a user's Pause, Resume or Stop did. */
export type AutoBuyChange = "done" | "gone" | "unchanged" | "switch-off" | "no-key" | "ended";

/**
 * The user's Pause (from the chat, an alert or the dashboard): an auto-buy that buys or waits
 * stops buying until resumed.
 */
export async function pauseAutoBuy(
  db: Kysely<Database>,
  telegramId: number,
  id: string,
  now: number,
): Promise<AutoBuyChange> {
  const autoBuy = await findAutoBuy(db, telegramId, id);
  if (!autoBuy) return "gone";
  const changed = await setAutoBuyStatus(
    db,
    { id, telegramId, from: ["active", "waiting"], status: "paused", reason: "user" },
    now,
  );
  return changed ? "done" : "unchanged";
}

/**
 * The user's Resume: a paused or stopped auto-buy buys again, bound to the key linked now (the user
 * resumes it knowing its bounds). Refused while Automatic buying is off, without a working key,
 * and after its end date (or its Stop for good).
 */
export async function resumeAutoBuy(
  db: Kysely<Database>,
  telegramId: number,
  id: string,
  now: number,
): Promise<AutoBuyChange> {
  const autoBuy = await findAutoBuy(db, telegramId, id);
  if (!autoBuy) return "gone";
  if (autoBuy.status === "ended" || autoBuy.ends_at <= now) return "ended";
  if (!canResume(autoBuy, now)) return "unchanged";
  if (!(await autoBuyingEnabled(db, telegramId))) return "switch-off";
  const credential = await db
    .selectFrom("credentials")
    .select(["linked_at", "broken_at"])
    .where("telegram_id", "=", telegramId)
    .executeTakeFirst();
  if (!credential || credential.broken_at !== null) return "no-key";
  const result = await db
    .updateTable("auto_buys")
    .set({
      status: "active",
      reason: null,
      resume_at: null,
      provider_failures: 0,
      key_linked_at: Number(credential.linked_at),
      updated_at: now,
    })
    .where("id", "=", id)
    .where("telegram_id", "=", telegramId)
    .where("status", "in", ["paused", "stopped"])
    .executeTakeFirst();
  return Number(result.numUpdatedRows) > 0 ? "done" : "unchanged";
}

/** The user's Stop (under an "Auto-bought" alert): it ends for good; it can still be deleted. */
export async function stopAutoBuyForGood(
  db: Kysely<Database>,
  telegramId: number,
  id: string,
  now: number,
): Promise<AutoBuyChange> {
  const autoBuy = await findAutoBuy(db, telegramId, id);
  if (!autoBuy) return "gone";
  const changed = await setAutoBuyStatus(
    db,
    { id, telegramId, from: ["active", "paused", "waiting", "stopped"], status: "ended", reason: "user" },
    now,
  );
  return changed ? "done" : "unchanged";
}
