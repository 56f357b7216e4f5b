import { sql, type Kysely, type RawBuilder, type SelectQueryBuilder, type SqlBool } from "kysely";
import type { Database } from "./schema";
import { isPostgres } from "./dialect";

/**
 * The WHERE condition of a lease claim: `UPDATE table SET lease … WHERE <this>`, where `candidates`
 * selects the keys to claim (free of a lease, ordered and limited). On PostgreSQL the candidates
 * are locked FOR UPDATE SKIP LOCKED (of `lockOf`, when the candidates join other tables), so
 * replicas claiming at the same moment take disjoint rows without waiting on each other; the
 * condition repeats that the row is free at `now` ({@link leaseFree}), so a row is never held by
 * two replicas on either dialect.
 */
export function claimedKeys<DB, TB extends keyof DB, O>(
  db: Kysely<Database>,
  column: string,
  candidates: SelectQueryBuilder<DB, TB, O>,
  now: number,
  lockOf?: TB & string,
): RawBuilder<SqlBool> {
  if (!isPostgres(db)) return sql<SqlBool>`${sql.ref(column)} in (${candidates}) and ${leaseFree(now)}`;
  const locked = (lockOf === undefined ? candidates.forUpdate() : candidates.forUpdate(lockOf)).skipLocked();
  // One evaluation on PostgreSQL: a LIMIT … SKIP LOCKED subquery under IN may be rescanned and return more than its limit.
  return sql<SqlBool>`${sql.ref(column)} = any(array(${locked})) and ${leaseFree(now)}`;
}

/** A row no replica holds: its lease never taken, or run out by `now`. `column` names the lease_until column (qualified when the query aliases its table). */
export function leaseFree(now: number, column = "lease_until"): RawBuilder<SqlBool> {
  return sql<SqlBool>`(${sql.ref(column)} is null or ${sql.ref(column)} < ${now})`;
}

/** The lease columns a claim sets: held by `owner` until `until`. */
export function leaseFor(owner: string, until: number): { lease_owner: string; lease_until: number } {
  return { lease_owner: owner, lease_until: until };
}
