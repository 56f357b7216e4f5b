import { readFileSync, existsSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { randomBytes } from "node:crypto";
import { sql } from "kysely";
import { ADDRESS_A, ADDRESS_B, callbackAnswerText, linkKey, type World, manageWorld } from "../kit/world";
import { dumpPostgresRows, TEST_DATABASE_URL } from "../kit/test-database";
import { findCredential } from "#src/db/repos/credentials";
import { rotateWebhookToken } from "#src/db/repos/webhook-tokens";
import { enqueueAlert } from "#src/db/repos/outbox";

describe("/connect, keys at rest, /disconnect, /settings, /webhook", () => {
  let world: World;
  manageWorld((started) => (world = started), { file: true, env: { PUBLIC_URL: "https://bot.example.com" } });

  /** The text and caption of every Bot API call, and every parameter of them besides. */
  function everythingSent() {
    const texts = world.fake.calls.flatMap((c) =>
      [c.params.text, c.params.caption].filter((v) => v !== undefined).map(String),
    );
    return `${texts.join("\n")}\n${JSON.stringify(world.fake.calls.map((c) => c.params))}`;
  }

  /** The raw key is in no Bot API call, no log line and no byte of the database (SQLite: the file and its WAL; PostgreSQL: every row). */
  async function expectKeyNowhere(apiKey: string, when: string) {
    expect(everythingSent(), when).not.toContain(apiKey);
    expect(world.logs(), when).not.toContain(apiKey);
    if (world.dialect === "sqlite") {
      expect(world.app.dbPath).not.toBe("");
      for (const file of [world.app.dbPath, `${world.app.dbPath}-wal`]) {
        if (existsSync(file)) expect(readFileSync(file).includes(Buffer.from(apiKey)), `${when}: ${file}`).toBe(false);
      }
    } else {
      expect(await dumpPostgresRows(world.env.DATABASE_URL!), when).not.toContain(apiKey);
    }
  }

  /** Checked while the app runs (the WAL still holds recent pages), then again after it stopped. */
  async function expectKeyNowhereBeforeAndAfterStop(apiKey: string) {
    expect(existsSync(`${world.app.dbPath}-wal`) || world.dialect !== "sqlite", "the WAL exists while running").toBe(
      true,
    );
    await expectKeyNowhere(apiKey, "while running");
    await world.app.stop();
    await expectKeyNowhere(apiKey, "after stop");
    await world.restart();
  }

  it.skipIf(TEST_DATABASE_URL !== undefined)(
    "SQLite runs with secure_delete on, so deleted pages are zeroed (skipped on PostgreSQL: a SQLite pragma)",
    async () => {
      const rows = await sql<{ secure_delete: number }>`PRAGMA secure_delete`.execute(world.app.db);
      expect(rows.rows[0]?.secure_delete).toBe(1);
    },
  );

  it("links with the one-line form: deletes the key message first, shows the last 4 and balances, never stores or logs the key", async () => {
    const { apiKey } = world.newAccount({ trx: "123.5", usdt: "7" });
    const user = world.user(201);
    const sent = user.send(`/connect ${apiKey}`);
    const reply = await user.nextMessage();
    const deletion = world.fake.calls.find((c) => c.method === "deleteMessage");
    expect(deletion?.params.message_id).toBe(sent.messageId);
    expect(world.fake.calls.indexOf(deletion!)).toBeLessThan(
      world.fake.calls.findIndex((c) => c.method === "sendMessage"),
    );
    expect(reply.text).toContain(apiKey.slice(-4));
    expect(reply.text).toContain("123.5 TRX");
    expect(reply.text).toContain("7 USDT");
    expect(await findCredential(world.app.db, 201)).toBeDefined();
    expect(world.sandboxRequests).toContain("GET /api/v1/wallet/balance");
    await expectKeyNowhereBeforeAndAfterStop(apiKey);
  });

  it("the guided key is in no call, log, database file or WAL either, before and after stop", async () => {
    const { apiKey } = world.newAccount();
    const user = world.user(213);
    user.send("/connect");
    await user.nextMessage();
    const sent = user.send(apiKey);
    expect((await user.nextMessage()).text).toContain(apiKey.slice(-4));
    expect(world.fake.messages(213).find((m) => m.messageId === sent.messageId)?.deleted).toBe(true);
    expect(await findCredential(world.app.db, 213)).toBeDefined();
    await expectKeyNowhereBeforeAndAfterStop(apiKey);
  });

  it("links with the guided form and a wrong key stores nothing and offers to try again", async () => {
    const user = world.user(202);
    user.send("/connect");
    expect((await user.nextMessage()).text).toContain("API key");
    const wrong = `sk_wrong_${randomBytes(12).toString("hex")}`;
    const sent = user.send(wrong);
    const reply = await user.nextMessage();
    expect(world.fake.messages(202).find((m) => m.messageId === sent.messageId)?.deleted).toBe(true);
    expect(reply.text).toContain("did not accept");
    expect(reply.replyMarkup?.inline_keyboard.flat().some((b) => /Try again/.test(b.text))).toBe(true);
    expect(await findCredential(world.app.db, 202)).toBeUndefined();
    // try again with a good key
    const { apiKey } = world.newAccount();
    user.press(/Try again/);
    await user.nextMessage();
    const good = user.send(apiKey);
    const linked = await user.nextMessage();
    expect(world.fake.messages(202).find((m) => m.messageId === good.messageId)?.deleted).toBe(true);
    expect(linked.text).toContain(`${apiKey.slice(-4)}`);
    expect(await findCredential(world.app.db, 202)).toBeDefined();
    expect(world.logs()).not.toContain(wrong);
  });

  it("another command closes the key step: text typed after it is neither deleted nor sent to the marketplace as a key", async () => {
    const user = world.user(204);
    await linkKey(world, user, world.newAccount().apiKey);
    user.send("/connect");
    await user.nextMessage();
    user.send("/wallet");
    expect((await user.nextMessage()).text).toContain("TRX");
    const before = world.sandboxRequests.length;
    const typed = user.send(ADDRESS_A);
    const reply = await user.nextMessage();
    await world.settled();
    expect(world.fake.messages(204).find((m) => m.messageId === typed.messageId)?.deleted).toBe(false);
    expect(reply.text).not.toMatch(/key/i);
    // The address went to no balance check as a key (the key step's only call).
    expect(world.sandboxRequests.slice(before)).not.toContain("GET /api/v1/wallet/balance");
    // /cancel after /connect says it cancelled; the text after it is ordinary text again.
    user.send("/connect");
    await user.nextMessage();
    user.send("/cancel");
    expect((await user.nextMessage()).text).toContain("Cancelled");
    const after = user.send("thanks!");
    expect((await user.nextMessage()).text).toContain("I didn't understand that");
    expect(world.fake.messages(204).find((m) => m.messageId === after.messageId)?.deleted).toBe(false);
  });

  it("a card shown under the replaced key cannot be confirmed after another key is linked: no order on either account", async () => {
    const first = world.newAccount();
    const user = world.user(205);
    await linkKey(world, user, first.apiKey);
    user.send(`/buy energy 65000 1h ${ADDRESS_A}`);
    expect((await user.nextMessage()).text).toContain("Total");
    const second = world.newAccount();
    user.send(`/connect ${second.apiKey}`);
    expect((await user.nextMessage()).text).toContain("replaces your previous key");
    const press = user.press("✅ Confirm");
    expect(await callbackAnswerText(world, press.callbackQueryId)).toBe("This card was cancelled.");
    await world.settled();
    expect(world.sandbox.control.listOrders(first.accountId)).toHaveLength(0);
    expect(world.sandbox.control.listOrders(second.accountId)).toHaveLength(0);
  });

  it("a second /connect says it replaces the key", async () => {
    const user = world.user(203);
    await linkKey(world, user, world.newAccount().apiKey);
    user.send("/connect");
    expect((await user.nextMessage()).text).toContain("replaces");
    const second = world.newAccount().apiKey;
    user.send(second);
    expect((await user.nextMessage()).text).toContain("replaces your previous key");
  });

  it("a command needing a key, sent without one, offers /connect and calls nothing", async () => {
    const user = world.user(204);
    const requestsBefore = world.sandboxRequests.length;
    user.send("/buy energy 65000 1h TNPeeaaFB7K9cmo4uQpcU32zGK8G1NYqeL");
    const reply = await user.nextMessage();
    // the marketplace received no request at all
    expect(world.sandboxRequests.slice(requestsBefore)).toEqual([]);
    expect(reply.text).toContain("/connect");
    expect(
      reply.replyMarkup?.inline_keyboard
        .flat()
        .map((b) => b.text)
        .join(),
    ).toMatch(/Connect/);
    expect(world.fake.calls.some((c) => c.method === "deleteMessage")).toBe(false);
  });

  it("a tampered ciphertext asks to relink instead of crashing", async () => {
    const user = world.user(205);
    await linkKey(world, user, world.newAccount().apiKey);
    const credential = (await findCredential(world.app.db, 205))!;
    const bytes = Buffer.from(credential.ciphertext, "base64");
    bytes[20] = bytes[20]! ^ 0xff;
    await world.app.db
      .updateTable("credentials")
      .set({ ciphertext: bytes.toString("base64") })
      .where("telegram_id", "=", 205)
      .execute();
    user.send("/buy");
    expect((await user.nextMessage()).text).toMatch(/relink/i);
  });

  it("a key stored under an old SECRET_KEY still works after rotation and is re-encrypted at start", async () => {
    const user = world.user(211);
    const { apiKey } = world.newAccount({ trx: "42", usdt: "0" });
    await linkKey(world, user, apiKey);
    const before = (await findCredential(world.app.db, 211))!;
    await world.app.stop();
    world.env.SECRET_KEY_PREVIOUS = world.env.SECRET_KEY;
    world.env.SECRET_KEY = randomBytes(32).toString("base64");
    await world.restart();
    const after = (await findCredential(world.app.db, 211))!;
    expect(after.key_id).not.toBe(before.key_id);
    expect(after.ciphertext).not.toBe(before.ciphertext);
    user.send("/wallet");
    expect((await user.nextMessage()).text).toContain("42");
    // and without the previous key the old value would not open: the new one no longer needs it
    await world.app.stop();
    delete world.env.SECRET_KEY_PREVIOUS;
    await world.restart();
    user.send("/wallet");
    expect((await user.nextMessage()).text).toContain("42");
  });

  it("/webhook without PUBLIC_URL explains that the operator must set it", async () => {
    await world.app.stop();
    delete world.env.PUBLIC_URL;
    await world.restart();
    const user = world.user(212);
    await linkKey(world, user, world.newAccount().apiKey);
    user.send("/webhook");
    expect((await user.nextMessage()).text).toContain("PUBLIC_URL");
  });

  it("a 401 marks the key broken and tells the user exactly once", async () => {
    const user = world.user(206);
    const { apiKey } = world.newAccount();
    await linkKey(world, user, apiKey);
    world.sandbox.control.revokeKey({ apiKey });
    user.send("/buy energy 65000 1h TNPeeaaFB7K9cmo4uQpcU32zGK8G1NYqeL");
    expect((await user.nextMessage()).text).toContain("refused your API key");
    expect((await findCredential(world.app.db, 206))!.broken_at).not.toBeNull();
    // the poller sees the broken key and does not tell again
    await world.app.push.pollNow();
    user.send("/buy");
    const again = await user.nextMessage();
    expect(again.text).toContain("no longer works");
    const told = world.fake.messages(206).filter((m) => m.from === "bot" && m.text?.includes("refused your API key"));
    expect(told).toHaveLength(1);
  });

  it("deletes a pasted private key and seed phrase with a warning, logging neither", async () => {
    const user = world.user(207);
    const privateKey = randomBytes(32).toString("hex");
    const first = user.send(privateKey);
    expect((await user.nextMessage()).text).toContain("Never share");
    const phrase = "abandon ability able about above absent absorb abstract absurd abuse access accident";
    const second = user.send(phrase);
    expect((await user.nextMessage()).text).toContain("Never share");
    const messages = world.fake.messages(207);
    expect(messages.find((m) => m.messageId === first.messageId)?.deleted).toBe(true);
    expect(messages.find((m) => m.messageId === second.messageId)?.deleted).toBe(true);
    expect(world.logs()).not.toContain(privateKey);
    expect(world.logs()).not.toContain("abandon ability");
  });

  it("/disconnect confirms, then leaves no row of the user's data: key, addresses, cards, flow, refs, queued alerts, followed orders", async () => {
    const user = world.user(208);
    const { accountId, apiKey } = world.newAccount();
    world.sandbox.control.addNotification({ accountId, title: "Hello", body: "unread, so it gets a Mark read button" });
    await linkKey(world, user, apiKey);
    await rotateWebhookToken(world.app.db, 208, Date.now());
    // a placed order: an address-book entry and a followed order
    user.send(`/buy energy 65000 1h ${ADDRESS_A}`);
    await user.nextMessage();
    user.press("✅ Confirm");
    let placed;
    do placed = await user.nextBotEvent();
    while (!placed.message.text?.includes("Order placed"));
    // a confirmation card left pending
    user.send(`/buy energy 65000 1h ${ADDRESS_B}`);
    expect((await user.nextMessage()).text).toContain(ADDRESS_B);
    // callback references (the Mark read buttons)
    user.send("/notifications");
    await user.nextMessage();
    // a queued alert, not due yet so the sender leaves it queued
    const later = Date.now() + 3_600_000;
    await enqueueAlert(world.app.db, {
      telegramId: 208,
      chatId: 208,
      dedupeKey: "test:queued",
      payload: { method: "sendMessage", params: { chat_id: 208, text: "later" } },
      now: later,
    });
    user.send("/disconnect");
    const ask = await user.nextMessage();
    // an open guided flow, entered with the answer to its first question
    user.send("/quote");
    expect((await user.nextMessage()).text).toContain("Which resource");
    user.send("energy");
    expect((await user.nextMessage()).text).toContain("How much Energy");
    // The open flow is a conversation, stored per chat (the chat is the user in a private chat);
    // `flows` holds a first question or the key step, none open now.
    const tables = [
      "credentials",
      "webhook_tokens",
      "addresses",
      "pending_actions",
      "conversations",
      "callback_refs",
      "outbox",
      "followed_orders",
      "poll_state",
      "flows",
    ] as const;
    const rowsOf = async (table: (typeof tables)[number]) =>
      table === "conversations"
        ? (await world.app.db.selectFrom("conversations").selectAll().where("chat_id", "=", 208).execute()).length
        : (await world.app.db.selectFrom(table).selectAll().where("telegram_id", "=", 208).execute()).length;
    // A flow's state is saved just after its question is sent.
    await world.settled();
    for (const table of tables.filter((t) => t !== "poll_state" && t !== "flows"))
      expect(await rowsOf(table), `${table} before`).toBeGreaterThan(0);
    expect(await rowsOf("pending_actions")).toBeGreaterThanOrEqual(2);
    world.fake.pressButton(user.user, ask.messageId, ask.replyMarkup!.inline_keyboard[0]![0]!.callback_data!);
    let done;
    do done = await user.nextBotEvent();
    while (done.message.messageId !== ask.messageId);
    expect(done.message.text).toContain("deleted");
    for (const table of tables) expect(await rowsOf(table), `${table} after`).toBe(0);
    expect(
      await world.app.db.selectFrom("seen_notifications").selectAll().where("telegram_id", "=", 208).execute(),
    ).toHaveLength(0);
    // the user row stays (language, settings)
    expect(
      await world.app.db.selectFrom("users").selectAll().where("telegram_id", "=", 208).executeTakeFirst(),
    ).toBeDefined();
  });

  it("/settings toggles persist across a restart", async () => {
    const user = world.user(209);
    user.send("/settings");
    await user.nextMessage();
    user.press(/Deposits/);
    const edited = await user.nextBotEvent();
    expect(edited.kind).toBe("edit");
    expect(edited.message.text).toMatch(/Deposits: off/);
    user.press(/Русский/);
    const russian = await user.nextBotEvent();
    expect(russian.message.text).toMatch(/Язык/);
    await world.restart();
    user.send("/settings");
    const after = await user.nextMessage();
    expect(after.text).toMatch(/Язык/);
    expect(after.text).toMatch(/выкл/);
  });

  it("/webhook shows a personal URL; Rotate makes the old URL answer 404", async () => {
    const user = world.user(210);
    await linkKey(world, user, world.newAccount().apiKey);
    user.send("/webhook");
    const reply = await user.nextMessage();
    const oldUrl = /https:\/\/bot\.example\.com\/webhooks\/marketplace\/([A-Za-z0-9_-]{43})/.exec(reply.text ?? "");
    expect(oldUrl).not.toBeNull();
    const oldToken = oldUrl![1]!;
    const body = JSON.stringify({
      event: "order.filled",
      data: { id: "0d8f3c2e-0000-4000-8000-000000000001", status: "Filled" },
    });
    expect((await fetch(`${world.app.url}/webhooks/marketplace/${oldToken}`, { method: "POST", body })).status).toBe(
      200,
    );
    // the accepted webhook pushes its alert; the Rotate press then edits the URL message
    user.press(/Rotate/);
    let rotated = await user.nextBotEvent();
    while (rotated.kind !== "edit") rotated = await user.nextBotEvent();
    const newMatch = /webhooks\/marketplace\/([A-Za-z0-9_-]{43})/.exec(rotated.message.text ?? "");
    expect(newMatch, `${rotated.kind}: ${rotated.message.text}`).not.toBeNull();
    const newToken = newMatch![1]!;
    expect(newToken).not.toBe(oldToken);
    expect((await fetch(`${world.app.url}/webhooks/marketplace/${oldToken}`, { method: "POST", body })).status).toBe(
      404,
    );
    // only hashes are stored
    const rows = await world.app.db.selectFrom("webhook_tokens").selectAll().execute();
    expect(JSON.stringify(rows)).not.toContain(newToken);
  });
});
