/** One-off orders: pricing, placement with idempotency, asynchronous settlement. */
import { sunToTrx } from "#src/marketplace/money";
import { newTxId, newUuid } from "./ids";
import { ACTIVATION_FEE_SUN, providerCostSun, withCommission } from "./price-book";
import { notFound, SandboxError } from "./problem";
import { assertWithinSpendLimit } from "./spend-limit";
import type { Duration, Resource } from "./types";
import type { AccountRecord, ApiKeyRecord, OrderRecord, World } from "./records";
import { enqueueOrderEvent } from "./webhooks";
import { nowIso, postLedgerEntry, raiseNotification } from "./world";

export interface OrderRequest {
  resource: Resource;
  targetAddress: string;
  volume: number;
  duration: Duration;
}

export function activationFeeSun(world: World, address: string): bigint {
  return world.unactivatedAddresses.has(address) ? ACTIVATION_FEE_SUN : 0n;
}

export function findOrder(world: World, accountId: string, orderId: string): OrderRecord {
  const order = world.orders.find((candidate) => candidate.id === orderId && candidate.accountId === accountId);
  if (!order) throw notFound("order", orderId);
  return order;
}

/**
 * Places an order: a replayed Idempotency-Key returns the first order without charging; otherwise
 * the spend limit and balance are checked, TRX is charged and the order starts as Created. A
 * sync failure (failNextOrder) charges, refunds and throws 502 without keeping the order.
 */
export function placeOrder(
  world: World,
  key: ApiKeyRecord,
  account: AccountRecord,
  request: OrderRequest,
  idempotencyKey: string | null,
): { order: OrderRecord; replayed: boolean } {
  const fingerprint = JSON.stringify([request.resource, request.targetAddress, request.volume, request.duration]);
  if (idempotencyKey !== null) {
    const previous = account.idempotency.get(idempotencyKey);
    if (previous && previous.fingerprint !== fingerprint) {
      throw new SandboxError(
        409,
        "idempotency.key_reused",
        "Idempotency-Key reused",
        "this Idempotency-Key was already used with a different request body",
      );
    }
    if (previous) return { order: findOrder(world, account.id, previous.orderId), replayed: true };
  }

  const price = withCommission(
    providerCostSun(request.resource, request.volume, request.duration, world.rateOverrides),
  );
  const activationSun = activationFeeSun(world, request.targetAddress);
  const totalSun = price.priceSun + activationSun;
  assertWithinSpendLimit(world, key, totalSun);
  if (account.trxSun < totalSun) {
    throw new SandboxError(
      402,
      "wallet.insufficient_balance",
      "Insufficient balance",
      `the order costs ${sunToTrx(totalSun)} TRX but the balance is ${sunToTrx(account.trxSun)} TRX`,
    );
  }

  const failure = account.failNext;
  account.failNext = null;
  postLedgerEntry(world, account, { type: "OrderPayment", currency: "TRX", amountSun: -totalSun });
  if (failure === "sync") {
    postLedgerEntry(world, account, { type: "OrderRefund", currency: "TRX", amountSun: totalSun });
    throw new SandboxError(
      502,
      "provider.failed",
      "Provider failed",
      "the provider could not take the order; the balance was refunded",
    );
  }

  const order: OrderRecord = {
    id: newUuid(world.random),
    accountId: account.id,
    keyId: key.id,
    ...request,
    priceSun: price.priceSun,
    activationSun,
    totalSun,
    status: "Created",
    txId: null,
    createdAt: nowIso(world),
    settledAt: null,
    willFail: failure === "async",
  };
  world.orders.push(order);
  if (idempotencyKey !== null) account.idempotency.set(idempotencyKey, { fingerprint, orderId: order.id });
  return { order, replayed: false };
}

/** Settles one Created order: Filled with a tx id, or Failed with a refund. Raises a notification and queues a webhook. */
export function settleOrder(world: World, order: OrderRecord): void {
  if (order.status !== "Created") return;
  order.settledAt = nowIso(world);
  const what = `${order.volume} ${order.resource} for ${order.duration} to ${order.targetAddress}`;
  if (order.willFail) {
    order.status = "Failed";
    const account = world.accounts.get(order.accountId)!;
    postLedgerEntry(world, account, { type: "OrderRefund", currency: "TRX", amountSun: order.totalSun });
    raiseNotification(world, order.accountId, {
      type: "order.failed",
      level: "error",
      title: "Order failed",
      body: `Order ${order.id}: the order of ${what} could not be delivered; ${sunToTrx(order.totalSun)} TRX was refunded.`,
    });
    enqueueOrderEvent(world, order, "order.failed");
    return;
  }
  order.status = "Filled";
  order.txId = newTxId(world.random);
  // Delegating resources to an address activates it on chain.
  world.unactivatedAddresses.delete(order.targetAddress);
  raiseNotification(world, order.accountId, {
    type: "order.filled",
    level: "success",
    title: "Order filled",
    body: `Order ${order.id}: delivered ${what}.`,
  });
  enqueueOrderEvent(world, order, "order.filled");
}

/** Settles Created orders at least settleDelayMs old (none while settleDelayMs is null). */
export function settleDueOrders(world: World): void {
  const delay = world.settleDelayMs;
  if (delay === null) return;
  const now = world.now().getTime();
  for (const order of world.orders) {
    if (order.status === "Created" && now - Date.parse(order.createdAt) >= delay) settleOrder(world, order);
  }
}

export function settleAllOrders(world: World, accountId?: string): OrderRecord[] {
  const settled = world.orders.filter(
    (order) => order.status === "Created" && (accountId === undefined || order.accountId === accountId),
  );
  for (const order of settled) settleOrder(world, order);
  return settled;
}

export function orderStats(world: World, accountId: string): { totalOrders: number; energyDeliveredThisMonth: number } {
  const month = nowIso(world).slice(0, 7);
  let totalOrders = 0;
  let energy = 0;
  for (const order of world.orders) {
    if (order.accountId !== accountId) continue;
    totalOrders += 1;
    if (order.resource === "energy" && order.status === "Filled" && order.settledAt?.slice(0, 7) === month)
      energy += order.volume;
  }
  return { totalOrders, energyDeliveredThisMonth: energy };
}
