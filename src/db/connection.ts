import { mkdirSync } from "node:fs";
import { dirname } from "node:path";
import SQLite from "better-sqlite3";
import { Kysely, Migrator, SqliteDialect, type MigrationProvider } from "kysely";
import { migrations } from "../../migrations/index";
import type { Database } from "./schema";

export interface OpenDatabaseResult {
  db: Kysely<Database>;
  dialect: "sqlite";
  /** The file path (or ":memory:"), for tests that inspect the bytes on disk. */
  path: string;
}

/**
 * Opens the database named by DATABASE_URL (`file:PATH` or `:memory:`). SQLite pragmas live here
 * and only here: WAL, a busy timeout, foreign keys, full fsync on commit, and secure_delete so
 * that a deleted secret does not linger in free pages.
 */
export function openDatabase(databaseUrl: string): OpenDatabaseResult {
  if (databaseUrl.startsWith("postgres")) {
    throw new Error("DATABASE_URL: PostgreSQL is not supported by this build yet; use file:PATH or :memory:");
  }
  const path = databaseUrl === ":memory:" ? ":memory:" : databaseUrl.slice("file:".length);
  if (path !== ":memory:") mkdirSync(dirname(path), { recursive: true });
  const sqlite = new SQLite(path);
  sqlite.pragma("journal_mode = WAL");
  sqlite.pragma("busy_timeout = 5000");
  sqlite.pragma("foreign_keys = ON");
  sqlite.pragma("synchronous = FULL");
  sqlite.pragma("secure_delete = ON");
  const db = new Kysely<Database>({ dialect: new SqliteDialect({ database: sqlite }) });
  return { db, dialect: "sqlite", path };
}

const provider: MigrationProvider = { getMigrations: async () => migrations };

/** Applies every pending migration; throws with the failing migration's name on error. */
export async function migrateToLatest(db: Kysely<Database>): Promise<void> {
  const migrator = new Migrator({ db, provider });
  const { error, results } = await migrator.migrateToLatest();
  const failed = results?.find((result) => result.status === "Error");
  if (error) {
    throw new Error(`database migration ${failed?.migrationName ?? ""} failed: ${error instanceof Error ? error.message : String(error)}`);
  }
}
