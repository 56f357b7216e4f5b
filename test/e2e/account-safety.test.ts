import { describe, expect, it } from "vitest";
import { randomBytes } from "node:crypto";
import { sql } from "kysely";
import { linkKey, type World, manageWorld } from "../kit/world";
import { findCredential } from "#src/db/repos/credentials";

type ChatUser = ReturnType<World["user"]>;

describe("account and secret safety", () => {
  let world: World;
  manageWorld((started) => (world = started), { env: { PUBLIC_URL: "https://bot.example.com" } });

  /** The user edits one of their messages in the private chat into `text` (Telegram sends an edited_message). */
  function editMessage(user: ChatUser, messageId: number, text: string) {
    const { id, firstName } = user.user;
    world.fake.injectUpdate({
      edited_message: {
        message_id: messageId,
        from: { id, is_bot: false, first_name: firstName, language_code: "en" },
        chat: { id, type: "private", first_name: firstName },
        date: Math.floor(Date.now() / 1000) - 5,
        edit_date: Math.floor(Date.now() / 1000),
        text,
      },
    });
  }

  async function sentAndAnswered(user: ChatUser, text: string) {
    const sent = user.send(text);
    await user.nextMessage();
    return sent;
  }

  it("a message edited into a private key is deleted with the warning, and not logged", async () => {
    const user = world.user(701);
    const sent = await sentAndAnswered(user, "hello");
    const privateKey = randomBytes(32).toString("hex");
    editMessage(user, sent.messageId, privateKey);
    const deletion = await user.nextBotEvent();
    expect(deletion.kind).toBe("delete");
    expect(deletion.message.messageId).toBe(sent.messageId);
    expect((await user.nextMessage()).text).toContain("Never share");
    expect(world.logs()).not.toContain(privateKey);
  });

  it("a message edited into /connect KEY is deleted and the user is asked to send it anew; nothing is linked", async () => {
    const user = world.user(702);
    const { apiKey } = world.newAccount();
    const sent = await sentAndAnswered(user, "/connect");
    const requestsBefore = world.sandboxRequests.length;
    editMessage(user, sent.messageId, `/connect ${apiKey}`);
    const deletion = await user.nextBotEvent();
    expect(deletion.kind).toBe("delete");
    expect(deletion.message.messageId).toBe(sent.messageId);
    expect((await user.nextMessage()).text).toContain("Edits are not read");
    expect(world.sandboxRequests.slice(requestsBefore)).toEqual([]);
    expect(await findCredential(world.app.db, 702)).toBeUndefined();
    expect(world.logs()).not.toContain(apiKey);
  });

  it("a /connect KEY sent in a group is deleted before the private-chats-only answer", async () => {
    const user = world.user(703);
    const { apiKey } = world.newAccount();
    const sent = world.fake.sendText(user.user, `/connect ${apiKey}`, { chat: "group", groupId: -4242 });
    const deadline = Date.now() + 5000;
    const answerIndex = () =>
      world.fake.calls.findIndex((c) => c.method === "sendMessage" && c.params.chat_id === -4242);
    while (answerIndex() === -1 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 25));
    const deletionIndex = world.fake.calls.findIndex(
      (c) => c.method === "deleteMessage" && c.params.chat_id === -4242 && c.params.message_id === sent.messageId,
    );
    expect(deletionIndex).toBeGreaterThanOrEqual(0);
    expect(world.fake.calls[deletionIndex]!.ok).toBe(true);
    expect(deletionIndex).toBeLessThan(answerIndex());
    expect(String(world.fake.calls[answerIndex()]!.params.text)).toContain("private chats only");
    expect(await findCredential(world.app.db, 703)).toBeUndefined();
    expect(world.sandboxRequests).toEqual([]);
  });

  it("when a marketplace webhook handler fails, the log names the route pattern, never the token in the path", async () => {
    const token = randomBytes(32).toString("base64url");
    // the token lookup fails: its table is gone for a moment
    await sql`ALTER TABLE webhook_tokens RENAME TO webhook_tokens_away`.execute(world.app.db);
    let status: number;
    try {
      const body = JSON.stringify({
        event: "order.filled",
        data: { id: "0d8f3c2e-0000-4000-8000-000000000001", status: "Filled" },
      });
      status = (await fetch(`${world.app.url}/webhooks/marketplace/${token}`, { method: "POST", body })).status;
    } finally {
      await sql`ALTER TABLE webhook_tokens_away RENAME TO webhook_tokens`.execute(world.app.db);
    }
    // Not stored: 503, so the marketplace sends it again.
    expect(status).toBe(503);
    const failure = world
      .logs()
      .split("\n")
      .find((line) => line.includes("marketplace webhook could not be stored"));
    expect(failure).toBeDefined();
    expect(failure).toContain("/webhooks/marketplace/:token");
    expect(world.logs()).not.toContain(token);
  });

  it("a 403 on Mark read or Mark all read (writes) does not mark the key broken", async () => {
    const { accountId, apiKey } = world.newAccount();
    world.sandbox.control.addNotification({ accountId, title: "One", body: "first" });
    world.sandbox.control.addNotification({ accountId, title: "Two", body: "second" });
    const user = world.user(704);
    await linkKey(world, user, apiKey);
    user.send("/notifications");
    await user.nextMessage();
    const forbidden = {
      method: "POST",
      pathPrefix: "/notifications",
      status: 403,
      body: { type: "about:blank", title: "Forbidden", status: 403, detail: "not allowed", instance: null },
    };
    world.sandbox.control.injectFault(forbidden);
    user.press(/Mark read 1/);
    await user.nextMessage();
    expect((await findCredential(world.app.db, 704))!.broken_at).toBeNull();
    world.sandbox.control.injectFault(forbidden);
    user.press(/Mark all read/);
    await user.nextMessage();
    expect((await findCredential(world.app.db, 704))!.broken_at).toBeNull();
    // the key still works for the next command
    user.send("/notifications");
    expect((await user.nextMessage()).text).toContain("2 unread");
  });
});
