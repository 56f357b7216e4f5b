import { sql, type Kysely, type RawBuilder, type SelectQueryBuilder, type SqlBool } from "kysely";
import type { Database } from "./schema";
import { isPostgres } from "./dialect";

/**
 * The WHERE condition of a lease claim: `UPDATE table SET lease … WHERE <this> AND <the lease
 * conditions again>`, where `candidates` selects the keys to claim (free of a lease, ordered and
 * limited). On PostgreSQL the candidates are locked FOR UPDATE SKIP LOCKED (of `lockOf`, when the
 * candidates join other tables), so replicas claiming at the same moment take disjoint rows without
 * waiting on each other; the caller repeats the lease conditions in the UPDATE, so a row is never
 * held by two replicas on either dialect.
 */
export function claimedKeys<DB, TB extends keyof DB, O>(db: Kysely<Database>, column: string, candidates: SelectQueryBuilder<DB, TB, O>, lockOf?: TB & string): RawBuilder<SqlBool> {
  if (!isPostgres(db)) return sql<SqlBool>`${sql.ref(column)} in (${candidates})`;
  const locked = (lockOf === undefined ? candidates.forUpdate() : candidates.forUpdate(lockOf)).skipLocked();
  // One evaluation on PostgreSQL: a LIMIT … SKIP LOCKED subquery under IN may be rescanned and return more than its limit.
  return sql<SqlBool>`${sql.ref(column)} = any(array(${locked}))`;
}
