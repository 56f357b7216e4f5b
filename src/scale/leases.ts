import type { Kysely } from "kysely";
import type { Database } from "../db/schema";

/**
 * Named lease rows shared by every replica (the polling leader, cron jobs). Taking one is a single
 * upsert that succeeds only for the current holder (a renewal) or when the lease has expired, so
 * two replicas never hold the same lease at once. Times are wall-clock milliseconds.
 */
export async function tryLease(db: Kysely<Database>, name: string, owner: string, now: number, ttlMs: number): Promise<boolean> {
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

/** The leases this replica holds now (for /metrics). */
export async function leasesHeldBy(db: Kysely<Database>, owner: string, now: number): Promise<string[]> {
  const rows = await db.selectFrom("leases").select("name").where("owner", "=", owner).where("lease_until", ">=", now).execute();
  return rows.map((row) => row.name);
}

/**
 * Runs `job` only if this replica takes the named lease; the lease is held for the job's length
 * (renewed while it runs) and released after. Returns null when another replica holds it.
 */
export async function withLease<T>(db: Kysely<Database>, name: string, owner: string, ttlMs: number, job: () => Promise<T>): Promise<T | null> {
  if (!(await tryLease(db, name, owner, Date.now(), ttlMs))) return null;
  const renew = setInterval(() => void tryLease(db, name, owner, Date.now(), ttlMs).catch(() => undefined), Math.max(500, Math.floor(ttlMs / 3)));
  renew.unref();
  try {
    return await job();
  } finally {
    clearInterval(renew);
    await releaseNamedLease(db, name, owner).catch(() => undefined);
  }
}
