import { describe, expect, it } from "vitest";
import { ADDRESS, createSandboxWorld, newCustomer, orderBody } from "./sandbox-world";

describe("int64 fields", () => {
  it("accepts decimal-integer strings in requests and rejects other strings", async () => {
    const world = createSandboxWorld();
    const { apiKey } = newCustomer(world);
    const order = await world.call("POST", "/api/v1/orders", {
      key: apiKey,
      body: orderBody({ volume: "65000" }),
      headers: { "Idempotency-Key": "s" },
    });
    expect(order.status).toBe(200);
    expect(order.body.volume).toBe(65000);
    const rule = await world.call("POST", "/api/v1/automations", {
      key: apiKey,
      body: { targetAddress: ADDRESS, minimal: "0", volume: "70000", duration: "15m" },
    });
    expect(rule.body).toMatchObject({ minimal: 0, volume: 70000 });
    for (const volume of ["065000", "65000.0", "6.5e4", " 65000", "", true]) {
      const res = await world.call("POST", "/api/v1/orders", {
        key: apiKey,
        body: orderBody({ volume }),
        headers: { "Idempotency-Key": `bad-${String(volume)}` },
      });
      expect(res.status, JSON.stringify(volume)).toBe(422);
      expect(res.body.detail).toContain("volume");
    }
  });

  it("serialises int64 fields as strings after setInt64Format({ format: 'string' })", async () => {
    const world = createSandboxWorld();
    const { accountId, apiKey } = newCustomer(world);
    world.control.setInt64Format({ format: "string" });
    const order = await world.call("POST", "/api/v1/orders", {
      key: apiKey,
      body: orderBody(),
      headers: { "Idempotency-Key": "s" },
    });
    expect(order.body.volume).toBe("65000");
    world.control.settleNow({ accountId });
    expect((await world.call("GET", "/api/v1/orders/stats", { key: apiKey })).body).toEqual({
      totalOrders: 1,
      energyDeliveredThisMonth: "65000",
    });
    const options = (await world.call("GET", "/api/v1/orders/options", { key: apiKey })).body;
    expect(options.resources[0]).toMatchObject({ unit: "65000", minVolume: "10000", maxVolume: "5000000" });
    expect((await world.call("GET", "/api/v1/automations/options", { key: apiKey })).body.renewalMaxVolume).toBe(
      "5000000",
    );
    const rule = await world.call("POST", "/api/v1/automations", {
      key: apiKey,
      body: { targetAddress: ADDRESS, minimal: 1000, volume: 65000, duration: "1h" },
    });
    expect(rule.body).toMatchObject({ minimal: "1000", volume: "65000" });
    world.control.fireRule({ ruleId: rule.body.id });
    expect((await world.call("GET", `/api/v1/automations/${rule.body.id}/fires`, { key: apiKey })).body[0].volume).toBe(
      "65000",
    );
    // int32 fields stay numbers.
    expect((await world.call("GET", "/api/v1/orders", { key: apiKey })).body).toMatchObject({
      page: 1,
      pageSize: 20,
      total: 1,
    });
    world.control.setInt64Format({ format: "number" });
    expect((await world.call("GET", `/api/v1/orders/${order.body.id}`, { key: apiKey })).body.volume).toBe(65000);
  });
});

describe("error code placement", () => {
  it("puts the code where setErrorCodePlacement says", async () => {
    const world = createSandboxWorld();
    const { apiKey } = newCustomer(world, { trx: "1" });
    const fail = () =>
      world.call("POST", "/api/v1/orders", { key: apiKey, body: orderBody(), headers: { "Idempotency-Key": "x" } });

    const uri = (await fail()).body;
    expect(uri).toMatchObject({
      type: "https://docs.marketplace.example/errors/wallet.insufficient_balance",
      title: "Insufficient balance",
      status: 402,
      instance: "/api/v1/orders",
    });

    world.control.setErrorCodePlacement({ placement: "code" });
    expect((await fail()).body).toMatchObject({ code: "wallet.insufficient_balance", type: "about:blank" });
    world.control.setErrorCodePlacement({ placement: "type" });
    expect((await fail()).body.type).toBe("wallet.insufficient_balance");
    world.control.setErrorCodePlacement({ placement: "title" });
    expect((await fail()).body.title).toBe("wallet.insufficient_balance");
    world.control.setErrorCodePlacement({ placement: "detail" });
    const detail = (await fail()).body;
    expect(detail.type).toBe("about:blank");
    expect(detail.detail).toMatch(
      /^the order costs 4\.6475 TRX but the balance is 1 TRX \(code: wallet\.insufficient_balance\)$/,
    );
    expect(() => world.control.setErrorCodePlacement({ placement: "header" as never })).toThrow(/placement/);
  });

  it("serves errors as application/problem+json", async () => {
    const world = createSandboxWorld();
    const res = await world.call("GET", "/api/v1/nothing-here");
    expect(res.status).toBe(404);
    expect(res.headers.get("content-type")).toContain("application/problem+json");
  });
});

describe("fault injection", () => {
  it("answers the next matching requests with the injected status, body and headers", async () => {
    const world = createSandboxWorld();
    world.control.injectFault({
      method: "GET",
      pathPrefix: "/api/v1/wallet",
      times: 2,
      status: 503,
      body: { title: "down" },
      headers: { "Retry-After": "7" },
    });
    expect((await world.call("GET", "/api/v1/orders")).status).toBe(200); // other path
    expect((await world.call("POST", "/api/v1/wallet/balance")).status).toBe(404); // other method: real handler
    for (let i = 0; i < 2; i++) {
      const res = await world.call("GET", "/api/v1/wallet/balance");
      expect(res.status).toBe(503);
      expect(res.body).toEqual({ title: "down" });
      expect(res.headers.get("retry-after")).toBe("7");
    }
    expect((await world.call("GET", "/api/v1/wallet/balance")).status).toBe(200);
  });

  it("serves a raw non-JSON body, matches prefixes relative to /api/v1, and is cleared by clearFaults", async () => {
    const world = createSandboxWorld();
    world.control.injectFault({
      pathPrefix: "/orders",
      status: 502,
      rawBody: "<html>Bad gateway</html>",
      headers: { "Content-Type": "text/html" },
    });
    const res = await world.call("GET", "/api/v1/orders");
    expect(res.status).toBe(502);
    expect(res.text).toBe("<html>Bad gateway</html>");
    expect(res.headers.get("content-type")).toBe("text/html");
    world.control.injectFault({ status: 500, times: 5 });
    world.control.clearFaults();
    expect((await world.call("GET", "/api/v1/orders")).status).toBe(200);
  });

  it("applies before authentication, so even an unauthenticated request gets the fault", async () => {
    const world = createSandboxWorld();
    world.control.injectFault({ status: 429, body: { title: "slow down" } });
    expect((await world.call("GET", "/api/v1/wallet/balance", { key: null })).status).toBe(429);
  });

  it("delays then runs the real handler when only delayMs is given", async () => {
    const world = createSandboxWorld();
    world.control.injectFault({ pathPrefix: "/api/v1/wallet/balance", delayMs: 400 });
    const started = Date.now();
    const finished: string[] = [];
    const delayed = world
      .call("GET", "/api/v1/wallet/balance")
      .then((res) => (finished.push("delayed"), { res, elapsed: Date.now() - started }));
    // The fault was used up by the first request: a second one sent after it overtakes it.
    const again = world.call("GET", "/api/v1/wallet/balance").then((res) => (finished.push("again"), res));
    const [{ res, elapsed }, second] = await Promise.all([delayed, again]);
    expect(elapsed).toBeGreaterThanOrEqual(390);
    expect(res.status).toBe(200);
    expect(res.body.trx).toBe("1000");
    expect(second.status).toBe(200);
    expect(finished).toEqual(["again", "delayed"]);
  });

  it("does not touch the control routes", async () => {
    const world = createSandboxWorld();
    world.control.injectFault({ status: 500, times: 3 });
    const res = await world.sandbox.app.request("/_sandbox/demo");
    expect(res.status).toBe(200);
  });
});
