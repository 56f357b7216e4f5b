import { afterEach, beforeEach, describe, expect, it } from "vitest";
import fc from "fast-check";
import { sql, type Kysely } from "kysely";
import { openMigratedTestDatabase } from "../kit/test-database";
import { describeEachDialect } from "../kit/test-database-dialects";
import { expectSharedStatements } from "../kit/batching";
import type { Database } from "#src/db/schema";
import {
  DEFAULT_CHAT_PACE,
  DEFAULT_GLOBAL_BUDGET,
  databaseSendBudget,
  memorySendBudget,
  type SendBudgetStore,
} from "#src/scale/send-budget";

type Step =
  | { op: "global"; dt: number; want: number }
  | { op: "globalIn"; dt: number; want: number }
  | { op: "refund"; count: number }
  | { op: "replyTurn"; dt: number; chat: number }
  | { op: "alert"; dt: number; chat: number }
  | { op: "answered"; dt: number; chat: number }
  | { op: "defer"; dt: number; chat: number; forMs: number };

const step: fc.Arbitrary<Step> = fc.oneof(
  fc.record({
    op: fc.constant("global" as const),
    dt: fc.integer({ min: 0, max: 120 }),
    want: fc.integer({ min: 0, max: 4 }),
  }),
  fc.record({
    op: fc.constant("globalIn" as const),
    dt: fc.integer({ min: 0, max: 120 }),
    want: fc.integer({ min: 0, max: 40 }),
  }),
  fc.record({ op: fc.constant("refund" as const), count: fc.integer({ min: 0, max: 3 }) }),
  fc.record({
    op: fc.constant("replyTurn" as const),
    dt: fc.integer({ min: 0, max: 1_500 }),
    chat: fc.integer({ min: 1, max: 3 }),
  }),
  fc.record({
    op: fc.constant("alert" as const),
    dt: fc.integer({ min: 0, max: 1_500 }),
    chat: fc.integer({ min: 1, max: 3 }),
  }),
  fc.record({
    op: fc.constant("answered" as const),
    dt: fc.integer({ min: 0, max: 300 }),
    chat: fc.integer({ min: 1, max: 3 }),
  }),
  fc.record({
    op: fc.constant("defer" as const),
    dt: fc.integer({ min: 0, max: 300 }),
    chat: fc.integer({ min: 1, max: 3 }),
    forMs: fc.integer({ min: 1_000, max: 5_000 }),
  }),
);

/** Plays the steps on one store; returns every answer it gave, in order. */
async function play(store: SendBudgetStore, db: Kysely<Database>, steps: Step[], start: number): Promise<unknown[]> {
  let now = start;
  const answers: unknown[] = [];
  for (const s of steps) {
    if ("dt" in s) now += s.dt;
    switch (s.op) {
      case "global":
        answers.push(await store.takeGlobal(now, s.want, DEFAULT_GLOBAL_BUDGET));
        break;
      case "globalIn":
        answers.push(
          await db.transaction().execute((trx) => store.takeGlobalIn(trx, now, s.want, DEFAULT_GLOBAL_BUDGET)),
        );
        break;
      case "refund":
        await store.refundGlobal(null, s.count, DEFAULT_GLOBAL_BUDGET);
        break;
      case "replyTurn":
        answers.push(await store.takeReplyTurn(s.chat, now, DEFAULT_CHAT_PACE, DEFAULT_GLOBAL_BUDGET));
        break;
      case "alert":
        answers.push(await db.transaction().execute((trx) => store.takeChatSlot(trx, s.chat, now, DEFAULT_CHAT_PACE)));
        break;
      case "answered":
        await store.recordChatSendAt(null, s.chat, now, DEFAULT_CHAT_PACE);
        break;
      case "defer":
        await store.deferChat(null, s.chat, now + s.forMs);
        break;
    }
  }
  return answers;
}

describe("Telegram's budgets in memory (SQLite, one process)", () => {
  it("the memory store holds the pace: a quiet chat gets three turns, then one per 1.1 s; the global bucket 28/s", async () => {
    const store = memorySendBudget();
    const at = 5_000_000;
    expect((await store.takeReplyTurn(9, at, DEFAULT_CHAT_PACE, DEFAULT_GLOBAL_BUDGET)).chatDueAt).toBeNull();
    expect(await store.takeChatSlot(null, 9, at, DEFAULT_CHAT_PACE)).toBeNull();
    expect((await store.takeReplyTurn(9, at, DEFAULT_CHAT_PACE, DEFAULT_GLOBAL_BUDGET)).chatDueAt).toBeNull();
    expect((await store.takeReplyTurn(9, at + 10, DEFAULT_CHAT_PACE, DEFAULT_GLOBAL_BUDGET)).chatDueAt).toBe(
      at + 1_100,
    );
    let granted = 0;
    for (let ms = 0; ms < 10_000; ms += 5)
      granted += (await store.takeGlobal(at + ms, 1, DEFAULT_GLOBAL_BUDGET)).granted;
    // 10 s at 28/s plus the first burst of 1.9 whole messages (1)
    expect(granted).toBeGreaterThanOrEqual(280);
    expect(granted).toBeLessThanOrEqual(281);
    await store.prune(at + 10 * 3_600_000);
    expect(
      (await store.takeReplyTurn(9, at + 10 * 3_600_000, DEFAULT_CHAT_PACE, DEFAULT_GLOBAL_BUDGET)).chatDueAt,
    ).toBeNull();
  });
});

/**
 * The database store's answers on each dialect (PostgreSQL when TEST_DATABASE_URL is set): there a
 * reply's grant is one statement of its own (a locking CTE and an update), and a reply's chat turn
 * with its grant another (the chat's upsert before those CTEs), so their arithmetic is held to the
 * memory store's here.
 */
describeEachDialect("the budgets in the database on %s answer as the memory store", (dialect) => {
  let db: Kysely<Database>;
  let close: () => Promise<void>;
  beforeEach(async () => {
    ({ db, close } = await openMigratedTestDatabase(dialect, "bot_send_budget"));
  });
  afterEach(async () => {
    await close();
  });

  it("any sequence of grants, refunds, chat turns with their grant, answers and 429 deferrals gets the same answers from both", async () => {
    let run = 0;
    await fc.assert(
      fc.asyncProperty(fc.array(step, { minLength: 1, maxLength: 60 }), async (steps) => {
        // A fresh start for each run: clocks far apart, so neither store's earlier state matters.
        run += 1;
        const start = 1_000_000_000 + run * 10_000_000;
        await db.deleteFrom("send_budget").execute();
        await db.deleteFrom("chat_send").execute();
        const fromDatabase = await play(databaseSendBudget(db), db, steps, start);
        const fromMemory = await play(memorySendBudget(), db, steps, start);
        expect(fromMemory).toEqual(fromDatabase);
      }),
      { numRuns: 150 },
    );
  });

  it("a reply's turn comes with its grant, is due again exactly when the pace says, and takes no grant while the chat waits", async () => {
    const store = databaseSendBudget(db, DEFAULT_GLOBAL_BUDGET);
    const at = 7_000_000;
    const pace = { intervalMs: 1_000, burst: 1 };
    expect(await store.takeReplyTurn(4, at, pace, DEFAULT_GLOBAL_BUDGET)).toEqual({
      chatDueAt: null,
      grant: { granted: 1, limited: false, nextAt: at + 4 },
    });
    // The bucket held 1.9 and gave one: 0.9 left, so a second message is 4 ms away at 28/s.
    expect(await store.takeReplyTurn(4, at + 999, pace, DEFAULT_GLOBAL_BUDGET)).toEqual({
      chatDueAt: at + 1_000,
      grant: null,
    });
    // Waiting drew nothing from the bucket: it refilled past one whole message by itself.
    expect(await store.takeGlobal(at + 999, 1, DEFAULT_GLOBAL_BUDGET)).toMatchObject({ granted: 1 });
    expect(await store.takeReplyTurn(4, at + 1_000, pace, DEFAULT_GLOBAL_BUDGET)).toMatchObject({
      chatDueAt: null,
      grant: { granted: 0, limited: true },
    });
  });

  it("concurrent replies' turns get what one at a time would, and share statements on PostgreSQL", async () => {
    const at = 8_000_000;
    const pace = DEFAULT_CHAT_PACE;
    // A bucket that holds every grant asked for: each of 20 chats gets its turn and a grant.
    const roomy = { perSecond: 1_000, burst: 100 };
    const store = databaseSendBudget(db, roomy);
    const chats = Array.from({ length: 20 }, (_, index) => 500 + index);
    const turns = await Promise.all(chats.map((chat) => store.takeReplyTurn(chat, at, pace, roomy)));
    expect(turns.map((turn) => turn.chatDueAt)).toEqual(chats.map(() => null));
    expect(turns.map((turn) => turn.grant?.granted)).toEqual(chats.map(() => 1));
    // The bucket gave exactly 20 messages, and each chat's row moved by one turn.
    expect(await store.takeGlobal(at, 100, roomy)).toMatchObject({ granted: 80 });
    const rows = await db
      .selectFrom("chat_send")
      .select(["chat_id", "next_send_at"])
      .where("chat_id", ">=", 500)
      .orderBy("chat_id")
      .execute();
    const fullFrom = at - (pace.burst - 1) * pace.intervalMs;
    expect(rows.map((row) => [Number(row.chat_id), Number(row.next_send_at)])).toEqual(
      chats.map((chat) => [chat, fullFrom + pace.intervalMs]),
    );
    expectSharedStatements(dialect, store.replyTurnStatements, chats.length);

    // A bucket of 1.9 messages: as one at a time, one grant in all, the other turns told to wait
    // for the bucket; a chat asked for four times at once gets its burst of three, then its due time.
    await db.deleteFrom("send_budget").execute();
    await db.deleteFrom("chat_send").execute();
    const tight = databaseSendBudget(db, DEFAULT_GLOBAL_BUDGET);
    const asked = [601, 602, 603, 604, 605, 606, 600, 600, 600, 600];
    const answers = await Promise.all(asked.map((chat) => tight.takeReplyTurn(chat, at, pace, DEFAULT_GLOBAL_BUDGET)));
    const memory = memorySendBudget();
    const oneAtATime = [];
    for (const chat of asked) oneAtATime.push(await memory.takeReplyTurn(chat, at, pace, DEFAULT_GLOBAL_BUDGET));
    const granted = (list: typeof answers) => list.reduce((sum, answer) => sum + (answer.grant?.granted ?? 0), 0);
    expect(granted(answers)).toBe(granted(oneAtATime));
    expect(granted(answers)).toBe(1);
    expect(answers.filter((answer) => answer.chatDueAt === null)).toHaveLength(9);
    expect(answers.find((answer) => answer.chatDueAt !== null)!.chatDueAt).toBe(fullFrom + 3 * pace.intervalMs);
    // A turn without its grant learns when the bucket holds a message again (1.9 - 1 at 28/s: 4 ms).
    for (const answer of answers)
      if (answer.chatDueAt === null && answer.grant!.granted === 0)
        expect(answer.grant).toEqual({ granted: 0, limited: true, nextAt: at + 4 });

    // A bucket of 4 with one taken: three grants for five calls, and inside the batch they go in the
    // order the calls came (703 before 702), not by chat id. On SQLite the calls run one at a time,
    // in order. On PostgreSQL the bucket's row is held meanwhile, so the two lone calls wait at its
    // lock before the batch is sent; the first at the lock takes its grant first, but the second
    // may lose its place to the batch: under READ COMMITTED it locks the row again in the version
    // the first wrote, and the batch, sent when the first ended, can lock that version before it.
    await db.deleteFrom("send_budget").execute();
    const four = { perSecond: 28, burst: 4 };
    const fair = databaseSendBudget(db, four);
    expect(await fair.takeGlobal(at, 1, four)).toMatchObject({ granted: 1 });
    let release = () => {};
    let holding: Promise<void> = Promise.resolve();
    if (dialect === "PostgreSQL") {
      const held = new Promise<void>((resolve) => (release = resolve));
      let locked = () => {};
      const lockTaken = new Promise<void>((resolve) => (locked = resolve));
      holding = db.transaction().execute(async (trx) => {
        await sql`select 1 from send_budget where name = 'telegram' for update`.execute(trx);
        locked();
        await held;
      });
      await lockTaken;
    }
    const arriving = [705, 701, 703, 702, 704];
    const asking = Promise.all(arriving.map((chat) => fair.takeReplyTurn(chat, at, pace, four)));
    if (dialect === "PostgreSQL") {
      // Both lone statements reach the lock; the other three queue behind them for one batch.
      await expect
        .poll(async () =>
          Number(
            (
              await sql<{
                waiting: string;
              }>`select count(*) as waiting from pg_stat_activity where wait_event_type = 'Lock' and datname = current_database()`.execute(
                db,
              )
            ).rows[0]!.waiting,
          ),
        )
        .toBe(2);
    }
    release();
    await holding;
    const got = (await asking).map((answer) => answer.grant?.granted);
    if (dialect === "SQLite") expect(got).toEqual([1, 1, 1, 0, 0]);
    else {
      // Three grants; one lone call at least; in the batch 703 before 702 before 704, so the batch's
      // one or two went to 703 and then 702, never to 704.
      expect(got.reduce((sum: number, granted) => sum + granted!, 0)).toBe(3);
      expect(got[0]! + got[1]!).toBeGreaterThanOrEqual(1);
      expect([got[2], got[4]]).toEqual([1, 0]);
    }
    if (dialect === "PostgreSQL")
      expect(fair.replyTurnStatements).toMatchObject({ statements: 3, batches: 1, failedBatches: 0 });
  });
});
