import { mkdirSync } from "node:fs";
import { createRequire } from "node:module";
import { Worker } from "node:worker_threads";
import { dirname } from "node:path";
import SQLite from "better-sqlite3";
import type pg from "pg";
import {
  Kysely,
  Migrator,
  PostgresDialect,
  SqliteDialect,
  SqliteDriver,
  type DatabaseConnection,
  type Driver,
  type MigrationProvider,
  type QueryResult,
  type SqliteDatabase,
  type SqliteDialectConfig,
} from "kysely";
import { migrations } from "../../migrations/index";
import type { Database } from "./schema";
import { setCoordination } from "./dialect";
import { DatabaseHealth, setDatabaseHealth } from "./health";

export type DialectName = "sqlite" | "postgres";

export interface OpenDatabaseResult {
  db: Kysely<Database>;
  dialect: DialectName;
  /** The SQLite file path (or ":memory:"), for tests that inspect the bytes on disk; "" on PostgreSQL. */
  path: string;
}

export interface OpenDatabaseOptions {
  /** Upper bound of the PostgreSQL connection pool (per replica). */
  poolMax?: number;
  /** Told of every connection made or refused (PostgreSQL): logs an outage once each way. */
  health?: DatabaseHealth;
}

const INT8_OID = 20;
const NUMERIC_OID = 1700;

/**
 * int8 values (ids and millisecond times, all below 2^53) come back from pg as strings; they are
 * parsed to numbers here, and a value that would lose precision is an error, never a silent
 * rounding. NUMERIC stays a string (money is text anyway; no float ever holds it).
 */
export function parseInt8(value: string): number {
  const parsed = Number(value);
  if (!Number.isSafeInteger(parsed))
    throw new RangeError(`int8 value ${value} is beyond 2^53 and cannot be read as a number without loss`);
  return parsed;
}

function pgTypes(driver: typeof pg): pg.CustomTypesConfig {
  return {
    getTypeParser(oid: number, format?: "text" | "binary") {
      if (oid === INT8_OID && format !== "binary") return parseInt8;
      if (oid === NUMERIC_OID) return (value: string) => value;
      return driver.types.getTypeParser(oid, format as "text");
    },
  } as unknown as pg.CustomTypesConfig;
}

export function isPostgresUrl(databaseUrl: string): boolean {
  return /^postgres(ql)?:\/\//.test(databaseUrl);
}

/**
 * Opens the database named by DATABASE_URL: `postgres://…` → PostgreSQL through a bounded `pg`
 * pool; `file:PATH` or `:memory:` → SQLite. SQLite pragmas live here and only here: WAL, a busy
 * timeout, foreign keys, full fsync on commit, secure_delete so that a deleted secret does not
 * linger in free pages, and WAL checkpoints moved to a worker thread (see startCheckpointer).
 */
export async function openDatabase(
  databaseUrl: string,
  options: OpenDatabaseOptions = {},
): Promise<OpenDatabaseResult> {
  if (isPostgresUrl(databaseUrl)) {
    // The driver is loaded only for PostgreSQL: a SQLite deployment never holds it in memory.
    const { default: driver } = await import("pg");
    const max = options.poolMax ?? 10;
    const config = {
      connectionString: databaseUrl,
      idleTimeoutMillis: 30_000,
      connectionTimeoutMillis: 10_000,
      types: pgTypes(driver),
      application_name: "tron-energy-bot",
    };
    const pool = new driver.Pool({ ...config, max });
    // The statements that only coordinate replicas commit asynchronously, on a pool of their own
    // (see coordinating in ./dialect). Set per session when it opens: a startup option would be
    // refused by poolers such as PgBouncer.
    const coordinationPool = new driver.Pool({ ...config, max: Math.max(2, Math.ceil(max / 2)) });
    coordinationPool.on("connect", (client) => {
      client.query("set synchronous_commit = off").catch(() => undefined);
    });
    // An idle client losing its server (restart, failover) must not crash the process; the
    // health tracker hears of it, and of every connection made, refused or lost.
    const health = options.health ?? new DatabaseHealth();
    for (const each of [pool, coordinationPool]) {
      each.on("error", (error) => health.noteFailure(error));
      // A connection lost while in use: pg's client says so before the query's caller hears of it.
      each.on("connect", (client) => {
        health.noteAnswer();
        client.on("error", (error) => health.noteFailure(error));
      });
      watchConnectFailures(each, health);
    }
    // db.destroy() ends the main pool (Kysely's driver calls its end()); the companion ends with it.
    const endMain = pool.end.bind(pool) as () => Promise<void>;
    Object.assign(pool, { end: () => Promise.all([endMain(), coordinationPool.end()]).then(() => undefined) });
    const db = new Kysely<Database>({ dialect: new PostgresDialect({ pool }) });
    setCoordination(db, new Kysely<Database>({ dialect: new PostgresDialect({ pool: coordinationPool }) }));
    setDatabaseHealth(db, health);
    return { db, dialect: "postgres", path: "" };
  }
  const path = databaseUrl === ":memory:" ? ":memory:" : databaseUrl.slice("file:".length);
  if (path !== ":memory:") mkdirSync(dirname(path), { recursive: true });
  const sqlite = new SQLite(path);
  sqlite.pragma("journal_mode = WAL");
  sqlite.pragma("busy_timeout = 5000");
  sqlite.pragma("foreign_keys = ON");
  sqlite.pragma("synchronous = FULL");
  sqlite.pragma("secure_delete = ON");
  const checkpointer = path === ":memory:" ? null : startCheckpointer(path);
  if (checkpointer) sqlite.pragma("wal_autocheckpoint = 0");
  const database = cachedStatements(sqlite, () => checkpointer?.postMessage("stop"));
  const dialect = new HeldSqliteDialect({ database });
  const db = new Kysely<Database>({ dialect });
  sqliteConnections.set(db, { sqlite, driver: dialect.driver, database });
  return { db, dialect: "sqlite", path };
}

/**
 * Tells `health` when the pool cannot make a connection Kysely asked for (one per query or
 * transaction): the server is gone. A connection made is told by the pool's "connect" event.
 */
function watchConnectFailures(pool: pg.Pool, health: DatabaseHealth): void {
  const connect = pool.connect.bind(pool) as (callback?: unknown) => Promise<pg.PoolClient> | undefined;
  Object.assign(pool, {
    connect: (callback?: unknown) => {
      if (callback) return connect(callback);
      return connect()!.catch((error: unknown) => {
        health.noteFailure(error);
        throw error;
      });
    },
  });
}

/** What lies beneath a SQLite `db`: better-sqlite3's connection, the driver Kysely holds it through, and its statement cache. */
const sqliteConnections = new WeakMap<
  object,
  { sqlite: SQLite.Database; driver: HeldSqliteDriver; database: SqliteDatabase }
>();

/**
 * Kysely's SQLite driver with its one connection handed over in turn: a holder's release passes it
 * to the next waiter in the order they asked. Kysely's own lock wakes every waiter at each release
 * and all but one wait again, which with a few dozen updates in flight cost more CPU than the
 * statements themselves (bench: the paths part). It also counts who holds or waits (a
 * transaction, a `db.connection()` block, a query in flight or queued): while nobody does, a
 * statement may run on the connection at once (runWhenIdle), joining no one's transaction and
 * overtaking no one.
 */
class HeldSqliteDriver extends SqliteDriver {
  /** The holder and the waiters, counted from the call. */
  held = 0;
  private connection: DatabaseConnection | undefined;
  private readonly waiting: Array<(connection: DatabaseConnection) => void> = [];

  get ready(): boolean {
    return this.connection !== undefined;
  }

  override async init(): Promise<void> {
    await super.init();
    // The connection Kysely's driver made, taken once through its own lock and kept.
    const connection = await super.acquireConnection();
    await super.releaseConnection();
    this.connection = connection;
  }

  override acquireConnection(): Promise<DatabaseConnection> {
    const connection = this.connection;
    if (!connection) return Promise.reject(new Error("the SQLite driver was used before it was initialised"));
    this.held += 1;
    if (this.held === 1) return Promise.resolve(connection);
    return new Promise((resolve) => this.waiting.push(resolve));
  }

  override async releaseConnection(): Promise<void> {
    this.held -= 1;
    this.waiting.shift()?.(this.connection!);
  }
}

class HeldSqliteDialect extends SqliteDialect {
  readonly driver: HeldSqliteDriver;

  constructor(config: SqliteDialectConfig) {
    super(config);
    this.driver = new HeldSqliteDriver(config);
  }

  override createDriver(): Driver {
    return this.driver;
  }
}

/**
 * Runs a compiled statement on a SQLite database's connection right away, as Kysely's SQLite
 * connection would run it, when `db` is the database itself (not a transaction) and nobody holds
 * its connection; undefined otherwise (PostgreSQL, a transaction, a held connection), and the
 * caller goes through Kysely. better-sqlite3 runs a statement synchronously, so nothing can
 * interleave with it; the asynchronous acquire and release Kysely wraps around every query cost
 * about as much CPU as SQLite's own execution of an update's read of its user (see `prepared`).
 * The app's Kysely instance has no plugins and no query log; were one added, a statement run here
 * would skip it.
 */
export function runWhenIdle<R>(db: object, sql: string, parameters: readonly unknown[]): QueryResult<R> | undefined {
  const runner = sqliteConnections.get(db);
  if (!runner || runner.driver.held !== 0 || !runner.driver.ready) return undefined;
  const statement = runner.database.prepare(sql);
  if (statement.reader) return { rows: statement.all(parameters) as R[] };
  const { changes, lastInsertRowid } = statement.run(parameters);
  return { numAffectedRows: BigInt(changes), insertId: BigInt(lastInsertRowid), rows: [] };
}

/**
 * The better-sqlite3 connection beneath a SQLite `db` (null on PostgreSQL), for the few hot
 * writes that run as one synchronous call instead of several awaited Kysely queries. Use it only
 * inside `db.connection().execute(...)`: holding Kysely's connection is what guarantees that no
 * Kysely transaction is open on it at the time.
 */
export function sqliteHandle(db: Kysely<Database>): SQLite.Database | null {
  return sqliteConnections.get(db)?.sqlite ?? null;
}

/** Statements longer than this are compiled each time (see cachedStatements). */
const MAX_CACHED_SQL_LENGTH = 4_000;

/**
 * better-sqlite3 compiles a statement on every prepare(); the queries here come from a few dozen
 * shapes, so compiled statements are kept (most recently used first, at most 256) and reused;
 * long ones, whose shape varies with the number of rows or ids, are compiled each time.
 */
function cachedStatements(sqlite: SQLite.Database, onClose: () => void): SqliteDatabase {
  const cache = new Map<string, SQLite.Statement>();
  return {
    close: () => {
      sqlite.close();
      onClose();
    },
    prepare(sql: string) {
      let statement = cache.get(sql);
      if (statement) {
        cache.delete(sql);
      } else {
        statement = sqlite.prepare(sql);
        // Very long statements (many-row inserts, long IN lists) vary in shape and are rarely
        // reused. The update's read of its user is about 1,000 characters and runs on every update.
        if (sql.length > MAX_CACHED_SQL_LENGTH) return statement as unknown as ReturnType<SqliteDatabase["prepare"]>;
        if (cache.size >= 256) cache.delete(cache.keys().next().value!);
      }
      cache.set(sql, statement);
      return statement as unknown as ReturnType<SqliteDatabase["prepare"]>;
    },
  };
}

/**
 * Checkpoints the WAL from a worker thread with its own connection, so the copy into the database
 * file and its fsync never run inside a commit on the main thread (SQLite's automatic checkpoint
 * would, stalling the event loop for tens of ms every thousand pages). PASSIVE: it never waits for
 * or blocks the writer. Null when the worker cannot start (then SQLite checkpoints by itself).
 */
const CHECKPOINTER = `
const { parentPort, workerData } = require("node:worker_threads");
const Database = require(workerData.module);
const db = new Database(workerData.path);
db.pragma("busy_timeout = 1000");
db.pragma("synchronous = FULL");
const checkpoint = () => { try { db.pragma("wal_checkpoint(PASSIVE)"); } catch {} };
const timer = setInterval(checkpoint, workerData.everyMs);
parentPort.on("message", () => { clearInterval(timer); checkpoint(); db.close(); parentPort.close(); });
`;

function startCheckpointer(path: string, everyMs = 250): Worker | null {
  try {
    const worker = new Worker(CHECKPOINTER, {
      eval: true,
      workerData: { path, module: createRequire(import.meta.url).resolve("better-sqlite3"), everyMs },
    });
    worker.on("error", () => undefined);
    worker.unref();
    return worker;
  } catch {
    return null;
  }
}

const provider: MigrationProvider = { getMigrations: async () => migrations };

/** Applies every pending migration; throws with the failing migration's name on error. */
export async function migrateToLatest(db: Kysely<Database>): Promise<void> {
  const migrator = new Migrator({ db, provider });
  const { error, results } = await migrator.migrateToLatest();
  const failed = results?.find((result) => result.status === "Error");
  if (error) {
    throw new Error(
      `database migration ${failed?.migrationName ?? ""} failed: ${error instanceof Error ? error.message : String(error)}`,
      { cause: error },
    );
  }
}
