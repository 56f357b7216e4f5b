import { mkdtempSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { removeDatabaseDir } from "../kit/temp-dir";
import { describe, expect, it } from "vitest";
import { migrateToLatest, openDatabase } from "#src/db/connection";
import { upsertUser } from "#src/db/repos/users";

describe("SQLite storage", () => {
  // The main connection never checkpoints (so no commit stalls on copying the WAL): the database
  // file only grows when the checkpoint worker copies committed pages into it.
  it("moves committed pages from the WAL into the database file from its checkpoint worker, while the connection is open", async () => {
    const dir = mkdtempSync(join(tmpdir(), "checkpoint-"));
    const path = join(dir, "bot.db");
    const { db } = await openDatabase(`file:${path}`);
    try {
      await migrateToLatest(db);
      await new Promise((resolve) => setTimeout(resolve, 600));
      const before = statSync(path).size;
      for (let i = 0; i < 400; i++) await upsertUser(db, 10_000 + i, 10_000 + i, Date.now());
      let after = before;
      for (let wait = 0; wait < 60 && after <= before; wait++) {
        await new Promise((resolve) => setTimeout(resolve, 50));
        after = statSync(path).size;
      }
      expect(after).toBeGreaterThan(before);
      expect(
        await db
          .selectFrom("users")
          .select((eb) => eb.fn.countAll<number>().as("n"))
          .executeTakeFirstOrThrow(),
      ).toEqual({ n: 400 });
    } finally {
      await db.destroy();
      await removeDatabaseDir(dir);
    }
  });
});
