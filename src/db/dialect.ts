import { PostgresAdapter, type Kysely } from "kysely";

/** True when this Kysely instance (or a transaction of it) talks to PostgreSQL. */
export function isPostgres<DB>(db: Kysely<DB>): boolean {
  return db.getExecutor().adapter instanceof PostgresAdapter;
}

/** The async-commit companion of each PostgreSQL database opened by openDatabase (see coordinating). */
const coordinationOf = new WeakMap<object, Kysely<never>>();

/** Registers `coordination` as the companion of `db` (openDatabase). */
export function setCoordination<DB>(db: Kysely<DB>, coordination: Kysely<DB>): void {
  coordinationOf.set(db, coordination as unknown as Kysely<never>);
}

/**
 * Where the statements that only coordinate replicas run: the update's read with its flood-limit
 * window, the chats' turns and the Telegram budget's grants outside a transaction. On PostgreSQL
 * that is a second pool whose sessions commit asynchronously (`synchronous_commit = off`): the
 * commit returns before its WAL is flushed, so these statements, one or two per update, wait for
 * no disk. Only a crash of the database server can lose the last moments of them (a flood window
 * counted again from zero, a chat's turn or grant taken again, a first contact's row of defaults
 * stored again at the user's next update), and any later durable commit flushes them with it, as
 * the WAL is one sequence. Everything else (keys, orders, flows, the outbox) commits durably on
 * the main pool. On SQLite, or for a transaction, the same `db` is returned.
 */
export function coordinating<DB>(db: Kysely<DB>): Kysely<DB> {
  return (coordinationOf.get(db) as unknown as Kysely<DB> | undefined) ?? db;
}
