import { ADDRESS_A, linkKey, type World } from "./world";
import { rotateWebhookToken } from "#src/db/repos/webhook-tokens";

/** Polls `read` every 25 ms until it gives a truthy value (or fails after `timeoutMs`). */
export async function waitFor<T>(
  read: () => T | undefined | false | Promise<T | undefined | false>,
  timeoutMs = 8000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (value) return value;
    if (Date.now() > deadline) throw new Error("condition not met in time");
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

export const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** The bot's messages in one chat, as text. */
export const botTexts = (world: World, chatId: number) =>
  world.fake
    .messages(chatId)
    .filter((m) => m.from === "bot")
    .map((m) => m.text ?? "");

/** A user linked to a fresh sandbox account, with a personal webhook URL and a way to post to it. */
export async function linkedUser(world: World, id: number) {
  const user = world.user(id);
  const account = world.newAccount();
  await linkKey(world, user, account.apiKey);
  const token = await rotateWebhookToken(world.app.db, id, Date.now());
  const webhookUrl = `${world.app.url}/webhooks/marketplace/${token}`;
  const post = (body: unknown) =>
    fetch(webhookUrl, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) });
  return { user, token, webhookUrl, post, ...account };
}

/** Buys 65k energy for an hour through the bot's card; returns the sandbox's order id. */
export async function buyThroughBot(world: World, who: Awaited<ReturnType<typeof linkedUser>>): Promise<string> {
  const before = world.sandbox.control.listOrders(who.accountId).length;
  who.user.send(`/buy energy 65000 1h ${ADDRESS_A}`);
  await who.user.nextMessage();
  who.user.press("✅ Confirm");
  const orders = await waitFor(() => {
    const list = world.sandbox.control.listOrders(who.accountId);
    return list.length > before && list;
  });
  await waitFor(() => world.fake.messages(who.user.user.id).some((m) => m.text?.includes("Order placed")));
  return orders[0]!.id;
}

/** Outbox rows of one user (every status). */
export const outboxOf = (world: World, telegramId: number) =>
  world.app.db.selectFrom("outbox").selectAll().where("telegram_id", "=", telegramId).execute();

/** Rows still queued in the outbox (a send in flight included): one user's, or everyone's. */
async function stillQueued(world: World, telegramId?: number): Promise<number> {
  let query = world.app.db
    .selectFrom("outbox")
    .select((eb) => eb.fn.countAll<number>().as("n"))
    .where("status", "=", "queued");
  if (telegramId !== undefined) query = query.where("telegram_id", "=", telegramId);
  return Number((await query.executeTakeFirst())?.n ?? 0);
}

/**
 * Resolves once the outbox holds nothing queued (for `telegramId`, or anyone) and the sender has
 * finished a pass that began after that: every alert queued by the work before has gone out or
 * been dropped, so a count of messages taken now is final. Call it once the work that could queue
 * a duplicate (a follower pass, a poll, a webhook post) has finished; "nothing more arrived" is
 * then proved, not hoped for after a quiet spell.
 */
export async function outboxSwept(world: World, telegramId?: number, timeoutMs = 8000): Promise<void> {
  const sender = world.app.push.sender;
  for (;;) {
    await waitFor(async () => (await stillQueued(world, telegramId)) === 0, timeoutMs);
    // The pass running now may have begun before the last row was queued: wait for the one after it.
    const seen = sender.sweeps;
    await waitFor(() => sender.sweeps >= seen + 2, timeoutMs);
    if ((await stillQueued(world, telegramId)) === 0) return;
  }
}
