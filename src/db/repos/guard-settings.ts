/** The user's spend guard and reminders (/settings): one row once they changed one, the defaults otherwise. */
import type { Kysely, Transaction } from "kysely";
import type { Database } from "../schema";

type Db = Kysely<Database> | Transaction<Database>;

/** The low-balance warning times /settings offers, in hours (0: off). */
export const WARNING_HOURS = [12, 24, 72, 0] as const;
export type WarningHours = (typeof WARNING_HOURS)[number];

export interface GuardSettings {
  /** The "ends" alert before a rental ends (on by default). */
  alertEnds: boolean;
  /** An alert for each firing of an active rule (off by default). */
  alertDeliveries: boolean;
  /** When rule delivery alerts were switched on (ms); null while off. */
  deliveriesSince: number | null;
  /** Warn when the balance lasts less than this many hours; 0: off. */
  warningHours: WarningHours;
  /** Ask again above this total (sun); null: never. */
  askAboveSun: bigint | null;
  /** The daily cap on what is bought through the bot (sun, per UTC day); null: none. */
  dailyCapSun: bigint | null;
}

export const DEFAULT_GUARD_SETTINGS: GuardSettings = {
  alertEnds: true,
  alertDeliveries: false,
  deliveriesSince: null,
  warningHours: 24,
  askAboveSun: null,
  dailyCapSun: null,
};

const sunOrNull = (value: string | null): bigint | null =>
  value === null || !/^\d+$/.test(value) ? null : BigInt(value);

function warningOf(hours: number): WarningHours {
  return (WARNING_HOURS as readonly number[]).includes(hours) ? (hours as WarningHours) : 24;
}

type Row = Awaited<ReturnType<typeof findRows>>[number];

function findRows(db: Db, telegramIds: number[], forUpdate = false) {
  let query = db.selectFrom("guard_settings").selectAll().where("telegram_id", "in", telegramIds);
  if (forUpdate) query = query.forUpdate();
  return query.execute();
}

/** The user's settings, the defaults where they changed nothing. */
export async function findGuardSettings(db: Db, telegramId: number, forUpdate = false): Promise<GuardSettings> {
  const [row] = await findRows(db, [telegramId], forUpdate);
  return row ? settingsOf(row) : DEFAULT_GUARD_SETTINGS;
}

/** The settings of many users at once (a poll's batch), the defaults for those who changed nothing. */
export async function findGuardSettingsOf(db: Db, telegramIds: number[]): Promise<Map<number, GuardSettings>> {
  const rows = telegramIds.length === 0 ? [] : await findRows(db, telegramIds);
  const found = new Map(rows.map((row) => [Number(row.telegram_id), settingsOf(row)]));
  return new Map(telegramIds.map((id) => [id, found.get(id) ?? DEFAULT_GUARD_SETTINGS]));
}

function settingsOf(row: Row): GuardSettings {
  return {
    alertEnds: row.alert_ends === 1,
    alertDeliveries: row.alert_deliveries === 1,
    deliveriesSince: row.deliveries_since === null ? null : Number(row.deliveries_since),
    warningHours: warningOf(Number(row.balance_warning_hours)),
    askAboveSun: sunOrNull(row.ask_above_sun),
    dailyCapSun: sunOrNull(row.daily_cap_sun),
  };
}

/** A change to the settings: only the fields given move. */
export interface GuardSettingsChange {
  alertEnds?: boolean;
  /** Switching them on records `now` as the time firings are alerted from. */
  alertDeliveries?: boolean;
  warningHours?: WarningHours;
  askAboveSun?: bigint | null;
  dailyCapSun?: bigint | null;
}

/** Stores a change (creating the row with the defaults for the rest). */
export async function updateGuardSettings(
  db: Db,
  telegramId: number,
  change: GuardSettingsChange,
  now: number,
): Promise<void> {
  const set: Record<string, unknown> = { updated_at: now };
  if (change.alertEnds !== undefined) set.alert_ends = change.alertEnds ? 1 : 0;
  if (change.alertDeliveries !== undefined) {
    set.alert_deliveries = change.alertDeliveries ? 1 : 0;
    set.deliveries_since = change.alertDeliveries ? now : null;
  }
  if (change.warningHours !== undefined) set.balance_warning_hours = change.warningHours;
  if (change.askAboveSun !== undefined)
    set.ask_above_sun = change.askAboveSun === null ? null : change.askAboveSun.toString();
  if (change.dailyCapSun !== undefined)
    set.daily_cap_sun = change.dailyCapSun === null ? null : change.dailyCapSun.toString();
  await db
    .insertInto("guard_settings")
    .values({ telegram_id: telegramId, ...set, updated_at: now } as never)
    .onConflict((oc) => oc.column("telegram_id").doUpdateSet(set as never))
    .execute();
}
