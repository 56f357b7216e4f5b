import { afterEach, describe, expect, it } from "vitest";
import { sql, type Kysely } from "kysely";
import { migrateToLatest, openDatabase, parseInt8 } from "#src/db/connection";
import type { Database } from "#src/db/schema";
import { startLeaderElection } from "#src/scale/leader";
import { tryLease } from "#src/db/repos/leases";
import { DEFAULT_CHAT_PACE, takeChatSlot } from "#src/db/repos/chat-send";
import { takeReplyTurn } from "#src/db/repos/reply-turns";
import { takeGlobal, takeGlobalIn } from "#src/db/repos/send-budget";
import { findUserWithState, upsertUser } from "#src/db/repos/users";
import { FLOOD_WINDOW_MS } from "#src/bot/middleware/rate-limit";
import { takeTurn } from "#src/scale/update-turns";
import { createLogger } from "#src/logger";
import { createPostgresTestDatabase, TEST_DATABASE_URL, type TestDatabase } from "../kit/test-database";

const logger = createLogger({ level: "silent" });
const pgOnly = TEST_DATABASE_URL ? "" : " (skipped: TEST_DATABASE_URL is unset; needs PostgreSQL)";

describe("int8 values from PostgreSQL", () => {
  it("are read as exact numbers, and a value beyond 2^53 is an error, never a rounded number", () => {
    expect(parseInt8("1795328970455")).toBe(1795328970455);
    expect(parseInt8("-1001234567890")).toBe(-1001234567890);
    expect(() => parseInt8("9007199254740993")).toThrow(/2\^53/);
  });
});

describe.skipIf(!TEST_DATABASE_URL)(`shared state between replicas on PostgreSQL${pgOnly}`, () => {
  let database: TestDatabase;
  const handles: Array<Kysely<Database>> = [];
  async function replicaDb(): Promise<Kysely<Database>> {
    if (!database) {
      database = await createPostgresTestDatabase("bot_shared");
      const { db } = await openDatabase(database.url, { poolMax: 4 });
      await migrateToLatest(db);
      handles.push(db);
    }
    const { db } = await openDatabase(database.url, { poolMax: 4 });
    handles.push(db);
    return db;
  }
  afterEach(async () => {
    for (const db of handles.splice(0)) await db.destroy();
    await database?.drop();
    database = undefined as unknown as TestDatabase;
  });

  it("runs on PostgreSQL with ids and times as numbers and money as text", async () => {
    const db = await replicaDb();
    const version = await sql<{ version: string }>`select version() as version`.execute(db);
    expect(version.rows[0]!.version).toMatch(/PostgreSQL/);
    await db
      .insertInto("users")
      .values({
        telegram_id: 7_000_000_001,
        chat_id: -1_001_234_567_890,
        language: null,
        alert_orders: 1,
        alert_rules: 1,
        alert_deposits: 1,
        alert_other: 1,
        active: 1,
        created_at: 1_795_328_970_455,
        updated_at: 1_795_328_970_455,
      })
      .execute();
    const user = await db.selectFrom("users").selectAll().executeTakeFirstOrThrow();
    expect(user.telegram_id).toBe(7_000_000_001);
    expect(user.chat_id).toBe(-1_001_234_567_890);
    expect(user.created_at).toBe(1_795_328_970_455);
    const count = await db
      .selectFrom("users")
      .select((eb) => eb.fn.countAll<number>().as("n"))
      .executeTakeFirstOrThrow();
    expect(count.n).toBe(1);
  });

  it("a named lease has one holder; another replica takes over the polling lead within seconds when the leader stops renewing", async () => {
    const a = await replicaDb();
    const b = await replicaDb();
    expect(await tryLease(a, "job", "A", Date.now(), 5_000)).toBe(true);
    expect(await tryLease(b, "job", "B", Date.now(), 5_000)).toBe(false);
    expect(await tryLease(a, "job", "A", Date.now(), 5_000)).toBe(true);

    const events: string[] = [];
    const leader = await startLeaderElection({
      db: a,
      logger,
      name: "telegram-polling",
      owner: "A",
      ttlMs: 1_500,
      renewMs: 300,
      onLead: () => void events.push("A leads"),
      onLose: () => void events.push("A stops"),
    });
    const follower = await startLeaderElection({
      db: b,
      logger,
      name: "telegram-polling",
      owner: "B",
      ttlMs: 1_500,
      renewMs: 300,
      onLead: () => void events.push("B leads"),
      onLose: () => void events.push("B stops"),
    });
    expect(leader.isLeader()).toBe(true);
    expect(follower.isLeader()).toBe(false);
    // A "dies": its database connections are cut and it never renews again.
    await sql`select pg_terminate_backend(pid) from pg_stat_activity where datname = current_database() and pid <> pg_backend_pid()`
      .execute(b)
      .catch(() => undefined);
    const died = Date.now();
    await a.destroy();
    const deadline = Date.now() + 5_000;
    while (!follower.isLeader() && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
    expect(follower.isLeader()).toBe(true);
    expect(Date.now() - died).toBeLessThan(4_000);
    expect(events).toContain("B leads");
    await follower.stop();
    await leader.stop().catch(() => undefined);
  });

  it("updates of one chat at two replicas are handled one at a time in update_id order; a redelivery is not handled twice", async () => {
    const a = await replicaDb();
    const b = await replicaDb();
    const order: string[] = [];
    // update 10 reaches replica A first, 11 reaches B while 10 is still being handled
    const first = await takeTurn(a, 10, 555, "A");
    expect(first.kind).toBe("go");
    const second = takeTurn(b, 11, 555, "B").then(async (turn) => {
      order.push("11 starts");
      if (turn.kind === "go") await turn.finish();
    });
    await new Promise((r) => setTimeout(r, 300));
    order.push("10 ends");
    if (first.kind === "go") await first.finish();
    await second;
    expect(order).toEqual(["10 ends", "11 starts"]);
    // 13 arrives before 12 is done waiting: 12 goes first (another chat is not held up)
    const twelve = await takeTurn(a, 12, 555, "A");
    const other = await takeTurn(b, 20, 777, "B");
    expect(other.kind).toBe("go");
    if (other.kind === "go") await other.finish();
    const thirteen = takeTurn(b, 13, 555, "B");
    await new Promise((r) => setTimeout(r, 200));
    if (twelve.kind === "go") await twelve.finish();
    const turn13 = await thirteen;
    expect(turn13.kind).toBe("go");
    if (turn13.kind === "go") await turn13.finish();
    expect((await takeTurn(b, 10, 555, "B")).kind).toBe("duplicate");
  });

  it("the global Telegram budget holds across replicas taking from it at once; a chat's turn goes to one replica", async () => {
    const dbs = [await replicaDb(), await replicaDb(), await replicaDb()];
    const now = Date.now();
    const grants = await Promise.all(
      dbs.flatMap((db) => Array.from({ length: 5 }, () => takeGlobal(db, now, 3, { perSecond: 22, burst: 6 }))),
    );
    expect(grants.reduce((sum, g) => sum + g.granted, 0)).toBe(6);
    const later = await takeGlobal(dbs[0]!, now + 1_000, 100, { perSecond: 22, burst: 6 });
    expect(later.granted).toBe(6); // the bucket refilled, capped at its burst
    const turns = await Promise.all(dbs.map((db) => takeChatSlot(db, 4242, now, 1_050)));
    expect(turns.filter((t) => t === null)).toHaveLength(1);
  });

  it("a reply's turn with its grant, taken by replicas at once: the chat's burst goes out once, and only the turns taken draw from the budget", async () => {
    const dbs = [await replicaDb(), await replicaDb(), await replicaDb()];
    const now = Date.now();
    const budget = { perSecond: 22, burst: 6 };
    const turns = await Promise.all(
      dbs.flatMap((db) => Array.from({ length: 4 }, () => takeReplyTurn(db, 4343, now, DEFAULT_CHAT_PACE, budget))),
    );
    const taken = turns.filter((turn) => turn.chatDueAt === null);
    expect(taken).toHaveLength(DEFAULT_CHAT_PACE.burst);
    expect(taken.reduce((sum, turn) => sum + (turn.grant?.granted ?? 0), 0)).toBe(DEFAULT_CHAT_PACE.burst);
    for (const waiting of turns.filter((turn) => turn.chatDueAt !== null))
      expect(waiting).toEqual({ chatDueAt: expect.any(Number), grant: null });
    // Of the bucket's 6, the three turns took 3: 3 are left.
    expect((await takeGlobal(dbs[0]!, now, 10, budget)).granted).toBe(3);
  });

  it("a reply's turn beside the alert sender's transaction (the budget locked, then the chat's turn) takes the locks in the same order: no deadlock", async () => {
    const [a, b] = [await replicaDb(), await replicaDb()];
    const now = Date.now();
    const budget = { perSecond: 22, burst: 6 };
    await takeGlobal(a, now, 1, budget); // the bucket's row exists
    let reply: Promise<unknown> | undefined;
    const sender = a.transaction().execute(async (trx) => {
      const grant = await takeGlobalIn(trx, now, 2, budget);
      // While the sender holds the budget's row, a reply to the chat it is about to write to.
      reply = takeReplyTurn(b, 4545, now, DEFAULT_CHAT_PACE, budget);
      await new Promise((resolve) => setTimeout(resolve, 300));
      return { grant, turn: await takeChatSlot(trx, 4545, now, DEFAULT_CHAT_PACE.intervalMs, DEFAULT_CHAT_PACE.burst) };
    });
    const [sent, replied] = await Promise.all([sender, sender.then(() => reply!)]);
    expect(sent).toMatchObject({ grant: { granted: 2 }, turn: null });
    expect(replied).toMatchObject({ chatDueAt: null, grant: { granted: 1 } });
  });

  it("the flood-limit window counted by the update's read is one count across replicas: updates read at once each get their own place", async () => {
    const dbs = [await replicaDb(), await replicaDb(), await replicaDb()];
    const now = Date.now();
    await upsertUser(dbs[0]!, 4444, 4444, now);
    const reads = await Promise.all(
      dbs.flatMap((db) =>
        Array.from({ length: 8 }, () => findUserWithState(db, 4444, 4444, { now, windowMs: FLOOD_WINDOW_MS })),
      ),
    );
    expect(reads.map((read) => read.windowPlace).sort((a, b) => a! - b!)).toEqual(
      Array.from({ length: 24 }, (_, i) => i + 1),
    );
    for (const read of reads) expect(read.user).toMatchObject({ telegram_id: 4444, chat_id: 4444 });
  });

  it("a new user's first updates read at once at several replicas store the user once; each read returns the row or, when another stored it first, none", async () => {
    const dbs = [await replicaDb(), await replicaDb(), await replicaDb()];
    const now = Date.now();
    const reads = await Promise.all(
      dbs.flatMap((db, replica) =>
        Array.from({ length: 8 }, (_, i) =>
          findUserWithState(db, 4545, 4545, { now: now + replica * 8 + i, windowMs: FLOOD_WINDOW_MS }),
        ),
      ),
    );
    const rows = await dbs[0]!.selectFrom("users").selectAll().where("telegram_id", "=", 4545).execute();
    expect(rows).toHaveLength(1);
    const returned = reads.filter((read) => read.user !== undefined);
    expect(returned.length).toBeGreaterThanOrEqual(1);
    for (const read of returned) expect(read.user).toEqual(rows[0]);
    expect(reads.map((read) => read.windowPlace).sort((a, b) => a! - b!)).toEqual(
      Array.from({ length: 24 }, (_, i) => i + 1),
    );
  });
});
