import type SQLite from "better-sqlite3";
import type { Kysely } from "kysely";
import type { Database } from "./schema";
import { sqliteHandle } from "./connection";

/**
 * The one place the repositories reach beneath Kysely to better-sqlite3: the writes of the
 * database's Telegram budget on SQLite (send-budget.ts's grant; chat-send.ts's turns take the
 * toggle only). The app on SQLite keeps its budget in memory (app.ts, memorySendBudget); these run
 * where a bot or alert sender is built on a SQLite database without it (tests, tools), once or
 * twice per message. Measured with `npx tsx bench/raw-sqlite-grants.ts 2000 5` (CPU µs per call,
 * median of 5 rounds of 2,000 on a WAL file, 2 shared cores; bench/README.md's history):
 *
 * - **The grant as raw statements.** Through Kysely it is a transaction of three awaited queries:
 *   67 to 75 µs of CPU in three runs against 36 to 51 µs raw (1.4 to 1.9 times), and Kysely's
 *   BEGIN is deferred where the raw one is IMMEDIATE (another process's grant waits on SQLite's
 *   lock instead of failing on the upgrade). A chat's turn is one statement: Kysely's prepared()
 *   query on the held connection cost 35 to 47 µs against 31 to 38 µs raw, within the runs'
 *   noise of each other, so it goes through Kysely.
 * - **Commits without an fsync.** The connection runs with synchronous = FULL; these writes commit
 *   with NORMAL, set around the write and put back after it ({@link withoutFsync}). With FULL a
 *   grant took 0.25 to 2 ms of wall time (the fsync; 134 µs of CPU), with the toggle 46 µs, with
 *   NORMAL for the whole connection 30 µs: the toggle costs about 15 µs and saves the fsync. A
 *   grant or turn lost with the process costs nothing, and in WAL mode every other commit stays as
 *   durable, since the next synchronous commit syncs the WAL up to and including this one and a
 *   torn tail is cut off here, never before an earlier commit.
 */

/**
 * Runs `work` holding Kysely's SQLite connection, with synchronous = NORMAL for its writes, then
 * puts the connection's level back; null on PostgreSQL (the caller runs its Kysely path). `work`
 * writes through the better-sqlite3 handle or the held `connection` it is given, never through
 * `db` (which would wait for the connection it holds); holding it keeps any other write off it.
 */
export function withoutFsync<T>(
  db: Kysely<Database>,
  work: (sqlite: SQLite.Database, connection: Kysely<Database>) => T | Promise<T>,
): Promise<T> | null {
  const sqlite = sqliteHandle(db);
  if (!sqlite) return null;
  return db.connection().execute(async (connection) => {
    const level = Number(sqlite.pragma("synchronous", { simple: true }));
    sqlite.pragma("synchronous = NORMAL");
    try {
      return await work(sqlite, connection);
    } finally {
      sqlite.pragma(`synchronous = ${level}`);
    }
  });
}

/** The budget row's numbers, as a grant reads and writes them. */
export interface BudgetRow {
  tokens_milli: number;
  updated_at: number;
}

/** What a grant computes from the row it read: the row to write and what it returns. */
export type BudgetDraw<T> = (row: BudgetRow) => { row: BudgetRow; result: T };

type GrantTransaction = SQLite.Transaction<(seed: BudgetRow, draw: BudgetDraw<unknown>) => unknown>;

const grants = new WeakMap<SQLite.Database, GrantTransaction>();

/**
 * The overall budget's grant as one synchronous transaction (BEGIN IMMEDIATE, so another process's
 * grant waits on SQLite's lock instead of failing): the row seeded with `seed` on the first grant
 * ever, read, drawn from by `draw`, written. Call it inside {@link withoutFsync}.
 */
export function grantFromBudgetRow<T>(sqlite: SQLite.Database, seed: BudgetRow, draw: BudgetDraw<T>): T {
  let grant = grants.get(sqlite);
  if (!grant) {
    const insert = sqlite.prepare(
      "insert into send_budget (name, tokens_milli, updated_at) values ('telegram', ?, ?) on conflict do nothing",
    );
    const read = sqlite.prepare("select tokens_milli, updated_at from send_budget where name = 'telegram'");
    const write = sqlite.prepare("update send_budget set tokens_milli = ?, updated_at = ? where name = 'telegram'");
    grant = sqlite.transaction((first: BudgetRow, drawn: BudgetDraw<unknown>) => {
      insert.run(first.tokens_milli, first.updated_at);
      const row = read.get() as BudgetRow;
      const next = drawn({ tokens_milli: Number(row.tokens_milli), updated_at: Number(row.updated_at) });
      write.run(next.row.tokens_milli, next.row.updated_at);
      return next.result;
    });
    grants.set(sqlite, grant);
  }
  return grant.immediate(seed, draw) as T;
}
