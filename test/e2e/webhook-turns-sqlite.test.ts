import { afterEach, describe, expect, it } from "vitest";
import { telegramWebhookSecret } from "#src/app";
import { migrateToLatest, openDatabase } from "#src/db/connection";
import { processUpdateTurns, takeTurn } from "#src/scale/update-turns";
import { startWorld, type World } from "../kit/world";
import { removeDatabaseDir } from "../kit/temp-dir";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

/**
 * On SQLite (one process by design) a webhook update's turn is this process's own: the route
 * already handles a chat's updates one after another, and only the dedupe row is written. A
 * redelivery is still dropped, also after a restart, and an update whose handler died with the
 * process is handled when Telegram delivers it again (no lease to wait out).
 */
describe("webhook turns on SQLite: in this process, with the dedupe row in the database", () => {
  let world: World | null = null;
  afterEach(async () => {
    await world?.stop();
    world = null;
  });

  const helpUpdate = (updateId: number, chatId: number) => ({
    update_id: updateId,
    message: {
      message_id: updateId,
      date: 0,
      chat: { id: chatId, type: "private", first_name: "W" },
      from: { id: chatId, is_bot: false, first_name: "W", language_code: "en" },
      text: "/help",
      entities: [{ type: "bot_command", offset: 0, length: 5 }],
    },
  });

  it("a redelivery after a restart is acknowledged and not handled again; an update left half-handled by a crash is handled at once", async () => {
    world = await startWorld({
      env: { BOT_MODE: "webhook", PUBLIC_URL: "https://bot.example.com" },
      file: true,
      sqlite: true,
    });
    const secret = telegramWebhookSecret(world.env.SECRET_KEY!);
    const post = (update: unknown) =>
      fetch(`${world!.app.url}/telegram`, {
        method: "POST",
        headers: { "content-type": "application/json", "x-telegram-bot-api-secret-token": secret },
        body: JSON.stringify(update),
      });
    const replies = (chatId: number) =>
      world!.fake.calls.filter((c) => c.method === "sendMessage" && Number(c.params.chat_id) === chatId).length;
    world.fake.sendText({ id: 411, firstName: "W", languageCode: "en" }, "hello");
    world.fake.sendText({ id: 412, firstName: "W", languageCode: "en" }, "hello");

    expect((await post(helpUpdate(7_001, 411))).status).toBe(200);
    expect(replies(411)).toBe(1);
    expect((await post(helpUpdate(7_001, 411))).status).toBe(200);
    expect(replies(411)).toBe(1);

    await world.restart();
    expect((await post(helpUpdate(7_001, 411))).status).toBe(200);
    expect(replies(411)).toBe(1);

    // A process that died while handling 7,002 left its row taken, with a lease still running.
    const now = Date.now();
    await world.app.db
      .insertInto("telegram_updates")
      .values({
        update_id: 7_002,
        chat_id: 412,
        owner: "a-process-that-died",
        lease_until: now + 60_000,
        done: 2,
        received_at: now,
      })
      .execute();
    const started = Date.now();
    expect((await post(helpUpdate(7_002, 412))).status).toBe(200);
    expect(replies(412)).toBe(1);
    // Handled in the same request, not after the dead holder's 60 s lease (a loaded machine is slow, never that slow).
    expect(Date.now() - started).toBeLessThan(20_000);
    const rows = await world.app.db
      .selectFrom("telegram_updates")
      .select(["update_id", "done"])
      .orderBy("update_id")
      .execute();
    expect(rows.map((row) => ({ update_id: Number(row.update_id), done: Number(row.done) }))).toEqual([
      { update_id: 7_001, done: 1 },
      { update_id: 7_002, done: 1 },
    ]);
  });

  it("the process turns: a duplicate while handling and after; an abandoned update goes again; the shared turns would wait out the dead holder's lease instead", async () => {
    const dir = mkdtempSync(join(tmpdir(), "turns-"));
    const { db } = await openDatabase(`file:${join(dir, "turns.db")}`);
    try {
      await migrateToLatest(db);
      const turns = processUpdateTurns(db, "here");
      const first = await turns.take(10, 5);
      expect(first.kind).toBe("go");
      expect((await turns.take(10, 5)).kind).toBe("duplicate");
      if (first.kind === "go") await first.finish();
      expect((await turns.take(10, 5)).kind).toBe("duplicate");

      const failing = await turns.take(11, 5);
      expect(failing.kind).toBe("go");
      if (failing.kind === "go") await failing.abandon();
      const again = await turns.take(11, 5);
      expect(again.kind).toBe("go");
      if (again.kind === "go") await again.finish();

      // a row a dead process left taken: a new process takes it over at once
      const now = Date.now();
      await db
        .insertInto("telegram_updates")
        .values({ update_id: 12, chat_id: 5, owner: "dead", lease_until: now + 60_000, done: 2, received_at: now })
        .execute();
      const afterRestart = processUpdateTurns(db, "new");
      expect((await afterRestart.take(10, 5)).kind).toBe("duplicate");
      const takenOver = await afterRestart.take(12, 5);
      expect(takenOver.kind).toBe("go");
      if (takenOver.kind === "go") await takenOver.finish();
      // the shared turns, meant for replicas, must leave a live lease alone
      await db
        .insertInto("telegram_updates")
        .values({ update_id: 13, chat_id: 5, owner: "dead", lease_until: now + 60_000, done: 2, received_at: now })
        .execute();
      expect((await takeTurn(db, 13, 5, "new")).kind).toBe("duplicate");
      const rows = await db
        .selectFrom("telegram_updates")
        .select(["update_id", "done", "owner"])
        .orderBy("update_id")
        .execute();
      expect(rows.map((row) => [Number(row.update_id), Number(row.done), row.owner])).toEqual([
        [10, 1, "here"],
        [11, 1, "here"],
        [12, 1, "new"],
        [13, 2, "dead"],
      ]);
    } finally {
      await db.destroy();
      await removeDatabaseDir(dir);
    }
  });
});
