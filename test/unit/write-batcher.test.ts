import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import SQLite from "better-sqlite3";
import { removeDatabaseDir } from "../kit/temp-dir";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import type { Kysely } from "kysely";
import { migrateToLatest, openDatabase } from "#src/db/connection";
import type { Database } from "#src/db/schema";
import { upsertUser } from "#src/db/repos/users";
import { getFlow, setFlow } from "#src/db/repos/flows";
import { WriteBatcher } from "#src/db/write-batcher";

describe("WriteBatcher on SQLite (group commit of concurrent small writes)", () => {
  let dir: string;
  let path: string;
  let db: Kysely<Database>;

  beforeEach(async () => {
    dir = mkdtempSync(join(tmpdir(), "batcher-"));
    path = join(dir, "bot.db");
    db = (await openDatabase(`file:${path}`)).db;
    await migrateToLatest(db);
  });

  afterEach(async () => {
    await db.destroy();
    await removeDatabaseDir(dir);
  });

  it("commits the writes of one turn of the loop together, and each caller sees its own result", async () => {
    const batcher = new WriteBatcher(db);
    const transactions = vi.spyOn(db, "transaction");
    const users = await Promise.all(
      Array.from({ length: 40 }, (_, i) => batcher.run((trx) => upsertUser(trx, 1_000 + i, 1_000 + i, 1))),
    );
    expect(users.map((user) => user.telegram_id)).toEqual(Array.from({ length: 40 }, (_, i) => 1_000 + i));
    expect(transactions.mock.calls.length).toBeGreaterThanOrEqual(1);
    expect(transactions.mock.calls.length).toBeLessThanOrEqual(2);
  });

  it("settles a caller only once its write is committed: another connection already sees it", async () => {
    const batcher = new WriteBatcher(db);
    const other = new SQLite(path, { readonly: true });
    try {
      await Promise.all([
        batcher.run((trx) => upsertUser(trx, 7, 7, 1)),
        batcher.run((trx) => setFlow(trx, 7, { flow: "quote", step: "volume", data: { resource: "energy" } }, 1)),
      ]);
      expect(other.prepare("select telegram_id from users where telegram_id = 7").get()).toEqual({ telegram_id: 7 });
      expect(other.prepare("select step from flows where telegram_id = 7").get()).toEqual({ step: "volume" });
    } finally {
      other.close();
    }
  });

  it("a failing write fails alone: its neighbours commit, its own partial work does not", async () => {
    const batcher = new WriteBatcher(db);
    const results = await Promise.allSettled([
      batcher.run((trx) => upsertUser(trx, 1, 1, 1)),
      batcher.run(async (trx) => {
        await upsertUser(trx, 2, 2, 1);
        throw new Error("this write gives up half-way");
      }),
      batcher.run((trx) => upsertUser(trx, 3, 3, 1)),
    ]);
    expect(results.map((result) => result.status)).toEqual(["fulfilled", "rejected", "fulfilled"]);
    expect((results[1] as PromiseRejectedResult).reason).toEqual(new Error("this write gives up half-way"));
    const ids = (await db.selectFrom("users").select("telegram_id").orderBy("telegram_id").execute()).map(
      (row) => row.telegram_id,
    );
    expect(ids).toEqual([1, 3]);
  });

  it("keeps the order of one caller's writes (the last step asked for is the one stored)", async () => {
    const batcher = new WriteBatcher(db);
    await batcher.run((trx) => upsertUser(trx, 5, 5, 1));
    await Promise.all(
      ["resource", "volume", "duration"].map((step) =>
        batcher.run((trx) => setFlow(trx, 5, { flow: "buy", step, data: {} }, 1)),
      ),
    );
    expect(await getFlow(db, 5)).toEqual({ flow: "buy", step: "duration", data: {} });
  });
});
