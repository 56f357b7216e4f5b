import type { Kysely } from "kysely";
import type { Database } from "../schema";

// Named lease rows shared by every replica (the polling leader, cron jobs). Times are wall-clock milliseconds.

/**
 * Takes or renews a named lease. A single upsert that succeeds only for the current holder (a
 * renewal) or when the lease has expired, so two replicas never hold the same lease at once.
 */
export async function tryLease(
  db: Kysely<Database>,
  name: string,
  owner: string,
  now: number,
  ttlMs: number,
): Promise<boolean> {
  const result = await db
    .insertInto("leases")
    .values({ name, owner, lease_until: now + ttlMs, acquired_at: now })
    .onConflict((oc) =>
      oc
        .column("name")
        .doUpdateSet({ owner, lease_until: now + ttlMs })
        .where((eb) => eb.or([eb("leases.owner", "=", owner), eb("leases.lease_until", "<", now)])),
    )
    .executeTakeFirst();
  return Number(result.numInsertedOrUpdatedRows ?? 0n) > 0;
}

/** Gives a lease up at once (a clean stop), so another replica need not wait for it to expire. */
export async function releaseNamedLease(db: Kysely<Database>, name: string, owner: string): Promise<void> {
  await db.deleteFrom("leases").where("name", "=", name).where("owner", "=", owner).execute();
}

/** Gives up every named lease this replica holds (a clean stop: a cron job cut short). Returns how many. */
export async function releaseNamedLeasesOf(db: Kysely<Database>, owner: string): Promise<number> {
  const result = await db.deleteFrom("leases").where("owner", "=", owner).executeTakeFirst();
  return Number(result.numDeletedRows ?? 0n);
}

/** The leases this replica holds now (for /metrics). */
export async function leasesHeldBy(db: Kysely<Database>, owner: string, now: number): Promise<string[]> {
  const rows = await db
    .selectFrom("leases")
    .select("name")
    .where("owner", "=", owner)
    .where("lease_until", ">=", now)
    .execute();
  return rows.map((row) => row.name);
}
