import { sql, type Kysely } from "kysely";
import type { Database } from "../db/schema";
import { findCredential, openApiKey } from "../db/repos/credentials";
import type { Logger } from "../logger";
import { MarketplaceError, type MarketplaceClient } from "../marketplace";
import type { SecretBox } from "../security/secret-box";
import { finalState, recipientFor, settlementAlert, settlementKey, type Translations } from "../chat/alerts";
import { isPostgres } from "../db/dialect";
import { enqueueAlert } from "../db/repos/outbox";
import { recordBrokenKey } from "./broken-key";

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

/** Records an order placed through the bot, to be checked until it settles. */
export async function followOrder(db: Kysely<Database>, telegramId: number, orderId: string, now: number): Promise<void> {
  await db
    .insertInto("followed_orders")
    .values({ order_id: orderId, telegram_id: telegramId, attempts: 0, next_check_at: now + 2_000, done: 0, created_at: now })
    .onConflict((oc) => oc.doNothing())
    .execute();
}

/** Which followed orders a pass takes: by default those due; a nudge takes one user's (or every) open order now. */
export interface FollowScope {
  /** Only this user's orders. */
  telegramId?: number;
  /** Ignore the back-off schedule (a nudge after a settlement the caller knows about). */
  now?: boolean;
}

/**
 * Claims due followed orders with a lease (FOR UPDATE SKIP LOCKED on PostgreSQL), so replicas
 * share them and each order is checked by one replica at a time.
 */
export async function claimDueOrders(db: Kysely<Database>, owner: string, now: number, limit: number, leaseMs: number, scope: FollowScope = {}) {
  const pg = isPostgres(db);
  const rows = await db
    .updateTable("followed_orders")
    .set({ lease_owner: owner, lease_until: now + leaseMs })
    .where((eb) => {
      const claim = eb
        .selectFrom("followed_orders as f")
        .select("f.order_id")
        .where("f.done", "=", 0)
        .$if(!scope.now, (qb) => qb.where("f.next_check_at", "<=", now))
        .$if(scope.telegramId !== undefined, (qb) => qb.where("f.telegram_id", "=", scope.telegramId!))
        .where((e) => e.or([e("f.lease_until", "is", null), e("f.lease_until", "<", now)]))
        .orderBy("f.next_check_at")
        .limit(limit)
        .$if(pg, (qb) => qb.forUpdate().skipLocked());
      // One evaluation on PostgreSQL: a LIMIT … SKIP LOCKED subquery under IN may be rescanned and return more than its limit.
      return pg ? eb("order_id", "=", sql<string>`any(array(${claim}))`) : eb("order_id", "in", claim);
    })
    .where("done", "=", 0)
    .where((eb) => eb.or([eb("lease_until", "is", null), eb("lease_until", "<", now)]))
    .returningAll()
    .execute();
  return rows.sort((a, b) => a.next_check_at - b.next_check_at);
}

/**
 * Checks due followed orders (GET /api/v1/orders/{id}) on a back-off schedule; a settled order
 * queues the same alert (same dedupe key) a webhook would, so users without a webhook are told too.
 */
export async function checkFollowedOrders(deps: FollowerDeps, limit = 50, owner = "local", leaseMs = 60_000, scope: FollowScope = {}): Promise<number> {
  const now = deps.now();
  const due = await claimDueOrders(deps.db, owner, now, limit, leaseMs, scope);
  let settled = 0;
  const unlease = { lease_owner: null, lease_until: null };
  for (const row of due) {
    const telegramId = Number(row.telegram_id);
    const credential = await findCredential(deps.db, telegramId);
    if (!credential || credential.broken_at || now - row.created_at > GIVE_UP_MS) {
      await deps.db.updateTable("followed_orders").set({ done: 1, ...unlease }).where("order_id", "=", row.order_id).execute();
      continue;
    }
    try {
      const apiKey = openApiKey(deps.box, credential);
      const order = await deps.marketplace(() => apiKey).getOrder(row.order_id);
      const state = finalState(order.status);
      if (!state) {
        await deps.db.updateTable("followed_orders").set({ attempts: row.attempts + 1, next_check_at: now + delayFor(row.attempts + 1), ...unlease }).where("order_id", "=", row.order_id).execute();
        continue;
      }
      const recipient = await recipientFor(deps.db, deps.translations, telegramId, "orders");
      const queued = await deps.db.transaction().execute(async (trx) => {
        await trx.updateTable("followed_orders").set({ done: 1, ...unlease }).where("order_id", "=", row.order_id).execute();
        if (!recipient) return false;
        return enqueueAlert(trx, { telegramId, chatId: recipient.chatId, dedupeKey: settlementKey(order.id, state), payload: settlementAlert(recipient, order, state), now });
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
      await deps.db.updateTable("followed_orders").set({ attempts: row.attempts + 1, next_check_at: now + delayFor(row.attempts + 1), ...unlease }).where("order_id", "=", row.order_id).execute();
    }
  }
  return settled;
}

/**
 * Deletes up to `limit` finished follows created before `before` (the retention job). Kept as long
 * as a card can still be pressed: checking an old card again finds its order, and a follow still
 * on record stops that order from being followed, and alerted on, a second time.
 */
export async function deleteFinishedFollowsBefore(db: Kysely<Database>, before: number, limit: number): Promise<number> {
  const result = await db
    .deleteFrom("followed_orders")
    .where("order_id", "in", (eb) => eb.selectFrom("followed_orders").select("order_id").where("done", "=", 1).where("created_at", "<", before).limit(limit))
    .where("done", "=", 1)
    .executeTakeFirst();
  return Number(result.numDeletedRows);
}

/**
 * Gives back every followed order this replica holds a lease on (a clean stop), so another
 * replica or the next start checks them at once. A check still in flight may then settle the
 * order too; the alert's dedupe key keeps that to one alert.
 */
export async function releaseFollowLeases(db: Kysely<Database>, owner: string): Promise<number> {
  const result = await db.updateTable("followed_orders").set({ lease_owner: null, lease_until: null }).where("lease_owner", "=", owner).executeTakeFirst();
  return Number(result.numUpdatedRows);
}
