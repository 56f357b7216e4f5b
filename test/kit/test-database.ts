import { randomBytes } from "node:crypto";
import pg from "pg";
import type { Kysely } from "kysely";
import { migrateToLatest, openDatabase } from "#src/db/connection";
import type { Database } from "#src/db/schema";

/**
 * The database a test world runs on. With TEST_DATABASE_URL (postgres://…) unset: SQLite, as
 * before. With it set: a fresh PostgreSQL database per world (CREATE DATABASE on the server the URL
 * names), dropped when the world stops, so tests stay isolated and can run in parallel.
 */
export const TEST_DATABASE_URL =
  process.env.TEST_DATABASE_URL && /^postgres(ql)?:\/\//.test(process.env.TEST_DATABASE_URL)
    ? process.env.TEST_DATABASE_URL
    : undefined;

export interface TestDatabase {
  url: string;
  dialect: "sqlite" | "postgres";
  drop(): Promise<void>;
}

function withDatabase(url: string, database: string): string {
  const parsed = new URL(url);
  parsed.pathname = `/${database}`;
  return parsed.toString();
}

async function admin<T>(serverUrl: string, work: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: serverUrl });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}

/** A fresh, empty database on the PostgreSQL server `serverUrl` names (tests, the benchmark). */
export async function createPostgresDatabase(serverUrl: string, prefix: string): Promise<TestDatabase> {
  const name = `${prefix}_${Date.now().toString(36)}_${randomBytes(4).toString("hex")}`;
  await admin(serverUrl, (client) => client.query(`CREATE DATABASE "${name}"`));
  return {
    url: withDatabase(serverUrl, name),
    dialect: "postgres",
    async drop() {
      await admin(serverUrl, (client) => client.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`)).catch(
        () => undefined,
      );
    },
  };
}

/** A fresh, empty PostgreSQL database on the TEST_DATABASE_URL server. */
export async function createPostgresTestDatabase(prefix = "bot_test"): Promise<TestDatabase> {
  if (!TEST_DATABASE_URL) throw new Error("TEST_DATABASE_URL is not set");
  return createPostgresDatabase(TEST_DATABASE_URL, prefix);
}

/** Every row of every table of a PostgreSQL database as text (the at-rest check on PostgreSQL). */
export async function dumpPostgresRows(url: string): Promise<string> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const tables = await client.query<{ table_name: string }>(
      "select table_name from information_schema.tables where table_schema = 'public'",
    );
    const parts: string[] = [];
    for (const { table_name } of tables.rows) {
      const rows = await client.query<{ row: string }>(`select row_to_json(t)::text as row from "${table_name}" t`);
      for (const { row } of rows.rows) parts.push(row);
    }
    return parts.join("\n");
  } finally {
    await client.end();
  }
}

/** The dialects the repository tests run on: SQLite always, PostgreSQL too with TEST_DATABASE_URL. */
export const TEST_DIALECTS = TEST_DATABASE_URL ? (["SQLite", "PostgreSQL"] as const) : (["SQLite"] as const);

/** A migrated database of one dialect for one test (SQLite in memory, or a fresh PostgreSQL database); close() destroys and drops it. */
export async function openMigratedTestDatabase(
  dialect: (typeof TEST_DIALECTS)[number],
  prefix: string,
): Promise<{ db: Kysely<Database>; close(): Promise<void> }> {
  const postgres = dialect === "PostgreSQL" ? await createPostgresTestDatabase(prefix) : null;
  const { db } = await openDatabase(postgres ? postgres.url : ":memory:");
  await migrateToLatest(db);
  return {
    db,
    async close() {
      await db.destroy();
      await postgres?.drop();
    },
  };
}
