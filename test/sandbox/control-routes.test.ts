import { describe, expect, it } from "vitest";
import { createSandboxWorld, orderBody } from "./sandbox-world";
import type { SandboxWorld } from "./sandbox-world";

async function post(world: SandboxWorld, name: string, body: unknown) {
  const response = await world.sandbox.app.request(`/_sandbox/${name}`, {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify(body),
  });
  return { status: response.status, body: (await response.json()) as any }; // eslint-disable-line @typescript-eslint/no-explicit-any
}

describe("/_sandbox control routes", () => {
  it("drive the same world as the programmatic control, in kebab-case", async () => {
    const world = createSandboxWorld();
    const demo = await (await world.sandbox.app.request("/_sandbox/demo")).json();
    expect(demo).toEqual(world.sandbox.demo);

    const { body: account } = await post(world, "create-account", { trx: "20", usdt: "3" });
    const { body: key } = await post(world, "create-key", {
      accountId: account.accountId,
      scope: "purchase",
      dailyLimitTrx: "50",
    });
    expect(key.apiKey).toMatch(/^sk_sandbox_[0-9A-Za-z]{32}$/);
    expect((await post(world, "account-id-for-key", { apiKey: key.apiKey })).body).toEqual({
      accountId: account.accountId,
    });
    expect((await post(world, "get-balance", { accountId: account.accountId })).body).toEqual({
      usdtTrc20: "3",
      trx: "20",
    });
    expect(
      (await post(world, "credit-deposit", { accountId: account.accountId, currency: "TRX", amount: "5" })).body,
    ).toMatchObject({ type: "Deposit", amount: "5" });
    expect((await post(world, "fail-next-order", { accountId: account.accountId, mode: "async" })).body).toEqual({
      ok: true,
    });

    const order = await world.call("POST", "/api/v1/orders", {
      key: key.apiKey,
      body: orderBody(),
      headers: { "Idempotency-Key": "c" },
    });
    const settled = await post(world, "settle-now", {});
    expect(settled.body).toEqual([expect.objectContaining({ id: order.body.id, status: "Failed" })]);
    expect((await post(world, "list-orders", { accountId: account.accountId })).body[0].status).toBe("Failed");
    expect((await post(world, "ledger", { accountId: account.accountId })).body[0]).toMatchObject({
      type: "OrderRefund",
    });
    expect((await post(world, "list-notifications", { accountId: account.accountId })).body[0]).toMatchObject({
      type: "order.failed",
    });

    const rule = await world.call("POST", "/api/v1/automations/smart", {
      key: key.apiKey,
      body: { targetAddress: orderBody().targetAddress },
    });
    expect((await post(world, "fire-rule", { ruleId: rule.body.id })).body).toMatchObject({
      fired: true,
      firing: { volume: 131000, duration: "1h" },
    });
    expect((await post(world, "system-pause-rule", { ruleId: rule.body.id })).body).toMatchObject({
      status: "paused",
      pauseReason: "System",
    });
    expect((await post(world, "cancel-rule", { ruleId: rule.body.id })).body.status).toBe("cancelled");
    expect((await post(world, "list-rules", { accountId: account.accountId })).body).toHaveLength(1);
    expect((await post(world, "set-int64-format", { format: "string" })).status).toBe(200);
    expect((await world.call("GET", "/api/v1/orders/options")).body.resources[0].unit).toBe("65000");

    const state = (await (
      await world.sandbox.app.request(`/_sandbox/state?accountId=${account.accountId}`)
    ).json()) as any; // eslint-disable-line @typescript-eslint/no-explicit-any
    expect(state.accounts).toHaveLength(1);
    expect(state.accounts[0]).toMatchObject({ id: account.accountId, balance: { trx: "15.6335" } });
    expect(state.accounts[0].keys[0].apiKeyPrefix).not.toBe(key.apiKey);
    expect(state.settings).toEqual({ errorCodePlacement: "type-uri", int64Format: "string" });
  });

  it("answer {error, code} with 400, 404 or 409 on bad arguments", async () => {
    const world = createSandboxWorld();
    expect(await post(world, "get-balance", { accountId: "nope" })).toMatchObject({
      status: 404,
      body: { code: "account.not_found" },
    });
    expect(await post(world, "create-key", { accountId: world.sandbox.demo.accountId, scope: "admin" })).toMatchObject({
      status: 400,
      body: { code: "control.bad_argument" },
    });
    expect(
      (await post(world, "credit-deposit", { accountId: world.sandbox.demo.accountId, currency: "TRX", amount: "-1" }))
        .status,
    ).toBe(400);
    expect((await post(world, "fire-rule", { ruleId: "00000000-0000-4000-8000-000000000000" })).status).toBe(404);
    const rule = await world.call("POST", "/api/v1/automations/smart", {
      body: { targetAddress: orderBody().targetAddress },
    });
    await post(world, "cancel-rule", { ruleId: rule.body.id });
    expect((await post(world, "cancel-rule", { ruleId: rule.body.id })).status).toBe(409);
    const malformed = await world.sandbox.app.request("/_sandbox/create-account", { method: "POST", body: "{" });
    expect(malformed.status).toBe(400);
  });

  it("startTimers settles orders on its own and stop() ends it", async () => {
    const world = createSandboxWorld();
    const order = await world.call("POST", "/api/v1/orders", {
      body: orderBody(),
      headers: { "Idempotency-Key": "t" },
    });
    world.advance(5000);
    const stop = world.sandbox.startTimers(10);
    const deadline = Date.now() + 5_000;
    let status: unknown;
    while (
      (status = (await world.call("GET", `/api/v1/orders/${order.body.id}`)).body.status) !== "Filled" &&
      Date.now() < deadline
    )
      await new Promise((resolve) => setTimeout(resolve, 10));
    stop();
    expect(status).toBe("Filled");
  });
});
