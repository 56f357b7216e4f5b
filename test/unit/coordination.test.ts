import { afterEach, beforeEach, expect, it } from "vitest";
import { sql, type Kysely } from "kysely";
import { coordinating } from "#src/db/dialect";
import type { Database } from "#src/db/schema";
import { openMigratedTestDatabase } from "../kit/test-database";
import { describeEachDialect } from "../kit/test-database-dialects";

/** How a session reports synchronous_commit: its value and where it came from (pg_settings.source). */
async function commitSetting(db: Kysely<Database>): Promise<{ setting: string; source: string }> {
  const { rows } = await sql<{
    setting: string;
    source: string;
  }>`select setting, source from pg_settings where name = 'synchronous_commit'`.execute(db);
  return rows[0]!;
}

/** The statements that only coordinate replicas commit asynchronously on PostgreSQL; the rest durably. */
describeEachDialect("the coordinating statements' connection (%s)", (dialect) => {
  let db: Kysely<Database>;
  let close: () => Promise<void>;
  beforeEach(async () => {
    ({ db, close } = await openMigratedTestDatabase(dialect, "bot_coordination"));
  });
  afterEach(() => close());

  if (dialect === "SQLite") {
    it("is the same database on SQLite (one process, one connection)", () => {
      expect(coordinating(db)).toBe(db);
    });
    return;
  }

  it("is a pool of its own whose sessions commit asynchronously, while the main pool's keep the server's setting; both end with db.destroy()", async () => {
    const coordination = coordinating(db);
    expect(coordination).not.toBe(db);
    // Every session of the companion pool, also those opened under load.
    const settings = await Promise.all(Array.from({ length: 6 }, () => commitSetting(coordination)));
    for (const setting of settings) expect(setting).toEqual({ setting: "off", source: "session" });
    // The main pool sets nothing: keys, orders, flows and the outbox commit as the server says.
    expect((await commitSetting(db)).source).not.toBe("session");
    // A transaction stays where it is.
    await db.transaction().execute(async (trx) => {
      expect(coordinating<Database>(trx)).toBe(trx);
    });
    await db.destroy();
    await expect(sql`select 1`.execute(coordination)).rejects.toThrow();
  });
});
