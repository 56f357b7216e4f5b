import { describe, expect, it } from "vitest";
import {
  automationOptionsSchema,
  automationRuleSchema,
  balanceSchema,
  depositAddressSchema,
  notificationPageSchema,
  orderOptionsSchema,
  orderPreviewSchema,
  orderSchema,
  orderStatsSchema,
  pagedSchema,
} from "#src/marketplace/index";

const ORDER = {
  id: "5f0c6f8e-2b7e-4c1b-9a4e-0a1b2c3d4e5f",
  resource: "energy",
  targetAddress: "TNPeeaaFB7K9cmo4uQpcU32zGK8G1NYqeL",
  volume: 65000,
  duration: "1h",
  priceTrx: "3.25",
  activationTrx: "0",
  totalTrx: "3.25",
  status: "SomethingNew",
  txId: null,
  createdAt: "2025-01-01T00:00:00Z",
};

const RULE = {
  id: "r1",
  type: "AutoRefill",
  resource: "energy",
  targetAddress: ORDER.targetAddress,
  minimal: null,
  volume: "131000",
  duration: null,
  spentTrx: "0",
  status: "paused",
  pauseReason: "System",
  autoResume: true,
  createdAt: "2025-01-01T00:00:00Z",
  updatedAt: "2025-01-01T00:00:00Z",
};

describe("resource schemas", () => {
  it("normalise int64 and tolerate unknown fields and open status strings", () => {
    const order = orderSchema.parse({ ...ORDER, somethingAdded: { nested: true } });
    expect(order.volume).toBe("65000");
    expect(order.status).toBe("SomethingNew");
    expect(order).not.toHaveProperty("somethingAdded");
  });

  it.each(["id", "volume", "txId", "status", "createdAt"])(
    "require the order's %s (required, even when nullable)",
    (field) => {
      const { [field]: _removed, ...rest } = ORDER as Record<string, unknown>;
      expect(orderSchema.safeParse(rest).success).toBe(false);
    },
  );

  it("keep nulls where the spec says 'or null'", () => {
    expect(automationRuleSchema.parse(RULE)).toMatchObject({ minimal: null, duration: null, volume: "131000" });
  });

  it("turn absent optional-ish fields into null or an empty list", () => {
    expect(
      orderPreviewSchema.parse({ priceTrx: "1", baseCostTrx: "0.9", commissionTrx: "0.1", savingsPercent: null }),
    ).toStrictEqual({
      priceTrx: "1",
      baseCostTrx: "0.9",
      commissionTrx: "0.1",
      activationTrx: null,
      burnCostTrx: null,
      savingsPercent: null,
      balanceTrx: null,
    });
    expect(depositAddressSchema.parse({ network: "TRC20", address: "T" }).minimums).toStrictEqual([]);
    expect(orderOptionsSchema.parse({ resources: [] }).activationMaxTrx).toBeNull();
  });

  it("reject a TRX amount that is not a decimal", () => {
    expect(balanceSchema.safeParse({ usdtTrc20: "1", trx: "1,5" }).success).toBe(false);
    expect(balanceSchema.safeParse({ usdtTrc20: "1", trx: 1.5 }).success).toBe(false);
    expect(balanceSchema.safeParse({ usdtTrc20: "1", trx: "++5" }).success).toBe(false);
    expect(balanceSchema.safeParse({ usdtTrc20: "1", trx: "+-5" }).success).toBe(false);
  });

  it("read an amount written with a plus sign as the plain amount, and leave out what the spec does not mark required", () => {
    expect(balanceSchema.parse({ usdtTrc20: "+25", trx: "+0.5" })).toStrictEqual({ usdtTrc20: "25", trx: "0.5" });
    expect(balanceSchema.parse({ trx: "1" })).toStrictEqual({ usdtTrc20: null, trx: "1" });
    expect(orderPreviewSchema.parse({ priceTrx: "4.5" })).toMatchObject({
      priceTrx: "4.5",
      baseCostTrx: null,
      commissionTrx: null,
      balanceTrx: null,
    });
    expect(orderPreviewSchema.safeParse({ commissionTrx: "0.5" }).success).toBe(false);
  });

  it("accept int32 counters as numeric strings", () => {
    expect(orderStatsSchema.parse({ totalOrders: "3", energyDeliveredThisMonth: "9007199254740993" })).toStrictEqual({
      totalOrders: 3,
      energyDeliveredThisMonth: "9007199254740993",
    });
    expect(pagedSchema(orderSchema).parse({ items: [ORDER], page: "1", pageSize: 20, total: "1" })).toMatchObject({
      page: 1,
      total: 1,
    });
    expect(notificationPageSchema.parse({ items: [], page: 1, pageSize: 20, total: 0, unread: "2" }).unread).toBe(2);
  });

  it("read every int64 of the options in both forms", () => {
    const options = {
      durations: ["1h"],
      energyUnit: "65000",
      minVolume: 65000,
      maxVolume: "5000000",
      renewalMinVolume: 65000,
      renewalMaxVolume: "1000000",
    };
    expect(automationOptionsSchema.parse(options)).toStrictEqual({
      ...options,
      minVolume: "65000",
      renewalMinVolume: "65000",
    });
  });
});
