import {
  isMarketplaceError,
  parseTrx,
  type AutomationRule,
  type Firing,
  type LedgerEntry,
  type MarketplaceClient,
  type Order,
  type OrderStats,
} from "#src/marketplace/index";

/**
 * Requests one /stats (or one digest) sends to the marketplace at most, however much the account
 * holds: up to ORDER_PAGES pages of orders and LEDGER_PAGES of the ledger (100 entries each),
 * the rule list, the firings of up to FIRING_RULES rules, the order statistics and one order
 * preview for the burn cost. A window that needs more is reported as partial.
 */
export const STATS_REQUEST_LIMIT = 30;
export const ORDER_PAGES = 8;
export const LEDGER_PAGES = 8;
export const FIRING_RULES = 11;
const PAGE_SIZE = 100;
/** The marketplace lists at most this many firings per rule, newest first. */
const FIRINGS_LISTED = 50;

export interface RuleSpending {
  rule: AutomationRule;
  /** Firings at or after `since`, newest first. */
  firings: Firing[];
}

/** What could not be read within the request limit. */
export type StatsGap = "orders" | "ledger" | "firings";

/** The marketplace's records of a user's spending since `since`, as read once (and cached). */
export interface SpendingRecords {
  since: number;
  readAt: number;
  /** Orders created at or after `since`, newest first. */
  orders: Order[];
  /** TRX ledger entries at or after `since`, newest first. */
  ledger: LedgerEntry[];
  rules: RuleSpending[];
  orderStats: OrderStats | null;
  /** The marketplace's burn cost for `volume` energy (order preview), when it gives one. */
  burn: { volume: string; burnCostTrx: string } | null;
  requests: number;
  gaps: StatsGap[];
}

const at = (iso: string) => Date.parse(iso);

/**
 * Reads newest-first pages until one reaches past `since`, the list ends, or `maxPages` were read.
 * Returns the entries at or after `since` and whether the list was read far enough.
 */
async function pagesSince<T extends { createdAt: string }>(
  readPage: (page: number) => Promise<{ items: T[]; total: number }>,
  since: number,
  maxPages: number,
  count: () => void,
): Promise<{ items: T[]; complete: boolean }> {
  const items: T[] = [];
  for (let page = 1; page <= maxPages; page++) {
    count();
    const list = await readPage(page);
    items.push(...list.items.filter((item) => at(item.createdAt) >= since));
    const reachedPast = list.items.some((item) => at(item.createdAt) < since);
    if (reachedPast || list.items.length < PAGE_SIZE || page * PAGE_SIZE >= list.total)
      return { items, complete: true };
  }
  return { items, complete: false };
}

/** A rule that may have fired since `since`: it spent something and was not already cancelled before. */
function mayHaveFired(rule: AutomationRule, since: number): boolean {
  const spent = parseTrx(rule.spentTrx);
  if (spent === null || spent <= 0n) return false;
  const cancelled = /^cancel/i.test(rule.status);
  return !(cancelled && at(rule.updatedAt) < since);
}

/**
 * Reads the user's orders, TRX ledger and rule firings since `since` (page by page, newest
 * first, within STATS_REQUEST_LIMIT), the order statistics and the burn cost of the newest
 * delivered energy. A failing preview only drops the saving; any other failure is thrown.
 */
export async function collectSpending(client: MarketplaceClient, since: number, now: number): Promise<SpendingRecords> {
  let requests = 0;
  const count = () => {
    requests += 1;
  };
  const gaps: StatsGap[] = [];

  const ordersRead = pagesSince((page) => client.listOrders({ page, pageSize: PAGE_SIZE }), since, ORDER_PAGES, count);
  const ledgerRead = pagesSince(
    (page) => client.transactions({ page, pageSize: PAGE_SIZE, currency: "TRX" }),
    since,
    LEDGER_PAGES,
    count,
  );
  const rulesRead = (async () => {
    count();
    const candidates = (await client.listAutomations())
      .filter((rule) => mayHaveFired(rule, since))
      .sort((a, b) => at(b.updatedAt) - at(a.updatedAt));
    const read = candidates.slice(0, FIRING_RULES);
    let complete = candidates.length <= FIRING_RULES;
    const rules = await Promise.all(
      read.map(async (rule) => {
        count();
        const firings = await client.automationFires(rule.id);
        // A full list whose oldest entry is still inside the window may hide older firings.
        if (firings.length >= FIRINGS_LISTED && firings.every((firing) => at(firing.createdAt) >= since))
          complete = false;
        return { rule, firings: firings.filter((firing) => at(firing.createdAt) >= since) };
      }),
    );
    return { rules: rules.filter((entry) => entry.firings.length > 0), complete };
  })();
  const statsRead = (async () => {
    count();
    return client.orderStats();
  })();

  const [orders, ledger, rules, orderStats] = await Promise.all([ordersRead, ledgerRead, rulesRead, statsRead]);
  if (!orders.complete) gaps.push("orders");
  if (!ledger.complete) gaps.push("ledger");
  if (!rules.complete) gaps.push("firings");

  const burn = await burnCost(client, orders.items, rules.rules, count);
  return {
    since,
    readAt: now,
    orders: orders.items,
    ledger: ledger.items,
    rules: rules.rules,
    orderStats,
    burn,
    requests,
    gaps,
  };
}

/** The burn cost of the newest energy delivery (an order, else a firing), from a read-only order preview. */
async function burnCost(
  client: MarketplaceClient,
  orders: Order[],
  rules: RuleSpending[],
  count: () => void,
): Promise<SpendingRecords["burn"]> {
  const order = orders.find((candidate) => candidate.resource === "energy" && /^filled$/i.test(candidate.status));
  const firing = rules
    .flatMap((entry) => entry.firings.map((item) => ({ target: entry.rule.targetAddress, item })))
    .sort((a, b) => at(b.item.createdAt) - at(a.item.createdAt))[0];
  const sample = order
    ? { target: order.targetAddress, volume: order.volume }
    : firing
      ? { target: firing.target, volume: firing.item.volume }
      : null;
  if (!sample || BigInt(sample.volume) <= 0n) return null;
  try {
    count();
    const preview = await client.previewOrder({
      volume: sample.volume,
      days: "1",
      resource: "energy",
      target: sample.target,
    });
    return preview.burnCostTrx === null ? null : { volume: sample.volume, burnCostTrx: preview.burnCostTrx };
  } catch (error) {
    if (isMarketplaceError(error)) return null;
    throw error;
  }
}
