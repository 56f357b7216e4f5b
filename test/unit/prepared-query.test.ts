import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { sql, type Kysely } from "kysely";
import { prepared, type ParamFn } from "#src/db/prepared";
import { conversationSaveStatements, findConversation, saveConversation } from "#src/db/repos/conversations";
import type { Database } from "#src/db/schema";
import { openMigratedTestDatabase } from "../kit/test-database";
import { describeEachDialect } from "../kit/test-database-dialects";
import { expectSharedStatements } from "../kit/batching";
import { sqliteHandle } from "#src/db/connection";
import { findUserWithState } from "#src/db/repos/users";
import { deleteFlow, findFlow, FLOW_VERSION, flowStoreStatements, setFlow } from "#src/db/repos/flows";

const T0 = 1_900_000_000_000;

describeEachDialect("a query compiled once and run with new parameters (%s)", (dialect) => {
  let db: Kysely<Database>;
  let close: () => Promise<void>;
  beforeEach(async () => {
    ({ db, close } = await openMigratedTestDatabase(dialect, "bot_prepared"));
  });
  afterEach(() => close());

  it("builds once, and answers each run as the builder's own query with those values would", async () => {
    for (const [id, chatId] of [
      [61, 610],
      [62, 620],
      [63, 630],
    ] as const) {
      await db
        .insertInto("users")
        .values({
          telegram_id: id,
          chat_id: chatId,
          language: id === 62 ? "ru" : null,
          alert_orders: 1,
          alert_rules: 1,
          alert_deposits: 1,
          alert_other: 1,
          active: 1,
          created_at: T0,
          updated_at: T0,
        })
        .execute();
    }
    let builds = 0;
    const byChat = prepared((kysely: Kysely<Database>, param: ParamFn<{ chatId: number; active: number }>) => {
      builds += 1;
      // a literal value between two parameters keeps its place in the parameter list
      return kysely
        .selectFrom("users")
        .select(["telegram_id", "language"])
        .where("chat_id", "=", param("chatId"))
        .where("alert_orders", "=", 1)
        .where("active", "=", param("active"));
    });
    for (const chatId of [610, 620, 630, 999]) {
      const own = await db
        .selectFrom("users")
        .select(["telegram_id", "language"])
        .where("chat_id", "=", chatId)
        .where("alert_orders", "=", 1)
        .where("active", "=", 1)
        .execute();
      const { rows } = await byChat(db, { chatId, active: 1 });
      expect(rows.map((row) => ({ ...row, telegram_id: Number(row.telegram_id) }))).toEqual(
        own.map((row) => ({ ...row, telegram_id: Number(row.telegram_id) })),
      );
    }
    expect((await byChat(db, { chatId: 620, active: 0 })).rows).toEqual([]);
    // inside a transaction too, on the transaction's connection
    await db.transaction().execute(async (trx) => {
      await trx.updateTable("users").set({ language: "zh" }).where("telegram_id", "=", 63).execute();
      expect((await byChat(trx, { chatId: 630, active: 1 })).rows).toEqual([
        expect.objectContaining({ language: "zh" }),
      ]);
    });
    expect(builds).toBe(1);
  });

  it("keeps or replaces a flow's step as the caller asks (the two compiled upserts)", async () => {
    await saveConversation(db, 71, { flow: "quote", step: "resource", state: "{}" }, T0);
    await saveConversation(db, 71, { flow: "quote", step: null, state: '{"a":1}' }, T0 + 1);
    expect(await findConversation(db, 71)).toEqual({
      flow: "quote",
      step: "resource",
      state: '{"a":1}',
      updatedAt: T0 + 1,
    });
    await saveConversation(db, 71, { flow: "quote", step: "volume", state: '{"a":2}' }, T0 + 2);
    expect(await findConversation(db, 71)).toEqual({
      flow: "quote",
      step: "volume",
      state: '{"a":2}',
      updatedAt: T0 + 2,
    });
    await saveConversation(db, 72, { flow: "buy", step: null, state: "{}" }, T0 + 3);
    expect(await findConversation(db, 72)).toEqual({ flow: "buy", step: "", state: "{}", updatedAt: T0 + 3 });
    expect(await findConversation(db, 73)).toBeNull();
  });

  it("saves concurrent chats' flows as saves of their own would, sharing statements on PostgreSQL", async () => {
    // Stored flows, some of them then saved keeping their step; new chats; one chat saved twice at once.
    for (const chat of [80, 81, 82])
      await saveConversation(db, chat, { flow: "quote", step: "resource", state: "{}" }, T0);
    const before = conversationSaveStatements(db)?.statements ?? 0;
    const saves = [
      ...[80, 81, 82].map((chat) => ({
        chat,
        flow: "quote",
        step: chat === 82 ? "volume" : null,
        state: `{"c":${chat}}`,
      })),
      ...Array.from({ length: 20 }, (_, index) => ({
        chat: 100 + index,
        flow: "buy",
        step: index % 2 === 0 ? "address" : null,
        state: `{"n":${index}}`,
      })),
      { chat: 100, flow: "buy", step: "volume", state: '{"n":"again"}' },
    ];
    await Promise.all(
      saves.map((save) =>
        saveConversation(db, save.chat, { flow: save.flow, step: save.step, state: save.state }, T0 + 5),
      ),
    );
    expect(await findConversation(db, 80)).toEqual({
      flow: "quote",
      step: "resource",
      state: '{"c":80}',
      updatedAt: T0 + 5,
    });
    expect(await findConversation(db, 82)).toEqual({
      flow: "quote",
      step: "volume",
      state: '{"c":82}',
      updatedAt: T0 + 5,
    });
    // A chat's saves run in order: its last one is what stays.
    expect(await findConversation(db, 100)).toEqual({
      flow: "buy",
      step: "volume",
      state: '{"n":"again"}',
      updatedAt: T0 + 5,
    });
    expect(await findConversation(db, 101)).toEqual({ flow: "buy", step: "", state: '{"n":1}', updatedAt: T0 + 5 });
    expect(await findConversation(db, 119)).toEqual({ flow: "buy", step: "", state: '{"n":19}', updatedAt: T0 + 5 });
    expect(await findConversation(db, 118)).toEqual({
      flow: "buy",
      step: "address",
      state: '{"n":18}',
      updatedAt: T0 + 5,
    });
    const counts = conversationSaveStatements(db);
    expectSharedStatements(dialect, counts, saves.length, before);
    // Inside a transaction a save is the caller's own statement, batched with nothing.
    await db
      .transaction()
      .execute((trx) => saveConversation(trx, 120, { flow: "quote", step: "resource", state: "{}" }, T0 + 6));
    expect(conversationSaveStatements(db)?.statements ?? 0).toBe(counts?.statements ?? 0);
    expect(await findConversation(db, 120)).toMatchObject({ step: "resource" });
  });

  it("stores concurrent users' open steps as upserts of their own would, sharing statements on PostgreSQL", async () => {
    const users = Array.from({ length: 24 }, (_, index) => 300 + index);
    for (const id of users)
      await db
        .insertInto("users")
        .values({
          telegram_id: id,
          chat_id: id,
          language: null,
          alert_orders: 1,
          alert_rules: 1,
          alert_deposits: 1,
          alert_other: 1,
          active: 1,
          created_at: T0,
          updated_at: T0,
        })
        .execute();
    // Rows already stored for some; one user stored twice at once.
    for (const id of [300, 301]) await setFlow(db, id, { flow: "connect", step: "key", data: {} }, T0);
    const before = flowStoreStatements(db)?.statements ?? 0;
    const stores = [
      ...users.map((id) => ({ id, flow: id % 2 === 0 ? "quote" : "buy", step: `s${id}`, data: { n: id } })),
      { id: 305, flow: "watch", step: "watch/resource", data: { n: "again" } },
    ];
    await Promise.all(
      stores.map((store) =>
        setFlow(db, store.id, { flow: store.flow, step: store.step, data: store.data }, T0 + 5 + (store.id % 3)),
      ),
    );
    expect(await findFlow(db, 300)).toEqual({ flow: "quote", step: "s300", data: '{"n":300}', version: FLOW_VERSION });
    expect(await findFlow(db, 301)).toEqual({ flow: "buy", step: "s301", data: '{"n":301}', version: FLOW_VERSION });
    // A user's stores run in order: the last one is what stays.
    expect(await findFlow(db, 305)).toEqual({
      flow: "watch",
      step: "watch/resource",
      data: '{"n":"again"}',
      version: FLOW_VERSION,
    });
    expect(await findFlow(db, 323)).toEqual({ flow: "buy", step: "s323", data: '{"n":323}', version: FLOW_VERSION });
    const stamps = await db
      .selectFrom("flows")
      .select(["telegram_id", "updated_at"])
      .where("telegram_id", "in", [306, 307, 308])
      .orderBy("telegram_id")
      .execute();
    expect(stamps.map((row) => Number(row.updated_at))).toEqual([T0 + 5, T0 + 6, T0 + 7]);
    expectSharedStatements(dialect, flowStoreStatements(db), stores.length, before);
    // A row whose user is gone fails alone: the first two run at once, the other three queue as
    // one batch, which fails and runs again row by row, so its neighbours are stored.
    const failedBefore = flowStoreStatements(db)?.failedBatches ?? 0;
    const mixed = await Promise.allSettled(
      [311, 312, 313, 999, 314].map((id) => setFlow(db, id, { flow: "quote", step: "mixed", data: {} }, T0 + 8)),
    );
    expect(mixed.map((outcome) => outcome.status)).toEqual([
      "fulfilled",
      "fulfilled",
      "fulfilled",
      "rejected",
      "fulfilled",
    ]);
    expect(await findFlow(db, 999)).toBeNull();
    for (const id of [313, 314]) expect(await findFlow(db, id)).toMatchObject({ step: "mixed" });
    const counts = flowStoreStatements(db);
    if (counts) expect(counts.failedBatches).toBe(failedBefore + 1);
    // Inside a transaction a store is the caller's own statement, batched with nothing.
    await db.transaction().execute((trx) => setFlow(trx, 310, { flow: "quote", step: "inside", data: {} }, T0 + 9));
    expect(flowStoreStatements(db)?.statements ?? 0).toBe(counts?.statements ?? 0);
    expect(await findFlow(db, 310)).toMatchObject({ step: "inside" });
    expect(await deleteFlow(db, 310)).toBe(true);
  });

  it("refuses a parameter the query would write into its SQL instead of passing it", async () => {
    const inlined = prepared((kysely: Kysely<Database>, param: ParamFn<{ id: number }>) =>
      kysely
        .selectFrom("users")
        .select("telegram_id")
        .where(sql<boolean>`telegram_id = ${sql.raw(String(param("id")))}`),
    );
    await expect(inlined(db, { id: 1 })).rejects.toThrow('the parameter "id" did not reach');
  });
});

describe("a compiled query on SQLite while the connection is free or held", () => {
  let db: Kysely<Database>;
  let close: () => Promise<void>;
  beforeEach(async () => {
    ({ db, close } = await openMigratedTestDatabase("SQLite", "bot_prepared_idle"));
    await db
      .insertInto("users")
      .values({
        telegram_id: 81,
        chat_id: 810,
        language: "en",
        alert_orders: 1,
        alert_rules: 1,
        alert_deposits: 1,
        alert_other: 1,
        active: 1,
        created_at: T0,
        updated_at: T0,
      })
      .execute();
  });
  afterEach(() => close());

  const languageOf = prepared((kysely: Kysely<Database>, param: ParamFn<{ id: number }>) =>
    kysely.selectFrom("users").select("language").where("telegram_id", "=", param("id")),
  );
  const setLanguage = prepared((kysely: Kysely<Database>, param: ParamFn<{ id: number; language: string }>) =>
    kysely
      .updateTable("users")
      .set({ language: param("language") })
      .where("telegram_id", "=", param("id")),
  );

  it("runs at once when nobody holds the connection, with Kysely's result", async () => {
    const executed = vi.spyOn(db, "executeQuery");
    expect((await languageOf(db, { id: 81 })).rows).toEqual([{ language: "en" }]);
    const write = await setLanguage(db, { id: 81, language: "ru" });
    expect(write.numAffectedRows).toBe(1n);
    expect(write.rows).toEqual([]);
    expect((await languageOf(db, { id: 81 })).rows).toEqual([{ language: "ru" }]);
    expect(executed).not.toHaveBeenCalled();
  });

  it("waits its turn behind a transaction in progress: never reads or joins its uncommitted writes", async () => {
    let written!: () => void;
    const wrote = new Promise<void>((resolve) => (written = resolve));
    let finish!: () => void;
    const finishing = new Promise<void>((resolve) => (finish = resolve));
    const transaction = db.transaction().execute(async (trx) => {
      await trx.updateTable("users").set({ language: "zh" }).where("telegram_id", "=", 81).execute();
      written();
      await finishing;
      throw new Error("rolled back");
    });
    await wrote;
    const read = languageOf(db, { id: 81 });
    const write = setLanguage(db, { id: 81, language: "ru" });
    let settled = false;
    void Promise.all([read, write]).then(() => (settled = true));
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(settled).toBe(false);
    finish();
    await expect(transaction).rejects.toThrow("rolled back");
    // the read ran after the rollback (not inside the transaction), and the write was not rolled back with it
    expect((await read).rows).toEqual([{ language: "en" }]);
    await write;
    expect(
      (await db.selectFrom("users").select("language").where("telegram_id", "=", 81).executeTakeFirstOrThrow())
        .language,
    ).toBe("ru");
  });

  it("does not overtake a query started before it and not yet run", async () => {
    const earlier = db.updateTable("users").set({ language: "de" }).where("telegram_id", "=", 81).execute();
    expect((await languageOf(db, { id: 81 })).rows).toEqual([{ language: "de" }]);
    await earlier;
  });
});

describe("SQLite's compiled statements", () => {
  it("compile the update's read of its user once: later updates reuse it, with or without a first question stored", async () => {
    const { db, close } = await openMigratedTestDatabase("SQLite", "bot_prepared_cache");
    try {
      const sqlite = sqliteHandle(db)!;
      await findUserWithState(db, 81, 81, { now: T0, windowMs: 10_000 });
      const compile = vi.spyOn(sqlite, "prepare");
      await setFlow(
        db,
        81,
        { flow: "quote", step: "quote/resource", data: { args: [{}], asked: { askedAt: T0 } } },
        T0,
      );
      const compiledBefore = compile.mock.calls.length;
      for (const id of [81, 82, 83]) {
        const read = await findUserWithState(db, id, id, { now: T0 + 1, windowMs: 10_000 });
        expect(read.step !== null).toBe(id === 81);
      }
      // The read's statement is about 1,000 characters: none of the three reads compiled anything.
      expect(compile.mock.calls.slice(compiledBefore).map(([text]) => String(text).slice(0, 60))).toEqual([]);
    } finally {
      await close();
    }
  });
});
