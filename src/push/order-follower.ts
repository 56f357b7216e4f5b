import type { Kysely } from "kysely";
import type { Database } from "#src/db/schema";
import { findCredential, openApiKey } from "#src/db/repos/credentials";
import type { Logger } from "#src/logger";
import { MarketplaceError, type MarketplaceClient } from "#src/marketplace/index";
import type { SecretBox } from "#src/security/secret-box";
import { finalState, settlementAlert, settlementKey, type Translations } from "#src/chat/alerts";
import { claimDueOrders, markFollowDone, rescheduleFollow, type FollowScope } from "#src/db/repos/followed-orders";
import { enqueueAlert, enqueueGroupAlerts } from "#src/db/repos/outbox";
import { alertTargets, groupAlertOf } from "./group-copies";
import { buyAgainRefs } from "#src/db/repos/buy-again-refs";
import { recordBrokenKey } from "./broken-key";
import { recordRentals, rentalOf } from "#src/db/repos/rental-ends";
import { markAutoBuyOrderFailed } from "#src/db/repos/auto-buy-orders";

const GIVE_UP_MS = 24 * 3_600_000;
const delayFor = (attempts: number) => Math.min(5 * 60_000, 3_000 * 2 ** Math.min(attempts, 8));

/** What a background job that reads users' marketplace data and queues alerts needs. */
export interface FollowerDeps {
  db: Kysely<Database>;
  logger: Logger;
  box: SecretBox;
  translations: Translations;
  now: () => number;
  marketplace: (apiKey?: () => string) => MarketplaceClient;
  onQueued: () => void;
}

/**
 * Checks due followed orders (GET /api/v1/orders/{id}) on a back-off schedule; a settled order
 * queues the same alert (same dedupe key) a webhook would, so users without a webhook are told too.
 */
export async function checkFollowedOrders(
  deps: FollowerDeps,
  limit = 50,
  owner = "local",
  leaseMs = 60_000,
  scope: FollowScope = {},
): Promise<number> {
  const now = deps.now();
  const due = await claimDueOrders(deps.db, owner, now, limit, leaseMs, scope);
  let settled = 0;
  for (const row of due) {
    const telegramId = Number(row.telegram_id);
    const credential = await findCredential(deps.db, telegramId);
    if (!credential || credential.broken_at || now - row.created_at > GIVE_UP_MS) {
      await markFollowDone(deps.db, row.order_id);
      continue;
    }
    try {
      const apiKey = openApiKey(deps.box, credential);
      const order = await deps.marketplace(() => apiKey).getOrder(row.order_id);
      const state = finalState(order.status);
      if (!state) {
        await rescheduleFollow(deps.db, row.order_id, row.attempts + 1, now + delayFor(row.attempts + 1));
        continue;
      }
      const to = await alertTargets(deps.db, deps.translations, telegramId);
      const recipient = to.recipient("orders");
      const group = to.group(state);
      const key = settlementKey(order.id, state);
      const queued = await deps.db.transaction().execute(async (trx) => {
        await markFollowDone(trx, row.order_id);
        // The rental's "ends" alert, whatever the order alerts are set to (a switch of its own).
        if (state === "filled") await recordRentals(trx, [rentalOf(telegramId, order)], now);
        // An auto-buy's order refunded: it no longer counts against that day's budget or covers the address.
        if (state === "failed") await markAutoBuyOrderFailed(trx, order.id, now);
        const copied = group
          ? (await enqueueGroupAlerts(trx, [groupAlertOf(group, key, settlementAlert(group, order, state), now)])) > 0
          : false;
        if (!recipient) return copied;
        const [buyAgain] = await buyAgainRefs(trx, [{ telegramId, orderId: order.id }], now);
        return (
          (await enqueueAlert(trx, {
            telegramId,
            chatId: recipient.chatId,
            dedupeKey: key,
            payload: settlementAlert(recipient, order, state, buyAgain),
            now,
          })) || copied
        );
      });
      settled += 1;
      if (queued) deps.onQueued();
    } catch (error) {
      const kind = error instanceof MarketplaceError ? error.kind : "unexpected";
      if (kind === "unauthorized" || kind === "forbidden") {
        // The key was revoked: stop using it and tell the user once; the next pass closes the order.
        if (await recordBrokenKey(deps.db, deps.translations, telegramId, now)) deps.onQueued();
      }
      deps.logger.warn({ orderId: row.order_id, kind }, "order check failed; will try again later");
      await rescheduleFollow(deps.db, row.order_id, row.attempts + 1, now + delayFor(row.attempts + 1));
    }
  }
  return settled;
}
