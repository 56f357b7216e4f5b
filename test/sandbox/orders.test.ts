import { describe, expect, it } from "vitest";
import { ADDRESS, createSandboxWorld, newCustomer, orderBody, OTHER_ADDRESS } from "./sandbox-world";
import { orderPreviewSchema } from "#src/marketplace/index";

const PRICE_65K_1H = "4.6475"; // 65,000 × 65 sun = 4.225 TRX, + 10% commission

describe("order state table", () => {
  it("(none) → Created: order returned as Created and TRX charged", async () => {
    const world = createSandboxWorld();
    const { accountId, apiKey } = newCustomer(world, { trx: "100" });
    const res = await world.call("POST", "/api/v1/orders", {
      key: apiKey,
      body: orderBody(),
      headers: { "Idempotency-Key": "k1" },
    });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      resource: "energy",
      targetAddress: ADDRESS,
      volume: 65000,
      duration: "1h",
      priceTrx: PRICE_65K_1H,
      activationTrx: "0",
      totalTrx: PRICE_65K_1H,
      status: "Created",
      txId: null,
    });
    expect(res.body.id).toMatch(/^[0-9a-f-]{36}$/);
    expect(world.control.getBalance(accountId).trx).toBe("95.3525");
    expect(world.control.ledger(accountId)[0]).toMatchObject({
      type: "OrderPayment",
      currency: "TRX",
      amount: "-4.6475",
    });
  });

  it("Created → Filled at the first tick after the settle delay, with a txId, a notification and no refund", async () => {
    const world = createSandboxWorld();
    const { accountId, apiKey } = newCustomer(world);
    const { body: order } = await world.call("POST", "/api/v1/orders", {
      key: apiKey,
      body: orderBody(),
      headers: { "Idempotency-Key": "k1" },
    });
    world.advance(2999);
    await world.sandbox.tick();
    expect((await world.call("GET", `/api/v1/orders/${order.id}`, { key: apiKey })).body.status).toBe("Created");
    world.advance(1);
    await world.sandbox.tick();
    const settled = (await world.call("GET", `/api/v1/orders/${order.id}`, { key: apiKey })).body;
    expect(settled.status).toBe("Filled");
    expect(settled.txId).toMatch(/^[0-9a-f]{64}$/);
    expect(world.control.listNotifications(accountId)[0]).toMatchObject({
      type: "order.filled",
      level: "success",
      read: false,
    });
    expect(world.control.getBalance(accountId).trx).toBe("95.3525");
  });

  it("Created → failed (async): settles as Failed, refunds, raises order.failed", async () => {
    const world = createSandboxWorld();
    const { accountId, apiKey } = newCustomer(world);
    world.control.failNextOrder({ accountId, mode: "async" });
    const res = await world.call("POST", "/api/v1/orders", {
      key: apiKey,
      body: orderBody(),
      headers: { "Idempotency-Key": "k1" },
    });
    expect(res.status).toBe(200);
    expect(res.body.status).toBe("Created");
    expect(world.control.getBalance(accountId).trx).toBe("95.3525");
    const settled = world.control.settleNow({ accountId });
    expect(settled).toHaveLength(1);
    expect(settled[0]).toMatchObject({ id: res.body.id, status: "Failed", txId: null });
    expect(world.control.getBalance(accountId).trx).toBe("100");
    expect(
      world.control
        .ledger(accountId)
        .slice(0, 2)
        .map((entry) => [entry.type, entry.amount]),
    ).toEqual([
      ["OrderRefund", "4.6475"],
      ["OrderPayment", "-4.6475"],
    ]);
    expect(world.control.listNotifications(accountId)[0]).toMatchObject({ type: "order.failed", level: "error" });
    // The flag is one-shot: the next order fills.
    const next = await world.call("POST", "/api/v1/orders", {
      key: apiKey,
      body: orderBody(),
      headers: { "Idempotency-Key": "k2" },
    });
    expect(world.control.settleNow({ accountId })[0]).toMatchObject({ id: next.body.id, status: "Filled" });
  });

  it("sync provider failure answers 502, refunds, and keeps no order", async () => {
    const world = createSandboxWorld();
    const { accountId, apiKey } = newCustomer(world);
    world.control.failNextOrder({ accountId, mode: "sync" });
    const res = await world.call("POST", "/api/v1/orders", {
      key: apiKey,
      body: orderBody(),
      headers: { "Idempotency-Key": "k1" },
    });
    expect(res.status).toBe(502);
    expect(res.body).toMatchObject({ status: 502, type: "https://docs.marketplace.example/errors/provider.failed" });
    expect(world.control.getBalance(accountId).trx).toBe("100");
    expect(
      world.control
        .ledger(accountId)
        .slice(0, 2)
        .map((entry) => entry.type),
    ).toEqual(["OrderRefund", "OrderPayment"]);
    expect(world.control.listOrders(accountId)).toHaveLength(0);
    // A retry with the same key is a fresh attempt, since the failed one left no order.
    const retry = await world.call("POST", "/api/v1/orders", {
      key: apiKey,
      body: orderBody(),
      headers: { "Idempotency-Key": "k1" },
    });
    expect(retry.status).toBe(200);
    expect(world.control.getBalance(accountId).trx).toBe("95.3525");
  });
});

describe("placing orders", () => {
  it("replays an Idempotency-Key with the original order (current status) and charges once", async () => {
    const world = createSandboxWorld();
    const { accountId, apiKey } = newCustomer(world);
    const first = await world.call("POST", "/api/v1/orders", {
      key: apiKey,
      body: orderBody(),
      headers: { "Idempotency-Key": "same" },
    });
    world.control.settleNow({ accountId });
    const replay = await world.call("POST", "/api/v1/orders", {
      key: apiKey,
      body: orderBody(),
      headers: { "Idempotency-Key": "same" },
    });
    expect(replay.status).toBe(200);
    expect(replay.body.id).toBe(first.body.id);
    expect(replay.body.status).toBe("Filled");
    expect(world.control.getBalance(accountId).trx).toBe("95.3525");
    expect(world.control.listOrders(accountId)).toHaveLength(1);
    expect(world.control.ledger(accountId).filter((entry) => entry.type === "OrderPayment")).toHaveLength(1);
  });

  it("answers 409 when an Idempotency-Key is reused with a different body", async () => {
    const world = createSandboxWorld();
    const { apiKey } = newCustomer(world);
    await world.call("POST", "/api/v1/orders", {
      key: apiKey,
      body: orderBody(),
      headers: { "Idempotency-Key": "same" },
    });
    const res = await world.call("POST", "/api/v1/orders", {
      key: apiKey,
      body: orderBody({ volume: 70000 }),
      headers: { "Idempotency-Key": "same" },
    });
    expect(res.status).toBe(409);
    expect(res.body.type).toContain("idempotency.key_reused");
  });

  it("answers 402 wallet.insufficient_balance and charges nothing", async () => {
    const world = createSandboxWorld();
    const { accountId, apiKey } = newCustomer(world, { trx: "4.6" });
    const res = await world.call("POST", "/api/v1/orders", {
      key: apiKey,
      body: orderBody(),
      headers: { "Idempotency-Key": "k" },
    });
    expect(res.status).toBe(402);
    expect(res.body).toMatchObject({
      status: 402,
      type: "https://docs.marketplace.example/errors/wallet.insufficient_balance",
      instance: "/api/v1/orders",
    });
    expect(res.body.detail).toContain("4.6475");
    expect(world.control.getBalance(accountId).trx).toBe("4.6");
    expect(world.control.listOrders(accountId)).toHaveLength(0);
  });

  it("adds the activation fee for an unactivated target, and the address is activated once filled", async () => {
    const world = createSandboxWorld();
    const { accountId, apiKey } = newCustomer(world);
    world.control.markUnactivated({ address: OTHER_ADDRESS });
    const preview = await world.call("GET", `/api/v1/orders/preview?volume=65000&days=1h&target=${OTHER_ADDRESS}`, {
      key: apiKey,
    });
    expect(preview.body.activationTrx).toBe("1");
    const res = await world.call("POST", "/api/v1/orders", {
      key: apiKey,
      body: orderBody({ targetAddress: OTHER_ADDRESS }),
      headers: { "Idempotency-Key": "a" },
    });
    expect(res.body).toMatchObject({ priceTrx: PRICE_65K_1H, activationTrx: "1", totalTrx: "5.6475" });
    world.control.settleNow({ accountId });
    const again = await world.call("POST", "/api/v1/orders", {
      key: apiKey,
      body: orderBody({ targetAddress: OTHER_ADDRESS }),
      headers: { "Idempotency-Key": "b" },
    });
    expect(again.body.activationTrx).toBe("0");
  });

  it("validates the body with 422 and a detail naming the field", async () => {
    const world = createSandboxWorld();
    const cases: [Record<string, unknown>, string][] = [
      [orderBody({ volume: 5 }), "volume must be between 10000 and 5000000"],
      [orderBody({ duration: "2h" }), "duration"],
      [orderBody({ targetAddress: "not-an-address" }), "targetAddress"],
      [orderBody({ resource: "water" }), "resource"],
      [orderBody({ volume: "65000.5" }), "volume"],
      [{ targetAddress: ADDRESS, duration: "1h" }, "volume is required"],
      [orderBody({ resource: "bandwidth", volume: 2_000_000 }), "between 1000 and 1000000"],
    ];
    for (const [body, detail] of cases) {
      const res = await world.call("POST", "/api/v1/orders", {
        body,
        headers: { "Idempotency-Key": JSON.stringify(body) },
      });
      expect(res.status, JSON.stringify(body)).toBe(422);
      expect(res.body.detail).toContain(detail);
    }
    const malformed = await world.call("POST", "/api/v1/orders", {
      rawBody: "{nope",
      headers: { "Content-Type": "application/json" },
    });
    expect(malformed.status).toBe(400);
  });

  it("defaults a null or missing resource to energy and prices bandwidth", async () => {
    const world = createSandboxWorld();
    const { apiKey } = newCustomer(world);
    const res = await world.call("POST", "/api/v1/orders", {
      key: apiKey,
      body: orderBody({ resource: null }),
      headers: { "Idempotency-Key": "n" },
    });
    expect(res.body.resource).toBe("energy");
    const bandwidth = await world.call("POST", "/api/v1/orders", {
      key: apiKey,
      body: orderBody({ resource: "bandwidth", volume: 1000, duration: "1d" }),
      headers: { "Idempotency-Key": "b" },
    });
    // 1,000 × 900 sun = 0.9 TRX, + 10%
    expect(bandwidth.body).toMatchObject({ resource: "bandwidth", priceTrx: "0.99", totalTrx: "0.99" });
  });
});

describe("daily spend limit", () => {
  it("refuses with 403 api_key.spend_limit_exceeded and rolls over at UTC midnight", async () => {
    const world = createSandboxWorld("2025-03-10T23:59:00.000Z");
    const { apiKey } = newCustomer(world, { trx: "100", dailyLimitTrx: "10" });
    const place = (key: string) =>
      world.call("POST", "/api/v1/orders", { key: apiKey, body: orderBody(), headers: { "Idempotency-Key": key } });
    expect((await place("1")).status).toBe(200);
    expect((await place("2")).status).toBe(200); // 9.295 of 10
    const refused = await place("3");
    expect(refused.status).toBe(403);
    expect(refused.body.type).toBe("https://docs.marketplace.example/errors/api_key.spend_limit_exceeded");
    world.setNow("2025-03-10T23:59:59.999Z");
    expect((await place("3b")).status).toBe(403);
    world.setNow("2025-03-11T00:00:00.000Z");
    expect((await place("4")).status).toBe(200);
  });

  it("does not count refunded orders, and counts only the key's own spending", async () => {
    const world = createSandboxWorld();
    const { accountId, apiKey } = newCustomer(world, { trx: "100", dailyLimitTrx: "5" });
    const { apiKey: otherKey } = world.control.createKey({ accountId, scope: "purchase" });
    world.control.failNextOrder({ accountId, mode: "async" });
    await world.call("POST", "/api/v1/orders", { key: apiKey, body: orderBody(), headers: { "Idempotency-Key": "1" } });
    world.control.settleNow({ accountId });
    expect(
      (
        await world.call("POST", "/api/v1/orders", {
          key: apiKey,
          body: orderBody(),
          headers: { "Idempotency-Key": "2" },
        })
      ).status,
    ).toBe(200);
    expect(
      (
        await world.call("POST", "/api/v1/orders", {
          key: apiKey,
          body: orderBody(),
          headers: { "Idempotency-Key": "3" },
        })
      ).status,
    ).toBe(403);
    expect(
      (
        await world.call("POST", "/api/v1/orders", {
          key: otherKey,
          body: orderBody(),
          headers: { "Idempotency-Key": "4" },
        })
      ).status,
    ).toBe(200);
    world.control.setSpendLimit({ apiKey, dailyLimitTrx: null });
    expect(
      (
        await world.call("POST", "/api/v1/orders", {
          key: apiKey,
          body: orderBody(),
          headers: { "Idempotency-Key": "5" },
        })
      ).status,
    ).toBe(200);
  });

  it("counts firings of rules the key created", async () => {
    const world = createSandboxWorld();
    const { apiKey } = newCustomer(world, { trx: "100", dailyLimitTrx: "12" });
    const rule = await world.call("POST", "/api/v1/automations/smart", {
      key: apiKey,
      body: { targetAddress: ADDRESS },
    });
    expect(world.control.fireRule({ ruleId: rule.body.id }).fired).toBe(true); // 9.3665
    const refused = await world.call("POST", "/api/v1/orders", {
      key: apiKey,
      body: orderBody(),
      headers: { "Idempotency-Key": "x" },
    });
    expect(refused.status).toBe(403);
    const skipped = world.control.fireRule({ ruleId: rule.body.id });
    expect(skipped).toMatchObject({ fired: false, reason: "spend_limit_exceeded", rule: { status: "active" } });
  });
});

describe("daily spend limit and automation firings", () => {
  it("skips a firing over the creating key's limit until UTC midnight, then fires again", async () => {
    const world = createSandboxWorld("2025-03-10T23:00:00.000Z");
    const { accountId, apiKey } = newCustomer(world, { trx: "100", dailyLimitTrx: "10" });
    const rule = (
      await world.call("POST", "/api/v1/automations/smart", { key: apiKey, body: { targetAddress: ADDRESS } })
    ).body;
    expect(world.control.fireRule({ ruleId: rule.id }).fired).toBe(true); // 9.3665 of 10
    world.setNow("2025-03-10T23:59:59.999Z");
    expect(world.control.fireRule({ ruleId: rule.id })).toMatchObject({
      fired: false,
      reason: "spend_limit_exceeded",
      rule: { status: "active" },
    });
    world.setNow("2025-03-11T00:00:00.000Z");
    const next = world.control.fireRule({ ruleId: rule.id });
    expect(next).toMatchObject({ fired: true, firing: { priceTrx: "9.3665", createdAt: "2025-03-11T00:00:00.000Z" } });
    expect(world.control.listRules(accountId)[0]!.spentTrx).toBe("18.733");
    // The new day's firing counts toward the new day: an order on top of it is refused.
    const refused = await world.call("POST", "/api/v1/orders", {
      key: apiKey,
      body: orderBody(),
      headers: { "Idempotency-Key": "after" },
    });
    expect(refused.status).toBe(403);
    expect(refused.body.type).toContain("api_key.spend_limit_exceeded");
  });
});

describe("reading orders", () => {
  it("lists newest first with paging defaults, a 100 cap and totals", async () => {
    const world = createSandboxWorld();
    const { apiKey } = newCustomer(world, { trx: "1000" });
    const ids: string[] = [];
    for (let i = 0; i < 25; i++) {
      ids.push(
        (
          await world.call("POST", "/api/v1/orders", {
            key: apiKey,
            body: orderBody({ volume: 10000 + i }),
            headers: { "Idempotency-Key": `o${i}` },
          })
        ).body.id,
      );
    }
    const first = await world.call("GET", "/api/v1/orders", { key: apiKey });
    expect(first.body).toMatchObject({ page: 1, pageSize: 20, total: 25 });
    expect(first.body.items).toHaveLength(20);
    expect(first.body.items[0].id).toBe(ids[24]);
    const second = await world.call("GET", "/api/v1/orders?page=2&pageSize=20", { key: apiKey });
    expect(second.body.items.map((order: { id: string }) => order.id)).toEqual(ids.slice(0, 5).reverse());
    expect((await world.call("GET", "/api/v1/orders?pageSize=500", { key: apiKey })).body.pageSize).toBe(100);
    expect((await world.call("GET", "/api/v1/orders?page=0", { key: apiKey })).status).toBe(400);
  });

  it("answers 404 for unknown, foreign and non-uuid order ids", async () => {
    const world = createSandboxWorld();
    const mine = newCustomer(world);
    const other = newCustomer(world);
    const order = await world.call("POST", "/api/v1/orders", {
      key: mine.apiKey,
      body: orderBody(),
      headers: { "Idempotency-Key": "x" },
    });
    expect((await world.call("GET", `/api/v1/orders/${order.body.id}`, { key: mine.apiKey })).status).toBe(200);
    expect((await world.call("GET", `/api/v1/orders/${order.body.id}`, { key: other.apiKey })).status).toBe(404);
    expect(
      (await world.call("GET", "/api/v1/orders/00000000-0000-4000-8000-000000000000", { key: mine.apiKey })).status,
    ).toBe(404);
    const notUuid = await world.call("GET", "/api/v1/orders/abc", { key: mine.apiKey });
    expect(notUuid.status).toBe(404);
    expect(notUuid.body.type).toContain("order.not_found");
  });

  it("reports stats: all orders, and energy filled this UTC month", async () => {
    const world = createSandboxWorld("2025-03-31T23:00:00.000Z");
    const { accountId, apiKey } = newCustomer(world, { trx: "1000" });
    await world.call("POST", "/api/v1/orders", {
      key: apiKey,
      body: orderBody({ volume: 100000 }),
      headers: { "Idempotency-Key": "march" },
    });
    world.control.settleNow({ accountId });
    world.setNow("2025-04-01T01:00:00.000Z");
    await world.call("POST", "/api/v1/orders", {
      key: apiKey,
      body: orderBody({ volume: 65000 }),
      headers: { "Idempotency-Key": "a1" },
    });
    await world.call("POST", "/api/v1/orders", {
      key: apiKey,
      body: orderBody({ resource: "bandwidth", volume: 5000 }),
      headers: { "Idempotency-Key": "a2" },
    });
    world.control.settleNow({ accountId });
    await world.call("POST", "/api/v1/orders", {
      key: apiKey,
      body: orderBody({ volume: 20000 }),
      headers: { "Idempotency-Key": "a3" },
    });
    const stats = await world.call("GET", "/api/v1/orders/stats", { key: apiKey });
    expect(stats.body).toEqual({ totalOrders: 4, energyDeliveredThisMonth: 65000 });
  });

  it("serves options, the preview and the public quote with the price formula", async () => {
    const world = createSandboxWorld();
    const options = await world.call("GET", "/api/v1/orders/options");
    expect(options.body).toEqual({
      resources: [
        { resource: "energy", durations: ["15m", "1h", "1d"], unit: 65000, minVolume: 10000, maxVolume: 5000000 },
        { resource: "bandwidth", durations: ["15m", "1h", "1d"], unit: 350, minVolume: 1000, maxVolume: 1000000 },
      ],
      activationMaxTrx: "1.1",
    });
    const preview = await world.call("GET", `/api/v1/orders/preview?volume=65000&days=1h&target=${ADDRESS}`);
    expect(preview.body).toEqual({
      priceTrx: "4.6475",
      baseCostTrx: "4.225",
      commissionTrx: "0.4225",
      activationTrx: "0",
      burnCostTrx: "13.65",
      savingsPercent: "65.9",
      balanceTrx: "1000",
    });
    // A bare number of days is priced at the daily rate: 65,000 × 85 × 2 = 11.05 TRX.
    expect((await world.call("GET", "/api/v1/orders/preview?volume=65000&days=2")).body.baseCostTrx).toBe("11.05");
    expect((await world.call("GET", "/api/v1/orders/preview?volume=65000&days=1")).body.baseCostTrx).toBe("5.525");
    expect((await world.call("GET", "/api/v1/orders/preview?volume=65000&days=week")).status).toBe(400);
    const bandwidth = await world.call("GET", "/api/v1/orders/preview?volume=1000&days=15m&resource=bandwidth");
    // Savings versus burning are for energy only (spec): null for bandwidth, which the bot's schema reads as absent.
    expect(bandwidth.body).toMatchObject({
      baseCostTrx: "0.6",
      priceTrx: "0.66",
      burnCostTrx: null,
      savingsPercent: null,
    });
    expect(orderPreviewSchema.parse(bandwidth.body)).toMatchObject({
      priceTrx: "0.66",
      burnCostTrx: null,
      savingsPercent: null,
    });

    const quote = await world.call("GET", "/api/v1/pricing/quote?resource=energy&duration=15m&volume=65000", {
      key: null,
    });
    expect(quote.status).toBe(200);
    expect(quote.body).toEqual({ priceTrx: "3.575" });
    expect((await world.call("GET", "/api/v1/pricing/quote?duration=2d&volume=65000", { key: null })).status).toBe(400);
    expect((await world.call("GET", "/api/v1/pricing/quote?volume=abc", { key: null })).status).toBe(400);
    expect((await world.call("GET", "/api/v1/pricing/quote", { key: null })).status).toBe(400);
  });
});
