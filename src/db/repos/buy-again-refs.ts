import type { Kysely } from "kysely";
import { z } from "zod";
import type { Database } from "../schema";
import { refsFor, resolveRef } from "./callback-refs";

/**
 * Buy again's references. Each names an order and the key link it was seen under (the time the
 * key was linked, and its last 4 characters for the message), so a press can tell an order of the
 * key linked now from one of an earlier key without trusting anything the button carries.
 */

/** What a Buy again reference stands for. */
export interface BuyAgainTarget {
  orderId: string;
  /** When the key the order was seen under was linked (ms); compared with the link of now. */
  linkedAt: number;
  /** That key's last 4 characters, to name it to the user. */
  last4: string;
}

/** Order ids longer than this get no button (a marketplace id is a uuid; a webhook may say anything). */
const MAX_ORDER_ID = 100;

const storedTarget = z
  .object({
    buyAgain: z.string().min(1).max(MAX_ORDER_ID),
    link: z.number().int().nonnegative(),
    last4: z.string().max(8),
  })
  .strict();

function valueOf(orderId: string, link: { linked_at: number; last4: string }): string {
  return JSON.stringify({ buyAgain: orderId, link: Number(link.linked_at), last4: link.last4 });
}

/**
 * References for the Buy again buttons of these orders, in the order asked: null for a user with
 * no key linked (nothing to name) or an id no marketplace order has. One read of the users' key
 * links, then {@link refsFor}; takes the caller's transaction when it holds one.
 */
export async function buyAgainRefs(
  db: Kysely<Database>,
  orders: ReadonlyArray<{ telegramId: number; orderId: string }>,
  now: number,
): Promise<Array<string | null>> {
  const usable = orders.filter((order) => order.orderId.length > 0 && order.orderId.length <= MAX_ORDER_ID);
  if (usable.length === 0) return orders.map(() => null);
  const links = await db
    .selectFrom("credentials")
    .select(["telegram_id", "linked_at", "last4"])
    .where("telegram_id", "in", [...new Set(usable.map((order) => order.telegramId))])
    .execute();
  const linkOf = new Map(links.map((row) => [Number(row.telegram_id), row]));
  const values = orders.map((order) => {
    const link = linkOf.get(order.telegramId);
    return link && usable.includes(order)
      ? { telegramId: order.telegramId, value: valueOf(order.orderId, link) }
      : null;
  });
  const refs = await refsFor(
    db,
    values.filter((value) => value !== null),
    now,
  );
  let next = 0;
  return values.map((value) => (value === null ? null : refs[next++]!));
}

/** The order and key link behind this user's Buy again reference; null when it is not one (another user's, expired, or another kind). */
export async function findBuyAgainTarget(
  db: Kysely<Database>,
  telegramId: number,
  ref: string,
): Promise<BuyAgainTarget | null> {
  const value = await resolveRef(db, telegramId, ref);
  if (value === undefined) return null;
  let parsed: unknown;
  try {
    parsed = JSON.parse(value);
  } catch {
    return null;
  }
  const target = storedTarget.safeParse(parsed);
  return target.success
    ? { orderId: target.data.buyAgain, linkedAt: target.data.link, last4: target.data.last4 }
    : null;
}
