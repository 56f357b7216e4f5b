import { afterEach, describe, expect, it } from "vitest";
import type { Update } from "grammy/types";
import { ADDRESS_A, BOT_TOKEN, nextBotText, startWorld, type World } from "../kit/world";
import { telegramWebhookSecret } from "#src/app";

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function waitFor<T>(
  read: () => T | undefined | false | Promise<T | undefined | false>,
  what: string,
  timeoutMs = 10_000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`not in time: ${what}`);
    await sleep(25);
  }
}

/**
 * Webhook mode with the fake Telegram delivering to the app and redelivering what is not answered
 * 2xx a second later, as Telegram does. A reply that fails with 403 is final: the update is
 * acknowledged at once and handled once. A reply that fails with 5xx is left to redelivery, but
 * what the handler already did (a key linked, a message deleted, an order placed, a rule paused)
 * is not done again.
 */
describe("webhook redelivery: nothing a handler did is done twice", () => {
  let world: World;
  /** How many times the bot handled each update_id. */
  let handled: Map<number, number>;
  afterEach(async () => {
    world.fake.setDown(null);
    await world.stop();
  });

  async function start(): Promise<void> {
    world = await startWorld({
      env: { BOT_MODE: "webhook", PUBLIC_URL: "https://bot.example.com" },
      telegramServerErrorRetries: 0,
      allowRejectedCalls: true,
    });
    const secret = telegramWebhookSecret(world.env.SECRET_KEY!);
    // The public URL does not reach this test's app: Telegram (the fake) is pointed at it directly.
    const set = await fetch(`${world.telegram.apiRoot}/bot${BOT_TOKEN}/setWebhook`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ url: `${world.app.url}/telegram`, secret_token: secret }),
    });
    expect(set.ok).toBe(true);
    handled = new Map();
    const bot = world.app.bot;
    const original = bot.handleUpdate.bind(bot);
    bot.handleUpdate = (update: Update, envelope?: Parameters<typeof original>[1]) => {
      handled.set(update.update_id, (handled.get(update.update_id) ?? 0) + 1);
      return original(update, envelope);
    };
  }

  const pending = async () => {
    const info = (await (await fetch(`${world.telegram.apiRoot}/bot${BOT_TOKEN}/getWebhookInfo`)).json()) as {
      result: { pending_update_count: number };
    };
    return info.result.pending_update_count;
  };
  const answered500 = () =>
    world
      .logs()
      .split("\n")
      .filter((line) => line.includes("answered 500 so Telegram delivers it again")).length;
  const requests = (prefix: string) => world.sandboxRequests.filter((request) => request.startsWith(prefix)).length;
  const isActive = async (id: number) =>
    Number(
      (await world.app.db.selectFrom("users").select("active").where("telegram_id", "=", id).executeTakeFirst())
        ?.active,
    );

  async function linked(id: number) {
    const { accountId, apiKey } = world.newAccount();
    const user = world.user(id);
    user.send(`/connect ${apiKey}`);
    await nextBotText(user, (text) => text.includes("linked."));
    return { accountId, apiKey, user };
  }

  /** Telegram answers 5xx from the moment the marketplace receives `request` until the webhook answered 500. */
  async function telegramDownAfter(request: string): Promise<void> {
    const before = answered500();
    await waitFor(() => requests(request) > 0, request);
    world.fake.setDown("5xx");
    await waitFor(() => answered500() > before, "the webhook's 500");
    world.fake.setDown(null);
  }

  /** The user blocks the bot as soon as the marketplace receives `request` (so the reply after it meets 403). */
  async function blockedAfter(request: string, userId: number): Promise<void> {
    await waitFor(() => requests(request) > 0, request);
    world.fake.blockUser(userId);
  }

  /** Every update was handled once and confirmed: none is waiting for redelivery. */
  async function allConfirmedOnce(): Promise<void> {
    await waitFor(async () => (await pending()) === 0, "every update confirmed");
    await sleep(300);
    expect([...handled.values()].every((count) => count === 1)).toBe(true);
  }

  it("/connect KEY whose reply fails with 403: acknowledged at once, handled once, the user marked inactive", async () => {
    await start();
    const { apiKey } = world.newAccount();
    const user = world.user(7301);
    user.send("/help");
    await user.nextMessage();
    const sent = user.send(`/connect ${apiKey}`);
    world.fake.blockUser(7301);
    await waitFor(async () => (await isActive(7301)) === 0, "the user marked inactive");
    await allConfirmedOnce();
    expect(handled.get(sent.updateId)).toBe(1);
    expect(answered500()).toBe(0);
    expect(requests("GET /api/v1/wallet/balance")).toBe(1);
    expect(world.logs()).toContain("no retry can change");
  });

  it("/connect KEY whose reply fails with 5xx: answered 500, redelivered, and the key is linked once and its message deleted once", async () => {
    await start();
    const { apiKey } = world.newAccount();
    const user = world.user(7302);
    user.send("/help");
    await user.nextMessage();
    world.sandbox.control.injectFault({ method: "GET", pathPrefix: "/api/v1/wallet/balance", delayMs: 800 });
    const sent = user.send(`/connect ${apiKey}`);
    await telegramDownAfter("GET /api/v1/wallet/balance");
    await allConfirmedOnce();
    expect(handled.get(sent.updateId)).toBe(1);
    expect(world.logs()).toContain("acknowledged, not handled again");
    expect(requests("GET /api/v1/wallet/balance")).toBe(1);
    expect(
      world
        .logs()
        .split("\n")
        .filter((line) => line.includes("API key linked")),
    ).toHaveLength(1);
    expect(
      world.fake.calls.filter((call) => call.method === "deleteMessage" && Number(call.params.chat_id) === 7302),
    ).toHaveLength(1);
    expect(world.fake.messages(7302).find((message) => message.messageId === sent.messageId)?.deleted).toBe(true);
    const row = await world.app.db
      .selectFrom("credentials")
      .select("telegram_id")
      .where("telegram_id", "=", 7302)
      .executeTakeFirst();
    expect(row).toBeDefined();
  });

  it("/connect with a refused key whose reply fails with 5xx: handled again, so the user is told, but its message is not deleted again", async () => {
    await start();
    const user = world.user(7305);
    user.send("/help");
    await user.nextMessage();
    world.sandbox.control.injectFault({ method: "GET", pathPrefix: "/api/v1/wallet/balance", delayMs: 800 });
    const sent = user.send("/connect not-a-key-of-this-marketplace");
    await telegramDownAfter("GET /api/v1/wallet/balance");
    await nextBotText(user, (text) => text.includes("did not accept that key"));
    await waitFor(async () => (await pending()) === 0, "every update confirmed");
    expect(handled.get(sent.updateId)).toBe(2);
    expect(requests("GET /api/v1/wallet/balance")).toBe(2);
    expect(
      world.fake.calls.filter((call) => call.method === "deleteMessage" && Number(call.params.chat_id) === 7305),
    ).toHaveLength(1);
    expect(
      await world.app.db
        .selectFrom("credentials")
        .select("telegram_id")
        .where("telegram_id", "=", 7305)
        .executeTakeFirst(),
    ).toBeUndefined();
  });

  it("Confirm on a buy card: with 5xx the order is placed once; with 403 the update is acknowledged at once", async () => {
    await start();
    const { user } = await linked(7303);
    user.send(`/buy energy 65000 1h ${ADDRESS_A}`);
    await nextBotText(user, (text) => text.includes("Total"));
    world.sandbox.control.injectFault({ method: "POST", pathPrefix: "/api/v1/orders", delayMs: 800 });
    const press = user.press("✅ Confirm");
    await telegramDownAfter("POST /api/v1/orders");
    await allConfirmedOnce();
    expect(handled.get(press.updateId)).toBe(1);
    expect(requests("POST /api/v1/orders")).toBe(1);

    user.send(`/buy energy 65000 1h ${ADDRESS_A}`);
    await nextBotText(user, (text) => text.includes("Total"));
    world.sandbox.control.injectFault({ method: "POST", pathPrefix: "/api/v1/orders", delayMs: 800 });
    const second = user.press("✅ Confirm");
    await waitFor(() => requests("POST /api/v1/orders") === 2, "the second order");
    world.fake.blockUser(7303);
    await waitFor(async () => (await isActive(7303)) === 0, "the user marked inactive");
    await allConfirmedOnce();
    expect(handled.get(second.updateId)).toBe(1);
    expect(requests("POST /api/v1/orders")).toBe(2);
    expect(answered500()).toBe(1);
  });

  it("Pause on a rule card: with 5xx the rule is paused once; with 403 the update is acknowledged at once", async () => {
    await start();
    const { accountId, user } = await linked(7304);
    user.send(`/refill ${ADDRESS_A} 30k 65k 1h`);
    await nextBotText(user, (text) => text.includes("Confirm the new rule"));
    user.press("✅ Confirm");
    await nextBotText(user, (text) => text.includes("Rule created"));
    const [rule] = world.sandbox.control.listRules(accountId);
    const pausePath = `POST /api/v1/automations/${rule!.id}/pause`;
    world.sandbox.control.injectFault({
      method: "POST",
      pathPrefix: `/api/v1/automations/${rule!.id}/pause`,
      delayMs: 800,
    });
    const press = user.press("⏸ Pause");
    await telegramDownAfter(pausePath);
    await allConfirmedOnce();
    expect(handled.get(press.updateId)).toBe(1);
    expect(requests(pausePath)).toBe(1);
    expect(world.sandbox.control.listRules(accountId)[0]!.status).toBe("paused");

    user.send("/rules");
    await nextBotText(user, (text) => text.includes("Your automation rules"));
    user.press(/Auto-refill|30,000/);
    await nextBotText(user, (text) => text.includes("TRX spent"));
    const resumePath = `POST /api/v1/automations/${rule!.id}/resume`;
    world.sandbox.control.injectFault({
      method: "POST",
      pathPrefix: `/api/v1/automations/${rule!.id}/resume`,
      delayMs: 800,
    });
    const resume = user.press("▶️ Resume");
    await blockedAfter(resumePath, 7304);
    await waitFor(async () => (await isActive(7304)) === 0, "the user marked inactive");
    await allConfirmedOnce();
    expect(handled.get(resume.updateId)).toBe(1);
    expect(requests(resumePath)).toBe(1);
    expect(world.sandbox.control.listRules(accountId)[0]!.status).toBe("active");
    expect(answered500()).toBe(1);
  });

  it("a redelivery that reaches the app after a restart is acknowledged without linking the key again (the update is recorded done)", async () => {
    world = await startWorld({
      env: { BOT_MODE: "webhook", PUBLIC_URL: "https://bot.example.com" },
      telegramServerErrorRetries: 0,
      allowRejectedCalls: true,
      file: true,
    });
    const secret = telegramWebhookSecret(world.env.SECRET_KEY!);
    const post = (update: unknown) =>
      fetch(`${world.app.url}/telegram`, {
        method: "POST",
        headers: { "content-type": "application/json", "x-telegram-bot-api-secret-token": secret },
        body: JSON.stringify(update),
      });
    const { apiKey } = world.newAccount();
    // The message exists in the chat (so it can be deleted); this test posts its update itself.
    const sent = world.fake.sendText({ id: 7306, firstName: "W", languageCode: "en" }, `/connect ${apiKey}`);
    const update = {
      update_id: 9_001,
      message: {
        message_id: sent.messageId,
        date: 0,
        chat: { id: 7306, type: "private", first_name: "W" },
        from: { id: 7306, is_bot: false, first_name: "W", language_code: "en" },
        text: `/connect ${apiKey}`,
        entities: [{ type: "bot_command", offset: 0, length: 8 }],
      },
    };
    world.fake.setDown("5xx");
    expect((await post(update)).status).toBe(500);
    world.fake.setDown(null);
    await world.restart();
    expect((await post(update)).status).toBe(200);
    expect(requests("GET /api/v1/wallet/balance")).toBe(1);
    expect(
      world
        .logs()
        .split("\n")
        .filter((line) => line.includes("API key linked")),
    ).toHaveLength(1);
    const row = await world.app.db
      .selectFrom("telegram_updates")
      .select("done")
      .where("update_id", "=", 9_001)
      .executeTakeFirst();
    expect(Number(row?.done)).toBe(1);
  });
});
