import { describe, expect, it } from "vitest";
import { sunPerUnit } from "#src/chat/format";
import type { AutomationRule, Firing, LedgerEntry, MarketplaceClient, Order } from "#src/marketplace/index";
import {
  collectSpending,
  FIRING_RULES,
  LEDGER_PAGES,
  ORDER_PAGES,
  STATS_REQUEST_LIMIT,
  type SpendingRecords,
} from "#src/reports/collect";
import { isEmpty, MAX_RULE_SOURCES, summarize } from "#src/reports/figures";
import { lastDays } from "#src/reports/time-zones";

const NOW = Date.parse("2026-11-23T12:00:00Z");
let serial = 0;
const id = () => `00000000-0000-4000-8000-${String(++serial).padStart(12, "0")}`;

function order(createdAt: string, fields: Partial<Order> = {}): Order {
  return {
    id: id(),
    resource: "energy",
    targetAddress: "TNPeeaaFB7K9cmo4uQpcU32zGK8G1NYqeL",
    volume: "100000",
    duration: "1h",
    priceTrx: "7.15",
    activationTrx: "0",
    totalTrx: "7.15",
    status: "Filled",
    txId: null,
    createdAt,
    ...fields,
  };
}

function rule(fields: Partial<AutomationRule> = {}): AutomationRule {
  return {
    id: id(),
    type: "smart",
    resource: "energy",
    targetAddress: "TLa2f6VPqDgRE67v1736s7bJ8Ray5wYjU7",
    minimal: null,
    volume: null,
    duration: null,
    spentTrx: "10",
    status: "active",
    pauseReason: null,
    autoResume: true,
    createdAt: "2026-10-01T00:00:00Z",
    updatedAt: "2026-11-23T00:00:00Z",
    ...fields,
  };
}

const firing = (createdAt: string, priceTrx = "9.366"): Firing => ({
  volume: "131000",
  duration: "1h",
  priceTrx,
  createdAt,
});
const ledger = (createdAt: string, type: string, amount: string): LedgerEntry => ({
  id: id(),
  type,
  currency: "TRX",
  amount,
  txId: null,
  status: "Completed",
  createdAt,
});

function records(fields: Partial<SpendingRecords>): SpendingRecords {
  return {
    since: lastDays("UTC", 30, NOW).from,
    readAt: NOW,
    orders: [],
    ledger: [],
    rules: [],
    orderStats: null,
    burn: null,
    requests: 0,
    gaps: [],
    ...fields,
  };
}

describe("spending figures", () => {
  it("counts orders by outcome (a failed one costs nothing), firings per rule, the ledger's charges and refunds, and the saving from the burn cost", () => {
    const smart = rule();
    const figures = summarize(
      records({
        orders: [
          order("2026-11-23T08:00:00Z"),
          order("2026-11-22T08:00:00Z", { resource: "bandwidth", volume: "2000", priceTrx: "1.54", totalTrx: "1.54" }),
          order("2026-11-21T08:00:00Z", { status: "Failed" }),
          order("2026-11-20T08:00:00Z", { status: "Created", totalTrx: "8.15" }),
          order("2026-11-01T08:00:00Z"),
        ],
        rules: [
          {
            rule: smart,
            firings: [firing("2026-11-23T01:00:00Z"), firing("2026-11-19T01:00:00Z"), firing("2026-11-10T01:00:00Z")],
          },
        ],
        ledger: [
          ledger("2026-11-23T08:00:00Z", "OrderPayment", "-7.15"),
          ledger("2026-11-21T08:00:00Z", "OrderRefund", "7.15"),
          ledger("2026-11-21T07:00:00Z", "Deposit", "100"),
          ledger("2026-11-20T08:00:00Z", "AutomationCharge", "-9.366"),
        ],
        burn: { volume: "65000", burnCostTrx: "13.65" },
      }),
      lastDays("UTC", 7, NOW),
    );
    expect(figures.orders).toEqual({ placed: 4, filled: 2, failed: 1 });
    expect(figures.firings).toBe(2);
    // 7.15 + 1.54 + 8.15 (charged, not yet delivered) + 2 × 9.366
    expect(figures.totalSun).toBe(35_572_000n);
    expect(figures.energy).toBe(100_000n + 2n * 131_000n);
    expect(figures.bandwidth).toBe(2_000n);
    expect(figures.ledger).toEqual({ chargedSun: 16_516_000n, refundedSun: 7_150_000n });
    // 362,000 energy × 210 sun − (7.15 + 2 × 9.366) TRX
    expect(figures.saving).toEqual({ sun: 362_000n * 210n - 25_882_000n, burnCostTrx: "13.65", burnVolume: 65_000n });
    expect(sunPerUnit(figures.saving!.burnCostTrx, figures.saving!.burnVolume, "en")).toBe("210");
    expect(figures.sources.map((source) => source.id)).toEqual(["orders", smart.id]);
    expect(figures.cells.filter((cell) => cell.day === "2026-11-23").map((cell) => [cell.source, cell.sun])).toEqual([
      ["orders", 7_150_000n],
      [smart.id, 9_366_000n],
    ]);
    expect(isEmpty(figures)).toBe(false);
    // no burn cost given: no saving, rather than a guess
    expect(summarize(records({ orders: [order("2026-11-23T08:00:00Z")] }), lastDays("UTC", 7, NOW)).saving).toBeNull();
  });

  it("puts each spend on the user's local day", () => {
    const late = records({ orders: [order("2026-11-21T23:30:00Z")] });
    expect(summarize(late, lastDays("UTC", 7, NOW)).cells[0]!.day).toBe("2026-11-21");
    expect(summarize(late, lastDays("Asia/Shanghai", 7, NOW)).cells[0]!.day).toBe("2026-11-22");
    expect(summarize(late, lastDays("America/New_York", 7, NOW)).cells[0]!.day).toBe("2026-11-21");
  });

  it("draws the biggest rules one by one and the rest together as other rules", () => {
    const rules = Array.from({ length: 8 }, (_, index) => ({
      rule: rule(),
      firings: [firing("2026-11-22T10:00:00Z", `${index + 1}`)],
    }));
    const figures = summarize(records({ rules }), lastDays("UTC", 7, NOW));
    expect(figures.sources).toHaveLength(MAX_RULE_SOURCES);
    expect(figures.sources.map((source) => source.sun)).toEqual([
      8_000_000n,
      7_000_000n,
      6_000_000n,
      5_000_000n,
      10_000_000n,
    ]);
    expect(figures.sources.at(-1)!.kind).toBe("others");
    expect(figures.cells.reduce((sum, cell) => sum + cell.sun, 0n)).toBe(figures.totalSun);
  });

  it("a window with nothing spent is empty, even when its only order failed", () => {
    const figures = summarize(records({ orders: [order("2026-10-30T08:00:00Z")] }), lastDays("UTC", 7, NOW));
    expect(isEmpty(figures)).toBe(true);
    expect(figures.sources).toEqual([]);
    const failed = summarize(
      records({ orders: [order("2026-11-22T08:00:00Z", { status: "Failed" })] }),
      lastDays("UTC", 7, NOW),
    );
    expect(isEmpty(failed)).toBe(true);
    expect(failed.orders).toEqual({ placed: 1, filled: 0, failed: 1 });
  });
});

describe("reading the marketplace for /stats", () => {
  /** An account far bigger than one /stats may read: 5,000 orders and ledger entries, 20 busy rules. */
  function hugeAccount() {
    const calls: string[] = [];
    const at = (index: number) => new Date(NOW - index * 60_000).toISOString();
    const rules = Array.from({ length: 20 }, () => rule());
    const client = {
      async listOrders({ page = 1, pageSize = 20 } = {}) {
        calls.push(`orders ${page} ${pageSize}`);
        return {
          items: Array.from({ length: pageSize }, (_, index) => order(at((page - 1) * pageSize + index))),
          page,
          pageSize,
          total: 5_000,
        };
      },
      async transactions({ page = 1, pageSize = 20 } = {}) {
        calls.push(`ledger ${page} ${pageSize}`);
        return {
          items: Array.from({ length: pageSize }, (_, index) =>
            ledger(at((page - 1) * pageSize + index), "OrderPayment", "-1"),
          ),
          page,
          pageSize,
          total: 5_000,
        };
      },
      async listAutomations() {
        calls.push("automations");
        return [...rules, rule({ spentTrx: "0" }), rule({ status: "cancelled", updatedAt: "2026-09-01T00:00:00Z" })];
      },
      async automationFires(ruleId: string) {
        calls.push(`fires ${ruleId}`);
        return Array.from({ length: 50 }, (_, index) => firing(at(index)));
      },
      async orderStats() {
        calls.push("stats");
        return { totalOrders: 5_000, energyDeliveredThisMonth: "500000000" };
      },
      async previewOrder() {
        calls.push("preview");
        return {
          priceTrx: "1",
          baseCostTrx: "1",
          commissionTrx: "0",
          activationTrx: null,
          burnCostTrx: "21",
          savingsPercent: null,
          balanceTrx: null,
        };
      },
    } as unknown as MarketplaceClient;
    return { client, calls };
  }

  it(`never sends more than ${STATS_REQUEST_LIMIT} requests, and says which records it could not read`, async () => {
    const { client, calls } = hugeAccount();
    const read = await collectSpending(client, lastDays("UTC", 30, NOW).from, NOW);
    expect(calls.length).toBe(read.requests);
    expect(calls.length).toBeLessThanOrEqual(STATS_REQUEST_LIMIT);
    expect(calls.filter((call) => call.startsWith("orders"))).toHaveLength(ORDER_PAGES);
    expect(calls.filter((call) => call.startsWith("ledger"))).toHaveLength(LEDGER_PAGES);
    expect(calls.filter((call) => call.startsWith("fires"))).toHaveLength(FIRING_RULES);
    expect(calls.every((call) => !/^(orders|ledger)/.test(call) || call.endsWith(" 100"))).toBe(true);
    expect(read.gaps.sort()).toEqual(["firings", "ledger", "orders"]);
    expect(read.orders).toHaveLength(ORDER_PAGES * 100);
  });

  it("stops paging at the first entry older than the window, and skips rules that cannot have fired in it", async () => {
    const calls: string[] = [];
    const since = lastDays("UTC", 7, NOW).from;
    const client = {
      async listOrders({ page = 1 } = {}) {
        calls.push(`orders ${page}`);
        return {
          items: Array.from({ length: 100 }, (_, index) =>
            order(new Date(NOW - (page - 1) * 100 * 3_600_000 - index * 3_600_000).toISOString()),
          ),
          page,
          pageSize: 100,
          total: 10_000,
        };
      },
      async transactions() {
        calls.push("ledger");
        return { items: [], page: 1, pageSize: 100, total: 0 };
      },
      async listAutomations() {
        calls.push("automations");
        return [rule({ spentTrx: "0" }), rule({ status: "cancelled", updatedAt: "2026-11-01T00:00:00Z" })];
      },
      async orderStats() {
        calls.push("stats");
        return { totalOrders: 1, energyDeliveredThisMonth: "0" };
      },
      async previewOrder() {
        calls.push("preview");
        throw new Error("not a marketplace error: must surface");
      },
    } as unknown as MarketplaceClient;
    await expect(collectSpending(client, since, NOW)).rejects.toThrow("must surface");
    // 7 days of hourly orders reach past the window on page 2
    expect(calls.filter((call) => call.startsWith("orders"))).toEqual(["orders 1", "orders 2"]);
    expect(calls.some((call) => call.startsWith("fires"))).toBe(false);
  });
});
