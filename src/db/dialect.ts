import { PostgresAdapter, type Kysely } from "kysely";

/** True when this Kysely instance (or a transaction of it) talks to PostgreSQL. */
export function isPostgres<DB>(db: Kysely<DB>): boolean {
  return db.getExecutor().adapter instanceof PostgresAdapter;
}
