import { MarketplaceError, type MarketplaceClient, type Order } from "#src/marketplace/index";
import { addTrx, sunToTrx, trxToSun } from "#src/marketplace/money";
import { markKeyBroken } from "#src/db/repos/credentials";
import { countProviderFailure, resetProviderFailures, type AutoBuy } from "#src/db/repos/auto-buys";
import {
  autoBuyUse,
  claimAttempt,
  recordAttempt,
  releaseAttempt,
  takenOrderIds,
  type AutoBuyOrder,
} from "#src/db/repos/auto-buy-orders";
import { followOrder } from "#src/db/repos/followed-orders";
import { markInMotion } from "#src/db/repos/poll-schedule";
import { enqueueAlert, enqueueGroupAlerts } from "#src/db/repos/outbox";
import { markSpent } from "#src/db/repos/bot-spends";
import { releaseSpend } from "#src/spend-guard/index";
import { autoBoughtAlert, type AutoBought } from "#src/chat/auto-buy-alerts";
import { alertTargets, groupAlertOf } from "./group-copies";
import { stopAutoBuys, type AutoBuyDeps } from "./auto-buy-stops";

const RETRYABLE = new Set(["timeout", "network", "server", "rate_limited", "invalid_response"]);
/** How long after an attempt its key may be sent again (as a confirmation card's: the marketplace may forget a key). */
export const AUTO_BUY_KEY_RESEND_MS = 24 * 60 * 60_000;
/** Clocks of the bot and the marketplace may disagree by this much. */
const CLOCK_SKEW_MS = 5 * 60_000;

/** The dedupe key of the "Auto-bought" alert: one per attempt, whoever records it. */
export function autoBoughtKey(attempt: Pick<AutoBuyOrder, "auto_buy_id" | "day" | "n">): string {
  return `autobuy:${attempt.auto_buy_id}:${attempt.day}:${attempt.n}`;
}
/**
 * Sends an attempt's order with its derived key and records the outcome. True when an order was
 * placed (or found placed by that key). An unknown outcome leaves the attempt open: the next check
 * sends the same key again.
 */
export async function sendOrder(
  deps: AutoBuyDeps,
  autoBuy: AutoBuy,
  attempt: AutoBuyOrder,
  client: MarketplaceClient,
): Promise<boolean> {
  let order: Order;
  try {
    order = await client.createOrder(
      {
        resource: autoBuy.resource,
        targetAddress: autoBuy.address,
        volume: autoBuy.volume,
        duration: autoBuy.duration,
      },
      attempt.idempotency_key,
    );
  } catch (error) {
    await orderFailed(deps, autoBuy, attempt, error);
    return false;
  }
  return recordAutoBought(deps, autoBuy, attempt, order);
}

export async function keyRefused(deps: AutoBuyDeps, autoBuy: AutoBuy, attempt?: AutoBuyOrder): Promise<void> {
  // Marked broken so polling and order checks stop too; the auto-buy's alert is the one the user reads.
  await markKeyBroken(deps.db, autoBuy.telegram_id, deps.now());
  await stopAutoBuys(deps, autoBuy, "key", attempt ? { attempt } : {});
}

/** What the marketplace's refusal of an order means for the auto-buy (the attempt recorded as failed with it). */
async function orderFailed(deps: AutoBuyDeps, autoBuy: AutoBuy, attempt: AutoBuyOrder, error: unknown): Promise<void> {
  if (!(error instanceof MarketplaceError)) {
    // The order may have gone out: the attempt stays open, settled by the next check.
    await releaseAttempt(deps.db, attempt, deps.owner);
    throw error;
  }
  deps.logger.info(
    { userId: autoBuy.telegram_id, autoBuy: autoBuy.id, kind: error.kind, status: error.status, code: error.code },
    "auto-buy: the order was not placed",
  );
  if (RETRYABLE.has(error.kind)) {
    // Unknown outcome: the attempt stays open, and the next check sends the same key again.
    await releaseAttempt(deps.db, attempt, deps.owner);
    return;
  }
  // Certainly not placed: what it reserved under the daily cap no longer counts.
  await releaseSpend(deps.db, attempt.idempotency_key);
  switch (error.kind) {
    case "insufficient_balance":
      return void (await stopAutoBuys(deps, autoBuy, "balance", { attempt }));
    case "insufficient_scope":
    case "forbidden":
      return void (await stopAutoBuys(deps, autoBuy, "scope", { attempt }));
    case "unauthorized":
      return keyRefused(deps, autoBuy, attempt);
    case "spend_limit":
      return void (await stopAutoBuys(deps, autoBuy, "spend_limit", { attempt }));
    case "provider_failed": {
      await recordAttempt(deps.db, attempt, { state: "failed" }, deps.now());
      // Refunded; a second one in a row stops it.
      if ((await countProviderFailure(deps.db, autoBuy.id, deps.now())) >= 2)
        await stopAutoBuys(deps, autoBuy, "provider");
      return;
    }
    default:
      await stopAutoBuys(deps, autoBuy, "rejected", { attempt, detail: error.detail ?? error.kind });
  }
}

/**
 * Records a placed order as the attempt's, in one transaction with the "Auto-bought" alert (and its
 * group copy) and the order's follow, so it is alerted once and followed to its end like any order
 * the bot placed. False when the attempt was recorded already (another replica, a second look).
 */
export async function recordAutoBought(
  deps: AutoBuyDeps,
  autoBuy: AutoBuy,
  attempt: AutoBuyOrder,
  order: Order,
): Promise<boolean> {
  const now = deps.now();
  const totalSun = trxToSun(order.totalTrx);
  const to = await alertTargets(deps.db, deps.translations, autoBuy.telegram_id);
  const recipient = to.recipient("always");
  const group = to.group("filled");
  const recorded = await deps.db.transaction().execute(async (trx) => {
    if (!(await recordAttempt(trx, attempt, { state: "placed", orderId: order.id, totalSun }, now))) return null;
    // The daily cap counts the order's own total from now on (reserved under its key before the call).
    await markSpent(trx, attempt.idempotency_key, totalSun, order.id);
    await resetProviderFailures(trx, autoBuy.id);
    await followOrder(trx, autoBuy.telegram_id, order.id, now);
    const spent = (await autoBuyUse(trx, autoBuy.id, attempt.day, now)).spentSun;
    const budget = BigInt(autoBuy.daily_budget_sun);
    const bought: AutoBought = {
      autoBuyId: autoBuy.id,
      orderId: order.id,
      resource: autoBuy.resource,
      volume: autoBuy.volume,
      duration: autoBuy.duration,
      address: autoBuy.address,
      totalTrx: order.totalTrx,
      capTrx: sunToTrx(BigInt(autoBuy.max_total_sun)),
      leftTodayTrx: sunToTrx(spent >= budget ? 0n : budget - spent),
      budgetTrx: sunToTrx(budget),
    };
    const key = autoBoughtKey(attempt);
    if (group) await enqueueGroupAlerts(trx, [groupAlertOf(group, key, autoBoughtAlert(group, bought), now)]);
    if (recipient)
      await enqueueAlert(trx, {
        telegramId: autoBuy.telegram_id,
        chatId: recipient.chatId,
        dedupeKey: key,
        payload: autoBoughtAlert(recipient, bought),
        now,
      });
    return recipient !== null || group !== null;
  });
  if (recorded === null) return false;
  // The order settles while the bot watches: its notifications are read every cycle from now.
  await markInMotion(deps.db, autoBuy.telegram_id, "order", now);
  const level = totalSun > BigInt(autoBuy.max_total_sun) ? "warn" : "info";
  deps.logger[level](
    { userId: autoBuy.telegram_id, autoBuy: autoBuy.id, orderId: order.id, totalTrx: order.totalTrx },
    level === "warn" ? "auto-buy: the order placed costs more than the cap its preview met" : "auto-buy: order placed",
  );
  if (recorded) deps.onQueued();
  return true;
}

/**
 * An attempt whose outcome was never recorded (the process stopped between the call and its
 * record, or the call timed out). Taken under a lease, so one replica settles it:
 *
 * - within AUTO_BUY_KEY_RESEND_MS, while the user's total is still at or under the cap (and the
 *   day's budget), the same key is sent again: the marketplace returns the order the lost call
 *   placed, or places it now, once;
 * - otherwise the order list is read for an order the attempt placed (same rent and address,
 *   created after it, not recorded by another attempt): found, it is recorded; not found, the
 *   attempt waits for the next check, or past the window is given up ("unknown", counted nowhere).
 *
 * True when an order was recorded.
 */
export async function resolveOpenAttempt(
  deps: AutoBuyDeps,
  autoBuy: AutoBuy,
  attempt: AutoBuyOrder,
  client: MarketplaceClient,
): Promise<boolean> {
  const now = deps.now();
  if (!(await claimAttempt(deps.db, attempt, deps.owner, now, deps.leaseMs ?? 60_000))) return false;
  try {
    if (
      now - attempt.created_at <= AUTO_BUY_KEY_RESEND_MS &&
      (await stillWithinBounds(deps, autoBuy, attempt, client))
    ) {
      deps.logger.info(
        { userId: autoBuy.telegram_id, autoBuy: autoBuy.id, day: attempt.day, n: attempt.n },
        "auto-buy: an attempt's outcome was unknown; sending its key again",
      );
      return await sendOrder(deps, autoBuy, attempt, client);
    }
    const found = await findPlacedOrder(deps, autoBuy, attempt, client);
    if (found) return await recordAutoBought(deps, autoBuy, attempt, found);
    if (now - attempt.created_at > AUTO_BUY_KEY_RESEND_MS) {
      deps.logger.warn(
        { userId: autoBuy.telegram_id, autoBuy: autoBuy.id, day: attempt.day, n: attempt.n },
        "auto-buy: an attempt with an unknown outcome is over 24 h old and not in the order list; given up",
      );
      await recordAttempt(deps.db, attempt, { state: "unknown" }, now);
      return false;
    }
  } catch (error) {
    if (!(error instanceof MarketplaceError)) throw error;
    deps.logger.info({ autoBuy: autoBuy.id, kind: error.kind }, "auto-buy: an open attempt could not be settled yet");
  }
  await releaseAttempt(deps.db, attempt, deps.owner);
  return false;
}

/** Whether sending the attempt's key again now stays inside the auto-buy's bounds: its cap and its day's budget. */
async function stillWithinBounds(
  deps: AutoBuyDeps,
  autoBuy: AutoBuy,
  attempt: AutoBuyOrder,
  client: MarketplaceClient,
): Promise<boolean> {
  if (autoBuy.status !== "active") return false;
  const preview = await client.previewOrder({
    volume: autoBuy.volume,
    days: autoBuy.duration,
    resource: autoBuy.resource,
    target: autoBuy.address,
  });
  const totalSun = trxToSun(addTrx(preview.priceTrx, preview.activationTrx ?? "0"));
  const use = await autoBuyUse(deps.db, autoBuy.id, attempt.day, deps.now());
  const others = use.spentSun - BigInt(attempt.total_sun);
  return totalSun <= BigInt(autoBuy.max_total_sun) && others + totalSun <= BigInt(autoBuy.daily_budget_sun);
}

/** The order an attempt placed, if the newest page of the order list shows one no other attempt recorded. */
async function findPlacedOrder(
  deps: AutoBuyDeps,
  autoBuy: AutoBuy,
  attempt: AutoBuyOrder,
  client: MarketplaceClient,
): Promise<Order | null> {
  const taken = await takenOrderIds(deps.db, autoBuy.telegram_id);
  const list = await client.listOrders({ page: 1, pageSize: 100 });
  return (
    list.items.find(
      (order) =>
        !taken.has(order.id) &&
        Date.parse(order.createdAt) >= attempt.created_at - CLOCK_SKEW_MS &&
        order.targetAddress === autoBuy.address &&
        order.resource.toLowerCase() === autoBuy.resource.toLowerCase() &&
        String(order.volume) === String(autoBuy.volume) &&
        order.duration === autoBuy.duration,
    ) ?? null
  );
}
