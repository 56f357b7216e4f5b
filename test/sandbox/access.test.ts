import { describe, expect, it } from "vitest";
import { ADDRESS, createSandboxWorld, newCustomer, orderBody } from "./sandbox-world";

describe("API keys and scopes", () => {
  it("answers 401 for a missing, unknown or revoked key, except on the public quote", async () => {
    const world = createSandboxWorld();
    const missing = await world.call("GET", "/api/v1/wallet/balance", { key: null });
    expect(missing.status).toBe(401);
    expect(missing.body).toMatchObject({ status: 401, title: "Unauthorized", instance: "/api/v1/wallet/balance" });
    expect((await world.call("GET", "/api/v1/wallet/balance", { key: "sk_sandbox_nope" })).status).toBe(401);
    const { apiKey } = newCustomer(world);
    expect((await world.call("GET", "/api/v1/wallet/balance", { key: apiKey })).status).toBe(200);
    world.control.revokeKey({ apiKey });
    expect((await world.call("GET", "/api/v1/wallet/balance", { key: apiKey })).status).toBe(401);
    expect((await world.call("GET", "/api/v1/pricing/quote?volume=65000", { key: null })).status).toBe(200);
  });

  it("lets a read key read but answers 403 api_key.insufficient_scope when it spends or manages rules", async () => {
    const world = createSandboxWorld();
    const { accountId, apiKey } = newCustomer(world, { scope: "read" });
    for (const path of [
      "/api/v1/orders",
      "/api/v1/orders/stats",
      "/api/v1/automations",
      "/api/v1/wallet/transactions",
      "/api/v1/notifications",
    ]) {
      expect((await world.call("GET", path, { key: apiKey })).status, path).toBe(200);
    }
    const refused = await world.call("POST", "/api/v1/orders", {
      key: apiKey,
      body: orderBody(),
      headers: { "Idempotency-Key": "r" },
    });
    expect(refused.status).toBe(403);
    expect(refused.body.type).toBe("https://docs.marketplace.example/errors/api_key.insufficient_scope");
    expect((await world.call("POST", "/api/v1/automations/smart", { key: apiKey, body: {} })).status).toBe(403);
    expect(world.control.getBalance(accountId).trx).toBe("100");
    const { apiKey: full } = world.control.createKey({ accountId, scope: "full" });
    expect(
      (
        await world.call("POST", "/api/v1/orders", {
          key: full,
          body: orderBody(),
          headers: { "Idempotency-Key": "f" },
        })
      ).status,
    ).toBe(200);
  });

  it("answers 403 api_key.insufficient_scope to a read key on pause, resume and cancel, and leaves the rule as it was", async () => {
    const world = createSandboxWorld();
    const { accountId, apiKey: purchase } = newCustomer(world);
    const { apiKey: read } = world.control.createKey({ accountId, scope: "read" });
    const active = (
      await world.call("POST", "/api/v1/automations/smart", { key: purchase, body: { targetAddress: ADDRESS } })
    ).body;
    const paused = (
      await world.call("POST", "/api/v1/automations/smart", { key: purchase, body: { targetAddress: ADDRESS } })
    ).body;
    expect((await world.call("POST", `/api/v1/automations/${paused.id}/pause`, { key: purchase })).status).toBe(200);
    const before = world.control.listRules(accountId);
    world.advance(60_000);
    for (const [id, action] of [
      [active.id, "pause"],
      [paused.id, "resume"],
      [active.id, "cancel"],
      [paused.id, "cancel"],
    ] as const) {
      const refused = await world.call("POST", `/api/v1/automations/${id}/${action}`, { key: read });
      expect(refused.status, action).toBe(403);
      expect(refused.body.type, action).toBe("https://docs.marketplace.example/errors/api_key.insufficient_scope");
    }
    // Unchanged down to updatedAt, though the clock moved.
    expect(world.control.listRules(accountId)).toEqual(before);
    expect(before.map((rule) => rule.status).sort()).toEqual(["active", "paused"]);
  });

  it("the demo account has 1000 TRX, 50 USDT and a purchase key without a limit", async () => {
    const world = createSandboxWorld();
    expect(world.sandbox.demo.apiKey).toMatch(/^sk_sandbox_[0-9A-Za-z]{32}$/);
    expect(world.control.accountIdForKey(world.sandbox.demo.apiKey)).toBe(world.sandbox.demo.accountId);
    expect(world.control.accountIdForKey("sk_sandbox_unknown")).toBeNull();
    expect((await world.call("GET", "/api/v1/wallet/balance")).body).toEqual({ usdtTrc20: "50", trx: "1000" });
    expect(
      (
        await world.call("POST", "/api/v1/orders", {
          body: orderBody({ volume: 5_000_000, duration: "1d" }),
          headers: { "Idempotency-Key": "big" },
        })
      ).status,
    ).toBe(200);
  });
});
