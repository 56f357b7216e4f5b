import { describe, expect, it } from "vitest";
import { sql, type Kysely } from "kysely";
import type { Database } from "#src/db/schema";
import { KEPT_ON_DISCONNECT } from "#src/db/repos/credentials";
import { enqueueAlert } from "#src/db/repos/outbox";
import { ADDRESS_A, manageWorld, nextBotText, type World } from "../kit/world";
import { linkedUser, waitFor } from "../kit/push-helpers";
import { PUBLIC_URL, ruleInChat } from "../kit/miniapp";

/** The columns that tie a row to a Telegram user or their private chat. */
const USER_COLUMNS = ["telegram_id", "chat_id"];

/** Every table of the migrated schema with a user or chat column, read from the database itself. */
async function tablesWithUserColumns(world: World): Promise<Map<string, string[]>> {
  const db = world.app.db as unknown as Kysely<Record<string, Record<string, unknown>>>;
  let pairs: Array<{ table_name: string; column_name: string }>;
  if (world.dialect === "postgres") {
    pairs = (
      await sql<{
        table_name: string;
        column_name: string;
      }>`select table_name, column_name from information_schema.columns where table_schema = current_schema()`.execute(
        db,
      )
    ).rows;
  } else {
    const tables = (
      await sql<{
        name: string;
      }>`select name from sqlite_master where type = 'table' and name not like 'sqlite_%'`.execute(db)
    ).rows;
    pairs = [];
    for (const { name } of tables) {
      for (const column of (await sql<{ name: string }>`select name from pragma_table_info(${name})`.execute(db)).rows)
        pairs.push({ table_name: name, column_name: column.name });
    }
  }
  const found = new Map<string, string[]>();
  for (const { table_name, column_name } of pairs)
    if (USER_COLUMNS.includes(column_name)) found.set(table_name, [...(found.get(table_name) ?? []), column_name]);
  return found;
}

/** The rows of `table` tied to `id` through any of its user or chat columns. */
async function rowsOf(world: World, table: string, columns: string[], id: number): Promise<number> {
  const db = world.app.db as unknown as Kysely<Record<string, Record<string, unknown>>>;
  let count = 0;
  for (const column of columns)
    count += (
      await db
        .selectFrom(table)
        .select(sql<number>`1`.as("one"))
        .where(column, "=", id)
        .execute()
    ).length;
  return count;
}

/** A user with a row in as many tables as the bot fills: key, token, order, alerts, rule card, watch, group, flow. */
async function busyUser(world: World, id: number) {
  const who = await linkedUser(world, id);
  const { user } = who;
  await ruleInChat(user);
  user.send(`/buy energy 65000 1h ${ADDRESS_A}`);
  await nextBotText(user, (text) => text.includes("Confirm"));
  user.press("✅ Confirm");
  await nextBotText(user, (text) => text.includes("Order placed"));
  // A delivered alert (sent, with its text) and one queued for later.
  const order = world.sandbox.control.listOrders(who.accountId)[0]!;
  await who.post({ event: "order.filled", data: { ...order, status: "Filled", txId: "d".repeat(64) } });
  await waitFor(
    async () =>
      (
        await world.app.db
          .selectFrom("outbox")
          .select("status")
          .where("telegram_id", "=", id)
          .where("status", "=", "sent")
          .execute()
      ).length > 0,
  );
  await enqueueAlert(world.app.db, {
    telegramId: id,
    chatId: id,
    dedupeKey: `test:later:${id}`,
    payload: { method: "sendMessage", params: { chat_id: id, text: "later" } },
    now: Date.now() + 3_600_000,
  });
  user.send("/watch energy 65k 1h 2.5");
  await nextBotText(user, (text) => text.includes("Price watch"));
  await (world.app.db as Kysely<Database>)
    .insertInto("group_links")
    .values({
      telegram_id: id,
      group_chat_id: -100_000 - id,
      group_title: "Team",
      owner_name: `User${id}`,
      copy_filled: 1,
      copy_failed: 1,
      copy_paused: 1,
      copy_prices: 1,
      copy_other: 1,
      linked_at: Date.now(),
    })
    .execute();
  user.send("/quote");
  await nextBotText(user, (text) => text.includes("Which resource"));
  await world.settled();
  return who;
}

describe("/disconnect forgets every row tied to the user", () => {
  let world: World;
  manageWorld((started) => (world = started), { env: { PUBLIC_URL } });

  it("every table with a user or chat column, read from the schema, holds nothing of them afterwards (the kept ones named with a reason)", async () => {
    const tables = await tablesWithUserColumns(world);
    // The kept tables exist, each with its reason: no exemption outlives its table.
    for (const [table, reason] of Object.entries(KEPT_ON_DISCONNECT)) {
      expect(tables.has(table), table).toBe(true);
      expect(reason.length).toBeGreaterThan(20);
    }
    const forgotten = [...tables.keys()].filter((table) => !(table in KEPT_ON_DISCONNECT));
    const me = await busyUser(world, 5301);
    const other = await busyUser(world, 5302);
    const filled = [];
    for (const table of forgotten) if ((await rowsOf(world, table, tables.get(table)!, 5301)) > 0) filled.push(table);
    // The scenario reaches the tables that hold what is personal.
    expect(filled).toEqual(
      expect.arrayContaining([
        "credentials",
        "webhook_tokens",
        "addresses",
        "outbox",
        "open_rule_cards",
        "price_watches",
        "group_links",
        "flows",
        "pending_actions",
        "followed_orders",
      ]),
    );

    me.user.send("/disconnect");
    const ask = await nextBotText(me.user, (text) => text.includes("Forget the key"));
    world.fake.pressButton(me.user.user, ask.messageId, ask.replyMarkup!.inline_keyboard[0]![0]!.callback_data!);
    await nextBotText(me.user, (text) => text.includes("deleted"));
    await world.settled();

    for (const table of forgotten) expect(await rowsOf(world, table, tables.get(table)!, 5301), table).toBe(0);
    // Another user's rows are untouched.
    for (const table of filled) expect(await rowsOf(world, table, tables.get(table)!, 5302), table).toBeGreaterThan(0);
    expect(other.user.user.id).toBe(5302);
  });
});
