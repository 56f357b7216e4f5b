import { expressionBuilder, sql, type Expression, type ExpressionBuilder, type Kysely, type SqlBool } from "kysely";
import type { Database } from "./schema";

/** A condition on the rows of one table. */
type Condition<T extends keyof Database> = (eb: ExpressionBuilder<Database, T>) => Expression<SqlBool>;

/**
 * Deletes one chunk of a retention pass: at most `limit` rows of `table` matching `where`, chosen by
 * their `key` in a subquery (`DELETE … WHERE key IN (SELECT key … LIMIT n)`), so a backlog is
 * worked off in short statements, never one long lock. A key of several columns is compared as a
 * row value (`(a, b) IN (SELECT a, b …)`). `recheck` is repeated on the DELETE itself: a row
 * changed while the statement runs is kept (PostgreSQL rechecks the row it deletes).
 * Returns how many went.
 */
export async function deleteChunk<T extends keyof Database & string>(
  db: Kysely<Database>,
  table: T,
  key: (keyof Database[T] & string) | ReadonlyArray<keyof Database[T] & string>,
  limit: number,
  where: Condition<T>,
  recheck?: Condition<T>,
): Promise<number> {
  const eb = expressionBuilder<Database, T>();
  const columns = typeof key === "string" ? sql.ref(key) : sql.join(key.map((column) => sql.ref(column)));
  const keyed = typeof key === "string" ? columns : sql`(${columns})`;
  const chosen = sql`select ${columns} from ${sql.table(table)} where ${where(eb)} limit ${limit}`;
  const again = recheck ? sql` and ${recheck(eb)}` : sql``;
  const result = await sql`delete from ${sql.table(table)} where ${keyed} in (${chosen})${again}`.execute(db);
  return Number(result.numAffectedRows ?? 0n);
}
