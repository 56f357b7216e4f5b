// Jobs run under a named lease, so one replica at a time runs them.

import type { Kysely } from "kysely";
import type { Database } from "#src/db/schema";
import { releaseNamedLease, tryLease } from "#src/db/repos/leases";

export { leasesHeldBy } from "#src/db/repos/leases";

/**
 * Runs `job` only if this replica takes the named lease; the lease is held for the job's length
 * (renewed while it runs) and released after. Returns null when another replica holds it.
 */
export async function withLease<T>(
  db: Kysely<Database>,
  name: string,
  owner: string,
  ttlMs: number,
  job: () => Promise<T>,
): Promise<T | null> {
  if (!(await tryLease(db, name, owner, Date.now(), ttlMs))) return null;
  const renew = setInterval(
    () => void tryLease(db, name, owner, Date.now(), ttlMs).catch(() => undefined),
    Math.max(500, Math.floor(ttlMs / 3)),
  );
  renew.unref();
  try {
    return await job();
  } finally {
    clearInterval(renew);
    await releaseNamedLease(db, name, owner).catch(() => undefined);
  }
}
