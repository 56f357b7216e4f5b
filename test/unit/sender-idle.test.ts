import { afterEach, beforeEach, expect, it } from "vitest";
import type { Kysely } from "kysely";
import type { Api } from "grammy";
import { OutboxSender } from "#src/push/sender";
import { enqueueAlert } from "#src/db/repos/outbox";
import { upsertUser } from "#src/db/repos/users";
import { databaseSendBudget, type SendBudgetStore } from "#src/scale/send-budget";
import { Metrics } from "#src/metrics";
import { createLogger } from "#src/logger";
import type { Database } from "#src/db/schema";
import { openMigratedTestDatabase } from "../kit/test-database";
import { describeEachDialect } from "../kit/test-database-dialects";

/**
 * The alert sender with nothing due takes no grant: on PostgreSQL a grant locks the shared
 * budget's row, which every reply's turn locks too, so an idle sender's grants (given straight
 * back) made replies wait behind its transaction four times a second.
 */
describeEachDialect("the alert sender with nothing due (%s)", (dialect) => {
  let db: Kysely<Database>;
  let close: () => Promise<void>;
  beforeEach(async () => {
    ({ db, close } = await openMigratedTestDatabase(dialect, "bot_sender_idle"));
  });
  afterEach(() => close());

  it("takes no grant while the outbox holds nothing due, and takes one and sends once a row is due", async () => {
    const store = databaseSendBudget(db);
    const grants: number[] = [];
    const counting: SendBudgetStore = {
      ...store,
      takeGlobalIn: (trx, now, want, budget) => {
        grants.push(want);
        return store.takeGlobalIn(trx, now, want, budget);
      },
    };
    const sent: Array<{ chat_id: number; text: string }> = [];
    const api = {
      raw: { sendMessage: async (params: { chat_id: number; text: string }) => (sent.push(params), { message_id: 1 }) },
    } as unknown as Api;
    let clock = 1_900_000_000_000;
    const sender = new OutboxSender({
      db,
      logger: createLogger({ level: "silent" }),
      metrics: new Metrics(),
      now: () => clock,
      budgetStore: counting,
    });
    sender.start(api);
    await sender.stop(0);

    // Empty outbox, then a row due only later: no grant either time.
    expect(await sender.cycle()).toBe(0);
    await upsertUser(db, 71, 71, clock);
    await enqueueAlert(db, {
      telegramId: 71,
      chatId: 71,
      dedupeKey: "later",
      payload: { method: "sendMessage", params: { text: "later" } },
      now: clock,
      notBefore: clock + 60_000,
    });
    expect(await sender.cycle()).toBe(0);
    expect(grants).toEqual([]);

    // Once it is due, one grant, and the alert goes out.
    clock += 60_000;
    expect(await sender.cycle()).toBe(1);
    expect(grants).toHaveLength(1);
    await sender.stop(1_000);
    expect(sent).toEqual([{ chat_id: 71, text: "later" }]);
  });
});
