import type { Kysely, Selectable } from "kysely";
import type { AddressesTable, Database } from "../schema";

export type SavedAddress = Selectable<AddressesTable>;

/** Records an address as just used (the address book is ordered last used first). */
export async function touchAddress(
  db: Kysely<Database>,
  telegramId: number,
  address: string,
  now: number,
): Promise<void> {
  await db
    .insertInto("addresses")
    .values({ telegram_id: telegramId, address, label: null, last_used_at: now })
    .onConflict((oc) => oc.columns(["telegram_id", "address"]).doUpdateSet({ last_used_at: now }))
    .execute();
}

export async function recentAddresses(db: Kysely<Database>, telegramId: number, limit = 5): Promise<SavedAddress[]> {
  return db
    .selectFrom("addresses")
    .selectAll()
    .where("telegram_id", "=", telegramId)
    .orderBy("last_used_at", "desc")
    .limit(limit)
    .execute();
}

export async function removeAddress(db: Kysely<Database>, telegramId: number, address: string): Promise<void> {
  await db.deleteFrom("addresses").where("telegram_id", "=", telegramId).where("address", "=", address).execute();
}

export async function findAddress(
  db: Kysely<Database>,
  telegramId: number,
  address: string,
): Promise<SavedAddress | undefined> {
  return db
    .selectFrom("addresses")
    .selectAll()
    .where("telegram_id", "=", telegramId)
    .where("address", "=", address)
    .executeTakeFirst();
}

/** Sets (or clears, with null) the label of a saved address; false when the address is no longer saved. */
export async function setAddressLabel(
  db: Kysely<Database>,
  telegramId: number,
  address: string,
  label: string | null,
): Promise<boolean> {
  const result = await db
    .updateTable("addresses")
    .set({ label })
    .where("telegram_id", "=", telegramId)
    .where("address", "=", address)
    .executeTakeFirst();
  return result.numUpdatedRows > 0n;
}

/** The labels the user gave their saved addresses, by address (unlabelled ones left out). */
export async function labelledAddresses(db: Kysely<Database>, telegramId: number): Promise<Map<string, string>> {
  const rows = await db
    .selectFrom("addresses")
    .select(["address", "label"])
    .where("telegram_id", "=", telegramId)
    .where("label", "is not", null)
    .execute();
  return new Map(rows.map((row) => [row.address, row.label!]));
}
