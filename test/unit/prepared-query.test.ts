import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { sql, type Kysely } from "kysely";
import { prepared, type ParamFn } from "../../src/db/prepared";
import { findConversation, saveConversation } from "../../src/db/repos/conversations";
import type { Database } from "../../src/db/schema";
import { openMigratedTestDatabase, TEST_DIALECTS } from "../kit/test-database";

const T0 = 1_900_000_000_000;

describe.each(TEST_DIALECTS)("a query compiled once and run with new parameters (%s)", (dialect) => {
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
      await db.insertInto("users").values({ telegram_id: id, chat_id: chatId, language: id === 62 ? "ru" : null, alert_orders: 1, alert_rules: 1, alert_deposits: 1, alert_other: 1, active: 1, created_at: T0, updated_at: T0 }).execute();
    }
    let builds = 0;
    const byChat = prepared((kysely: Kysely<Database>, param: ParamFn<{ chatId: number; active: number }>) => {
      builds += 1;
      // a literal value between two parameters keeps its place in the parameter list
      return kysely.selectFrom("users").select(["telegram_id", "language"]).where("chat_id", "=", param("chatId")).where("alert_orders", "=", 1).where("active", "=", param("active"));
    });
    for (const chatId of [610, 620, 630, 999]) {
      const own = await db.selectFrom("users").select(["telegram_id", "language"]).where("chat_id", "=", chatId).where("alert_orders", "=", 1).where("active", "=", 1).execute();
      const { rows } = await byChat(db, { chatId, active: 1 });
      expect(rows.map((row) => ({ ...row, telegram_id: Number(row.telegram_id) }))).toEqual(own.map((row) => ({ ...row, telegram_id: Number(row.telegram_id) })));
    }
    expect((await byChat(db, { chatId: 620, active: 0 })).rows).toEqual([]);
    // inside a transaction too, on the transaction's connection
    await db.transaction().execute(async (trx) => {
      await trx.updateTable("users").set({ language: "zh" }).where("telegram_id", "=", 63).execute();
      expect((await byChat(trx, { chatId: 630, active: 1 })).rows).toEqual([expect.objectContaining({ language: "zh" })]);
    });
    expect(builds).toBe(1);
  });

  it("keeps or replaces a flow's step as the caller asks (the two compiled upserts)", async () => {
    await saveConversation(db, 71, { flow: "quote", step: "resource", state: "{}" }, T0);
    await saveConversation(db, 71, { flow: "quote", step: null, state: '{"a":1}' }, T0 + 1);
    expect(await findConversation(db, 71)).toEqual({ flow: "quote", step: "resource", state: '{"a":1}', updatedAt: T0 + 1 });
    await saveConversation(db, 71, { flow: "quote", step: "volume", state: '{"a":2}' }, T0 + 2);
    expect(await findConversation(db, 71)).toEqual({ flow: "quote", step: "volume", state: '{"a":2}', updatedAt: T0 + 2 });
    await saveConversation(db, 72, { flow: "buy", step: null, state: "{}" }, T0 + 3);
    expect(await findConversation(db, 72)).toEqual({ flow: "buy", step: "", state: "{}", updatedAt: T0 + 3 });
    expect(await findConversation(db, 73)).toBeNull();
  });

  it("refuses a parameter the query would write into its SQL instead of passing it", async () => {
    const inlined = prepared((kysely: Kysely<Database>, param: ParamFn<{ id: number }>) => kysely.selectFrom("users").select("telegram_id").where(sql<boolean>`telegram_id = ${sql.raw(String(param("id")))}`));
    await expect(inlined(db, { id: 1 })).rejects.toThrow('the parameter "id" did not reach');
  });
});
