import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { sql, type Kysely } from "kysely";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { removeDatabaseDir } from "../kit/temp-dir";
import { migrateToLatest, openDatabase } from "#src/db/connection";
import type { Database } from "#src/db/schema";
import { takeGlobal } from "#src/db/repos/send-budget";
import { recordChatSendAt, takeChatTurn } from "#src/db/repos/chat-send";

const synchronous = async (db: Kysely<Database>) =>
  Number((await sql<{ synchronous: number }>`pragma synchronous`.execute(db)).rows[0]!.synchronous);

describe("the shared Telegram budget commits without an fsync on SQLite", () => {
  let dir: string;
  let dbs: Array<Kysely<Database>>;

  beforeEach(async () => {
    dir = mkdtempSync(join(tmpdir(), "budget-"));
    const url = `file:${join(dir, "bot.db")}`;
    // Two connections to one file, as two processes would hold.
    dbs = [(await openDatabase(url)).db, (await openDatabase(url)).db];
    await migrateToLatest(dbs[0]!);
  });

  afterEach(async () => {
    for (const db of dbs) await db.destroy();
    await removeDatabaseDir(dir);
  });

  it("gives the connection back at synchronous=FULL after a grant, also when the grant failed and left nothing behind", async () => {
    const [db, other] = dbs as [Kysely<Database>, Kysely<Database>];
    expect(await synchronous(db)).toBe(2);
    await expect(takeGlobal(db, 1_000, 1)).resolves.toMatchObject({ granted: 1 });
    expect(await synchronous(db)).toBe(2);
    // Another process's trigger makes the grant's update fail inside its transaction.
    await sql`create trigger refuse_grants before update on send_budget begin select raise(abort, 'grant refused'); end`.execute(
      other,
    );
    await expect(takeGlobal(db, 2_000, 1)).rejects.toThrow("grant refused");
    expect(await synchronous(db)).toBe(2);
    await sql`drop trigger refuse_grants`.execute(other);
    // The failed transaction left nothing behind (its grant was rolled back), and the next one commits.
    const row = await other
      .selectFrom("send_budget")
      .select(["updated_at"])
      .where("name", "=", "telegram")
      .executeTakeFirstOrThrow();
    expect(Number(row.updated_at)).toBe(1_000);
    await expect(takeGlobal(db, 3_000, 1)).resolves.toMatchObject({ granted: 1 });
  });

  it("keeps one bucket for every connection: grants are visible to the other at once and never exceed rate plus burst", async () => {
    const now = 5_000_000;
    const budget = { perSecond: 10, burst: 3 };
    let granted = 0;
    // Within one instant both connections together get the burst, no more.
    for (let i = 0; i < 6; i++) granted += (await takeGlobal(dbs[i % 2]!, now, 1, budget)).granted;
    expect(granted).toBe(3);
    const row = await dbs[1]!
      .selectFrom("send_budget")
      .select(["tokens_milli", "updated_at"])
      .where("name", "=", "telegram")
      .executeTakeFirstOrThrow();
    expect(Number(row.tokens_milli)).toBe(0);
    // One second later the bucket is full again (capacity 3), shared by whoever asks.
    let later = 0;
    for (let i = 0; i < 20; i++) later += (await takeGlobal(dbs[i % 2]!, now + 1_000, 1, budget)).granted;
    expect(later).toBe(3);
    expect(granted + later).toBeLessThanOrEqual(budget.perSecond + budget.burst);
  });

  it("takes its grant in one call only once no Kysely transaction holds the connection, and outside it", async () => {
    const [db] = dbs as [Kysely<Database>];
    const budget = { perSecond: 10, burst: 3 };
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    let grantDone = false;
    const open = db
      .transaction()
      .execute(async (trx) => {
        await trx.insertInto("send_budget").values({ name: "other", tokens_milli: 1, updated_at: 1 }).execute();
        await held;
        throw new Error("rolled back");
      })
      .catch((error: Error) => error.message);
    await new Promise((resolve) => setTimeout(resolve, 20));
    const grant = takeGlobal(db, 9_000_000, 2, budget).then((result) => {
      grantDone = true;
      return result;
    });
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(grantDone).toBe(false);
    release();
    expect(await open).toBe("rolled back");
    expect(await grant).toMatchObject({ granted: 2 });
    // The grant was committed on its own; the rolled-back transaction took nothing with it.
    const rows = await dbs[1]!.selectFrom("send_budget").select(["name", "tokens_milli"]).orderBy("name").execute();
    expect(rows).toEqual([{ name: "telegram", tokens_milli: 1_000 }]);
    expect(await synchronous(db)).toBe(2);
  });

  it("takes and defers a chat's turns on SQLite, seen by the other connection, and gives the connection back at synchronous=FULL", async () => {
    const [db, other] = dbs as [Kysely<Database>, Kysely<Database>];
    const pace = { intervalMs: 1_000, burst: 2 };
    const nextAt = async () =>
      Number(
        (await other.selectFrom("chat_send").select("next_send_at").where("chat_id", "=", 7).executeTakeFirstOrThrow())
          .next_send_at,
      );
    expect(await takeChatTurn(db, 7, 10_000, pace)).toBeNull();
    expect(await takeChatTurn(db, 7, 10_000, pace)).toBeNull();
    // The burst of two is spent: the third waits for the chat's next turn.
    expect(await takeChatTurn(db, 7, 10_000, pace)).toBe(11_000);
    expect(await synchronous(db)).toBe(2);
    // Telegram answered later than the turn said: the next turn moves back, never forward.
    await recordChatSendAt(db, 7, 12_500, pace);
    expect(await nextAt()).toBe(12_500);
    await recordChatSendAt(db, 7, 11_000, pace);
    expect(await nextAt()).toBe(12_500);
    expect(await synchronous(db)).toBe(2);
  });
});
