import { trxToSun } from "#src/marketplace/money";
import type { AutomationRule } from "#src/marketplace/index";
import type { SpendingRecords, StatsGap } from "./collect";
import { localDate, type DayWindow } from "./time-zones";

/** Sources drawn one by one; further rules are drawn together as "other rules". */
export const MAX_RULE_SOURCES = 5;

/** Who spent: one-off orders, one rule, or the rules beyond MAX_RULE_SOURCES together. */
export type SpendingSource =
  | { id: "orders"; kind: "orders" }
  | { id: string; kind: "rule"; rule: AutomationRule }
  | { id: "others"; kind: "others" };

/** Every figure of one window, in sun and units; nothing here is a float. */
export interface StatsFigures {
  window: DayWindow;
  /** Sources that spent in the window: orders first, then rules by spending. */
  sources: Array<SpendingSource & { sun: bigint }>;
  /** Sun spent per local day and source id (only cells above zero). */
  cells: Array<{ day: string; source: string; sun: bigint }>;
  totalSun: bigint;
  energy: bigint;
  bandwidth: bigint;
  orders: { placed: number; filled: number; failed: number };
  firings: number;
  ledger: { chargedSun: bigint; refundedSun: bigint };
  /**
   * Delivered energy priced at the marketplace's burn cost, minus what that energy cost; null
   * when nothing delivered was energy or the marketplace gave no burn cost.
   */
  saving: { sun: bigint; burnCostTrx: string; burnVolume: bigint } | null;
  gaps: StatsGap[];
}

export type OrderOutcome = "filled" | "failed" | "pending";

/** The spec names Created and Filled; a failed order's literal is open, so it is read loosely. */
export function orderOutcome(status: string): OrderOutcome {
  const value = status.toLowerCase();
  if (value === "filled" || value === "completed" || value === "delivered") return "filled";
  if (/fail|refund|reject|cancel|expire|error/.test(value)) return "failed";
  return "pending";
}

/** What the TRX ledger charged and refunded in the window. */
function ledgerTotals(entries: SpendingRecords["ledger"], inWindow: (iso: string) => boolean): StatsFigures["ledger"] {
  const ledger = { chargedSun: 0n, refundedSun: 0n };
  for (const entry of entries) {
    if (!inWindow(entry.createdAt) || entry.currency !== "TRX") continue;
    const sun = trxToSun(entry.amount);
    if (sun < 0n) ledger.chargedSun -= sun;
    else if (/refund/i.test(entry.type)) ledger.refundedSun += sun;
  }
  return ledger;
}

/**
 * The sources in drawing order (orders, then rules by spending, the rules beyond MAX_RULE_SOURCES
 * merged into "others") and the cells by day, from the sun per source and per day and source.
 */
function sourcesAndCells(
  rules: SpendingRecords["rules"],
  bySource: Map<string, bigint>,
  cells: Map<string, bigint>,
): Pick<StatsFigures, "sources" | "cells"> {
  const ruleById = new Map(rules.map((entry) => [entry.rule.id, entry.rule]));
  const ranked = [...bySource.entries()]
    .filter(([id]) => id !== "orders")
    .sort((a, b) => (b[1] > a[1] ? 1 : b[1] < a[1] ? -1 : a[0].localeCompare(b[0])));
  const shown = ranked.slice(0, ranked.length > MAX_RULE_SOURCES ? MAX_RULE_SOURCES - 1 : MAX_RULE_SOURCES);
  const merged = new Set(ranked.slice(shown.length).map(([id]) => id));
  const sources: StatsFigures["sources"] = [];
  if (bySource.has("orders")) sources.push({ id: "orders", kind: "orders", sun: bySource.get("orders")! });
  for (const [id, sun] of shown) sources.push({ id, kind: "rule", rule: ruleById.get(id)!, sun });
  if (merged.size > 0)
    sources.push({ id: "others", kind: "others", sun: [...merged].reduce((sum, id) => sum + bySource.get(id)!, 0n) });

  const cellList: StatsFigures["cells"] = [];
  const mergedCells = new Map<string, bigint>();
  for (const [key, sun] of cells) {
    const [day, source] = key.split("\u0000") as [string, string];
    if (merged.has(source)) mergedCells.set(day, (mergedCells.get(day) ?? 0n) + sun);
    else cellList.push({ day, source, sun });
  }
  for (const [day, sun] of mergedCells) cellList.push({ day, source: "others", sun });
  cellList.sort((a, b) => a.day.localeCompare(b.day));
  return { sources, cells: cellList };
}

/** The spending of one window from records read over a longer span (the 30 days a 7-day view reuses). */
export function summarize(records: SpendingRecords, window: DayWindow): StatsFigures {
  const inWindow = (iso: string) => {
    const time = Date.parse(iso);
    return time >= window.from && time < window.to;
  };
  const dayOf = (iso: string) => localDate(window.timeZone, Date.parse(iso));
  const cells = new Map<string, bigint>();
  const bySource = new Map<string, bigint>();
  const add = (day: string, source: string, sun: bigint) => {
    if (sun === 0n) return;
    const key = `${day}\u0000${source}`;
    cells.set(key, (cells.get(key) ?? 0n) + sun);
    bySource.set(source, (bySource.get(source) ?? 0n) + sun);
  };

  let energy = 0n;
  let bandwidth = 0n;
  let energySpentSun = 0n;
  const orders = { placed: 0, filled: 0, failed: 0 };
  for (const order of records.orders) {
    if (!inWindow(order.createdAt)) continue;
    orders.placed += 1;
    const outcome = orderOutcome(order.status);
    // A failed order was refunded: it cost nothing.
    if (outcome === "failed") {
      orders.failed += 1;
      continue;
    }
    add(dayOf(order.createdAt), "orders", trxToSun(order.totalTrx));
    if (outcome !== "filled") continue;
    orders.filled += 1;
    if (order.resource === "energy") {
      energy += BigInt(order.volume);
      energySpentSun += trxToSun(order.priceTrx);
    } else if (order.resource === "bandwidth") bandwidth += BigInt(order.volume);
  }

  let firings = 0;
  for (const { rule, firings: list } of records.rules) {
    for (const firing of list) {
      if (!inWindow(firing.createdAt)) continue;
      firings += 1;
      add(dayOf(firing.createdAt), rule.id, trxToSun(firing.priceTrx));
      // Rules deliver energy only (the spec); a bandwidth rule would still be counted right.
      if (rule.resource === "bandwidth") bandwidth += BigInt(firing.volume);
      else {
        energy += BigInt(firing.volume);
        energySpentSun += trxToSun(firing.priceTrx);
      }
    }
  }

  const ledger = ledgerTotals(records.ledger, inWindow);

  const { sources, cells: cellList } = sourcesAndCells(records.rules, bySource, cells);

  const totalSun = [...bySource.values()].reduce((sum, sun) => sum + sun, 0n);
  let saving: StatsFigures["saving"] = null;
  if (energy > 0n && records.burn) {
    const burnVolume = BigInt(records.burn.volume);
    const burnSun = trxToSun(records.burn.burnCostTrx);
    saving = {
      sun: (energy * burnSun) / burnVolume - energySpentSun,
      burnCostTrx: records.burn.burnCostTrx,
      burnVolume,
    };
  }
  return {
    window,
    sources,
    cells: cellList,
    totalSun,
    energy,
    bandwidth,
    orders,
    firings,
    ledger,
    saving,
    gaps: records.gaps,
  };
}

/** True when nothing was spent in the window (nothing to draw; failed orders may still be counted). */
export function isEmpty(figures: StatsFigures): boolean {
  return figures.totalSun === 0n;
}
