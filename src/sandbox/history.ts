/**
 * A month (or any number of days) of made-up history for one account: one-off orders (some
 * failed and refunded), three rules and their firings, and the ledger entries of all of them,
 * dated in the past. A deposit at the start pays for it all, so the balance is what it was and
 * the ledger still adds up to it. Nothing is notified: the history has already happened.
 */
import { sunToTrx } from "#src/marketplace/money";
import { newTxId, newUuid } from "./ids";
import { firingPriceSun, firingShape, providerCostSun, withCommission } from "./price-book";
import type { Duration, HistorySummary, Resource, RuleType } from "./types";
import type { AccountRecord, LedgerRecord, OrderRecord, RuleRecord, World } from "./records";

const DAY_MS = 86_400_000;
/** Stands in for the key that placed the history: no real key's daily spend limit counts it. */
const HISTORY_KEY_ID = "history";
export const HISTORY_ADDRESSES = [
  "TNPeeaaFB7K9cmo4uQpcU32zGK8G1NYqeL",
  "TLa2f6VPqDgRE67v1736s7bJ8Ray5wYjU7",
  "TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t",
] as const;

const byCreation = <T extends { createdAt: string }>(a: T, b: T) =>
  a.createdAt < b.createdAt ? -1 : a.createdAt > b.createdAt ? 1 : 0;

/** What every part of the history uses: the account, the world's randomness, the span and the ledger being written. */
interface HistoryScope {
  account: AccountRecord;
  random: () => number;
  now: number;
  start: number;
  pick: <T>(items: readonly T[]) => T;
  /** An ISO time, never later than a second before now. */
  iso: (time: number) => string;
  /** Adds a completed TRX ledger entry to the history. */
  entry: (type: string, amountSun: bigint, createdAt: string, txId?: string | null) => void;
}

/** Up to three one-off orders a day, a tenth of them failed and refunded. */
function pastOrders({ account, random, now, start, pick, iso, entry }: HistoryScope, days: number) {
  const orders: OrderRecord[] = [];
  let failedOrders = 0;
  let spentSun = 0n;
  for (let day = 0; day < days; day++) {
    const count = Math.floor(random() * 4);
    for (let index = 0; index < count; index++) {
      const created = start + day * DAY_MS + Math.floor(random() * DAY_MS);
      if (created >= now - 60_000) continue;
      const resource: Resource = random() < 0.2 ? "bandwidth" : "energy";
      const volume =
        resource === "energy" ? pick([65_000, 100_000, 130_000, 200_000, 300_000]) : pick([1_000, 2_000, 5_000]);
      const duration: Duration = pick(["1h", "1h", "1d", "15m"] as const);
      const priceSun = withCommission(providerCostSun(resource, volume, duration)).priceSun;
      // One order in ten fails (the 5th, the 15th, …): a month of history always shows failures and refunds.
      const failed = orders.length % 10 === 4;
      const createdAt = iso(created);
      const settledAt = iso(created + 3_000);
      orders.push({
        id: newUuid(random),
        accountId: account.id,
        keyId: HISTORY_KEY_ID,
        resource,
        targetAddress: pick(HISTORY_ADDRESSES),
        volume,
        duration,
        priceSun,
        activationSun: 0n,
        totalSun: priceSun,
        status: failed ? "Failed" : "Filled",
        txId: failed ? null : newTxId(random),
        createdAt,
        settledAt,
        willFail: failed,
      });
      entry("OrderPayment", -priceSun, createdAt);
      if (failed) {
        failedOrders += 1;
        entry("OrderRefund", priceSun, settledAt);
      } else spentSun += priceSun;
    }
  }
  return { orders, failedOrders, spentSun };
}

/** Three rules (a daily renewal, a smart one, a refill) created at the start, and their firings since. */
function pastRules({ account, random, now, start, iso, entry }: HistoryScope) {
  const plans: Array<{
    type: RuleType;
    volume: number | null;
    duration: Duration | null;
    minimal: number | null;
    everyMs: () => number;
  }> = [
    { type: "auto-renewal", volume: 100_000, duration: null, minimal: null, everyMs: () => DAY_MS },
    { type: "smart", volume: null, duration: null, minimal: null, everyMs: () => DAY_MS * (1 + random()) },
    {
      type: "auto-refill",
      volume: 65_000,
      duration: "1h",
      minimal: 30_000,
      everyMs: () => DAY_MS * (0.3 + random() * 1.2),
    },
  ];
  const rules: RuleRecord[] = [];
  let firings = 0;
  let spentSun = 0n;
  for (const [index, plan] of plans.entries()) {
    const createdAt = iso(start + index * 3_600_000);
    const rule: RuleRecord = {
      id: newUuid(random),
      accountId: account.id,
      creatorKeyId: HISTORY_KEY_ID,
      type: plan.type,
      targetAddress: HISTORY_ADDRESSES[index]!,
      minimal: plan.minimal,
      volume: plan.volume,
      duration: plan.duration,
      spentSun: 0n,
      status: "active",
      pauseReason: null,
      autoResume: true,
      createdAt,
      updatedAt: createdAt,
      nextRenewalAt: null,
      firings: [],
    };
    const shape = firingShape(rule);
    const priceSun = firingPriceSun(rule);
    let time = Date.parse(createdAt) + (plan.type === "auto-renewal" ? 0 : Math.floor(random() * DAY_MS));
    while (time < now - 60_000) {
      const firedAt = iso(time);
      rule.firings.push({ volume: shape.volume, duration: shape.duration, priceSun, createdAt: firedAt });
      rule.spentSun += priceSun;
      rule.updatedAt = firedAt;
      entry("AutomationCharge", -priceSun, firedAt);
      spentSun += priceSun;
      firings += 1;
      time += Math.max(3_600_000, Math.floor(plan.everyMs()));
    }
    // A renewal goes on renewing daily from here, at the time of day it was created.
    if (plan.type === "auto-renewal") {
      while (time <= now) time += DAY_MS;
      rule.nextRenewalAt = new Date(time).toISOString();
    }
    rules.push(rule);
  }
  return { rules, firings, spentSun };
}

export function fillHistory(world: World, account: AccountRecord, days: number): HistorySummary {
  const now = world.now().getTime();
  const start = now - days * DAY_MS;
  const random = world.random;
  const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length) % items.length]!;
  const iso = (time: number) => new Date(Math.min(time, now - 1000)).toISOString();
  const ledger: LedgerRecord[] = [];
  const entry = (type: string, amountSun: bigint, createdAt: string, txId: string | null = null) => {
    ledger.push({
      id: newUuid(random),
      accountId: account.id,
      type,
      currency: "TRX",
      amountSun,
      txId,
      status: "Completed",
      createdAt,
    });
  };
  const scope: HistoryScope = { account, random, now, start, pick, iso, entry };
  const { orders, failedOrders, spentSun: ordersSpentSun } = pastOrders(scope, days);
  const { rules, firings, spentSun: rulesSpentSun } = pastRules(scope);
  const spentSun = ordersSpentSun + rulesSpentSun;

  // Paid for by a deposit at the start, so the balance stays as it was.
  entry("Deposit", spentSun, iso(start - 60_000), newTxId(random));
  world.orders.push(...orders);
  world.rules.push(...rules);
  world.ledger.push(...ledger);
  // Lists are served newest first from creation order: the past goes where it belongs in time.
  world.orders.sort(byCreation);
  world.rules.sort(byCreation);
  world.ledger.sort(byCreation);
  return {
    from: iso(start),
    to: iso(now),
    orders: orders.length,
    failedOrders,
    rules: rules.length,
    firings,
    spentTrx: sunToTrx(spentSun),
  };
}
