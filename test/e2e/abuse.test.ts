import { describe, expect, it } from "vitest";
import { randomBytes } from "node:crypto";
import { type World, manageWorld } from "../kit/world";
import { findCredential } from "#src/db/repos/credentials";

type ChatUser = ReturnType<World["user"]>;

describe("abuse limits", () => {
  let world: World;
  manageWorld((started) => (world = started));

  const botTexts = (chatId: number) =>
    world.fake
      .messages(chatId)
      .filter((m) => m.from === "bot")
      .map((m) => m.text ?? "");

  /** 30 /help at once: 20 answered, one warning, the rest dropped. */
  async function flood(user: ChatUser, text = "/help") {
    for (let i = 0; i < 30; i++) user.send(text);
    const deadline = Date.now() + 8000;
    while (botTexts(user.user.id).length < 21 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 25));
    await new Promise((r) => setTimeout(r, 300));
    expect(botTexts(user.user.id).filter((t) => t.includes("too fast"))).toHaveLength(1);
  }

  async function waitFor(check: () => boolean, what: string) {
    const deadline = Date.now() + 5000;
    while (!check() && Date.now() < deadline) await new Promise((r) => setTimeout(r, 25));
    expect(check(), what).toBe(true);
  }

  it("a flood of updates gets one polite warning, then is dropped", async () => {
    const user = world.user(601);
    await flood(user);
    expect(botTexts(601).filter((t) => t.includes("Commands"))).toHaveLength(20);
  });

  it("during a flood a pasted private key is still deleted, with the warning", async () => {
    const user = world.user(603);
    await flood(user);
    const privateKey = randomBytes(32).toString("hex");
    const sent = user.send(privateKey);
    await waitFor(
      () => world.fake.messages(603).find((m) => m.messageId === sent.messageId)?.deleted === true,
      "the pasted key was deleted",
    );
    const deletion = world.fake.calls.find(
      (c) => c.method === "deleteMessage" && c.params.message_id === sent.messageId,
    );
    expect(deletion?.ok).toBe(true);
    await waitFor(() => botTexts(603).some((t) => t.includes("Never share")), "the warning was sent");
    expect(world.logs()).not.toContain(privateKey);
  });

  it("during a flood a /connect KEY message is still deleted, though nothing else is done with it", async () => {
    const user = world.user(604);
    const { apiKey } = world.newAccount();
    await flood(user);
    const sent = user.send(`/connect ${apiKey}`);
    await waitFor(
      () => world.fake.messages(604).find((m) => m.messageId === sent.messageId)?.deleted === true,
      "the key message was deleted",
    );
    // dropped: not linked, and the marketplace never saw the key
    expect(await findCredential(world.app.db, 604)).toBeUndefined();
    expect(world.sandboxRequests).toEqual([]);
    expect(world.logs()).not.toContain(apiKey);
  });

  it("during a flood the answer to an open /connect key step is still deleted", async () => {
    const user = world.user(605);
    user.send("/connect");
    await user.nextMessage();
    // A flood of /connect (any other command would close the key step it asks for).
    await flood(user, "/connect");
    const sent = user.send(`sk_some_key_${randomBytes(8).toString("hex")}`);
    await waitFor(
      () => world.fake.messages(605).find((m) => m.messageId === sent.messageId)?.deleted === true,
      "the key answer was deleted",
    );
  });

  it("caps how often /connect can be tried per hour", async () => {
    const user = world.user(602);
    for (let i = 0; i < 10; i++) {
      user.send(`/connect sk_wrong_key_number_${i}`);
      expect((await user.nextMessage()).text).toContain("did not accept");
      await new Promise((r) => setTimeout(r, 550));
    }
    user.send("/connect sk_wrong_key_number_11");
    expect((await user.nextMessage()).text).toContain("Too many attempts");
  }, 20_000);
});

describe("the guided /connect key step expires", () => {
  let world: World;
  manageWorld((started) => (world = started));

  /** Moves the bot's clock `minutes` on, once the step it asked is stored (no real time passes). */
  const minutesPass = async (minutes: number) => {
    await world.settled();
    world.shiftAppClock(minutes * 60_000);
  };
  const pastTheStep = () => minutesPass(11);

  it("text typed after 10 minutes is normal text: not sent to the marketplace, not stored", async () => {
    const user = world.user(611);
    const { apiKey } = world.newAccount();
    user.send("/connect");
    expect((await user.nextMessage()).text).toContain("API key");
    await pastTheStep();
    const requestsBefore = world.sandboxRequests.length;
    user.send(apiKey);
    expect((await user.nextMessage()).text).toContain("didn't understand");
    expect(world.sandboxRequests.slice(requestsBefore)).toEqual([]);
    expect(await findCredential(world.app.db, 611)).toBeUndefined();
    expect(await world.app.db.selectFrom("flows").selectAll().where("telegram_id", "=", 611).execute()).toHaveLength(0);
  });

  it("a private key pasted after the step expired goes through the secret-paste guard", async () => {
    const user = world.user(612);
    user.send("/connect");
    await user.nextMessage();
    await pastTheStep();
    const privateKey = randomBytes(32).toString("hex");
    const sent = user.send(privateKey);
    expect((await user.nextMessage()).text).toContain("Never share");
    expect(world.fake.messages(612).find((m) => m.messageId === sent.messageId)?.deleted).toBe(true);
    expect(world.sandboxRequests).toEqual([]);
  });

  it("within the 10 minutes the key is still taken", async () => {
    const user = world.user(613);
    const { apiKey } = world.newAccount();
    user.send("/connect");
    await user.nextMessage();
    await minutesPass(9);
    user.send(apiKey);
    expect((await user.nextMessage()).text).toContain(apiKey.slice(-4));
    expect(await findCredential(world.app.db, 613)).toBeDefined();
  });
});
