import { expect } from "vitest";
import { nextBotText, type World } from "./world";

/** Helpers of the auto-buy tests (issue 55). */

type ChatUser = ReturnType<World["user"]>;

/** Sets the sandbox's energy rate for `duration` (sun per unit): 65,000 energy then quotes 65,000 × rate, and costs 10% more. */
export const energyRate = (world: World, sunPerUnit: number, duration: "15m" | "1h" | "1d" = "1h") =>
  world.sandbox.control.setPrice({ resource: "energy", duration, sunPerUnit });

/**
 * Makes an auto-buy through the chat: `/autobuy <args>`, the card's choices pressed until they
 * read `ordersPerDay` and `days`, then Confirm. Resolves with its id.
 */
export async function makeAutoBuy(
  world: World,
  user: ChatUser,
  args: string,
  choices: { ordersPerDay?: number; days?: number } = {},
): Promise<string> {
  user.send(`/autobuy ${args}`);
  let card = await nextBotText(user, (text) => text.includes("Confirm an auto-buy"));
  for (let i = 0; i < 6 && choices.ordersPerDay && !card.text!.includes(`at most ${choices.ordersPerDay}\n`); i++) {
    user.press(/^Orders a day:/);
    card = await nextBotText(user, (text) => text.includes("Confirm an auto-buy"));
  }
  for (let i = 0; i < 6 && choices.days && !card.text!.includes(`Ends: ${choices.days} days`); i++) {
    user.press(/^Lasts:/);
    card = await nextBotText(user, (text) => text.includes("Confirm an auto-buy"));
  }
  user.press("✅ Confirm");
  const done = await nextBotText(user, (text) => text.includes("created. Nothing was bought now"));
  const id = /Auto-buy ([A-Za-z0-9_-]{8})/.exec(done.text!)![1]!;
  const row = await world.app.db
    .selectFrom("auto_buys")
    .select("id")
    .where("id", "like", `${id}%`)
    .executeTakeFirstOrThrow();
  return row.id;
}

/** The user's "Auto-bought" alerts shown so far. */
export const autoBoughtShown = (user: ChatUser) =>
  user.botMessages().filter((message) => (message.text ?? "").includes("Auto-bought"));

/** The outbox keys of an auto-buy's alerts ("autobuy:<id>:<day>:<n>"). */
export const autoBoughtKeys = async (world: World, telegramId: number) =>
  (
    await world.app.db
      .selectFrom("outbox")
      .select("dedupe_key")
      .where("telegram_id", "=", telegramId)
      .where("dedupe_key", "like", "autobuy:%")
      .orderBy("id")
      .execute()
  ).map((row) => row.dedupe_key);

/** The auto-buy's row as stored now. */
export const autoBuyRow = (world: World, id: string) =>
  world.app.db.selectFrom("auto_buys").selectAll().where("id", "=", id).executeTakeFirstOrThrow();

/** Moves the app's clock just past the next UTC midnight. */
export function toNextUtcDay(world: World): void {
  const now = world.app.deps.now();
  const date = new Date(now);
  const midnight = Date.UTC(date.getUTCFullYear(), date.getUTCMonth(), date.getUTCDate() + 1);
  world.shiftAppClock(midnight - now + 60_000);
}

/** Waits a little for alerts queued to reach the chat (the sender runs on its own). */
export const settle = (ms = 400) => new Promise((resolve) => setTimeout(resolve, ms));

/** The sandbox's orders of the account, oldest first. */
export const ordersOf = (world: World, accountId: string) => world.sandbox.control.listOrders(accountId).reverse();

/** Checks the price watches and auto-buys now and expects that report. */
export async function check(world: World, expected: Record<string, number>): Promise<void> {
  expect(await world.app.push.checkPriceWatches()).toMatchObject(expected);
}

/**
 * Waits until the outbox has sent everything queued: a test that moves the app's clock forward
 * while an alert is on its way would let its lease run out, and the sender would send it again.
 */
export async function drained(world: World, timeoutMs = 8000): Promise<void> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const row = await world.app.db
      .selectFrom("outbox")
      .select((eb) => eb.fn.countAll<number>().as("n"))
      .where("status", "=", "queued")
      .executeTakeFirst();
    if (Number(row?.n ?? 0) === 0) return;
    if (Date.now() > until) throw new Error("alerts still queued");
    await settle(20);
  }
}
