/**
 * Contract suite: every client function against the sandbox marketplace over real HTTP,
 * including each error the spec names, both int64 forms, every error-code placement, and the
 * retry and timeout rules.
 */
import { randomUUID } from "node:crypto";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { MarketplaceError, compareTrx, toBigInt, trxToSun } from "#src/marketplace/index";
import type { MarketplaceClient } from "#src/marketplace/index";
import { ADDRESSES, startSandboxWorld } from "./sandbox-world";
import type { SandboxWorld } from "./sandbox-world";

let world: SandboxWorld;

beforeAll(async () => {
  world = await startSandboxWorld();
});
afterAll(async () => {
  await world.stop();
});
afterEach(async () => {
  world.control.clearFaults();
  world.control.setInt64Format({ format: "number" });
  world.control.setErrorCodePlacement({ placement: "type-uri" });
});

async function failure(promise: Promise<unknown>): Promise<MarketplaceError> {
  const error = await promise.then(
    () => undefined,
    (caught: unknown) => caught,
  );
  expect(error).toBeInstanceOf(MarketplaceError);
  return error as MarketplaceError;
}

/** The smallest order the options allow, so balances stay easy to reason about. */
async function smallestOrder(marketplace: MarketplaceClient) {
  const options = await marketplace.orderOptions();
  const energy = options.resources.find((entry) => entry.resource === "energy") ?? options.resources[0]!;
  return { resource: energy.resource, volume: energy.minVolume, duration: energy.durations[0]! };
}

async function trxCharges(accountId: string): Promise<number> {
  // Order charges are the debits that are not automation charges; refunds are credits.
  const ledger = world.control.ledger(accountId);
  return ledger.filter(
    (entry) => entry.currency === "TRX" && entry.type !== "AutomationCharge" && trxToSun(entry.amount) < 0n,
  ).length;
}

describe("orders", () => {
  it("reads options, previews, places, follows and lists an order", async () => {
    const account = await world.account({ trx: "1000" });
    const { marketplace } = world.client(account.purchase);
    const order = await smallestOrder(marketplace);

    const preview = await marketplace.previewOrder({
      volume: order.volume,
      days: "1",
      resource: order.resource,
      target: ADDRESSES[0],
    });
    expect(compareTrx(preview.priceTrx, "0")).toBe(1);

    const placed = await marketplace.createOrder(
      { resource: order.resource, targetAddress: ADDRESSES[0], volume: order.volume, duration: order.duration },
      randomUUID(),
    );
    expect(placed).toMatchObject({
      status: "Created",
      targetAddress: ADDRESSES[0],
      volume: order.volume,
      resource: order.resource,
    });

    world.control.settleNow({ accountId: account.accountId });
    const settled = await marketplace.getOrder(placed.id);
    expect(settled.status).toBe("Filled");

    const page = await marketplace.listOrders({ page: 1, pageSize: 10 });
    expect(page).toMatchObject({ page: 1, pageSize: 10, total: 1 });
    expect(page.items[0]?.id).toBe(placed.id);

    const stats = await marketplace.orderStats();
    expect(stats.totalOrders).toBe(1);
    expect(toBigInt(stats.energyDeliveredThisMonth)).toBeGreaterThanOrEqual(
      order.resource === "energy" ? toBigInt(order.volume) : 0n,
    );
  });

  it("quotes publicly, without a key", async () => {
    const order = await smallestOrder(world.client(world.sandbox.demo.apiKey).marketplace);
    const { marketplace } = world.client(undefined);
    const quote = await marketplace.quote({ resource: order.resource, duration: order.duration, volume: order.volume });
    expect(compareTrx(quote.priceTrx, "0")).toBe(1);
  });

  it("charges once when an order is sent twice with the same Idempotency-Key", async () => {
    const account = await world.account({ trx: "1000" });
    const { marketplace } = world.client(account.purchase);
    const order = await smallestOrder(marketplace);
    const key = randomUUID();
    const body = { targetAddress: ADDRESSES[1], volume: order.volume, duration: order.duration };
    const first = await marketplace.createOrder(body, key);
    const second = await marketplace.createOrder(body, key);
    expect(second.id).toBe(first.id);
    expect(await trxCharges(account.accountId)).toBe(1);
  });

  it("retries a timed-out order with the same key and is charged once", async () => {
    const account = await world.account({ trx: "1000" });
    const { marketplace, calls } = world.client(account.purchase, { timeoutMs: 200 });
    const order = await smallestOrder(marketplace);
    world.control.injectFault({ method: "POST", pathPrefix: "/api/v1/orders", times: 1, delayMs: 600 });
    const placed = await marketplace.createOrder(
      { targetAddress: ADDRESSES[2], volume: order.volume, duration: order.duration },
      randomUUID(),
    );
    expect(calls.filter((call) => call.route === "/api/v1/orders").map((call) => call.outcome)).toStrictEqual([
      "timeout",
      "ok",
    ]);
    expect(placed.status).toBe("Created");
    // Give a delayed first attempt time to land before counting.
    await new Promise((resolve) => setTimeout(resolve, 700));
    expect(await trxCharges(account.accountId)).toBe(1);
    expect((await marketplace.listOrders()).total).toBe(1);
  });

  it("retries an order after a 503 with the same key", async () => {
    const account = await world.account({ trx: "1000" });
    const { marketplace, calls } = world.client(account.purchase);
    const order = await smallestOrder(marketplace);
    world.control.injectFault({ method: "POST", pathPrefix: "/api/v1/orders", times: 1, status: 503 });
    await marketplace.createOrder(
      { targetAddress: ADDRESSES[0], volume: order.volume, duration: order.duration },
      randomUUID(),
    );
    expect(calls.filter((call) => call.route === "/api/v1/orders").map((call) => call.status)).toStrictEqual([
      503, 200,
    ]);
    expect(await trxCharges(account.accountId)).toBe(1);
  });

  it("treats a provider failure (502) as final, with the balance refunded", async () => {
    const account = await world.account({ trx: "1000" });
    const { marketplace, calls } = world.client(account.purchase);
    const order = await smallestOrder(marketplace);
    const before = await marketplace.balance();
    world.control.failNextOrder({ accountId: account.accountId, mode: "sync" });
    const error = await failure(
      marketplace.createOrder(
        { targetAddress: ADDRESSES[0], volume: order.volume, duration: order.duration },
        randomUUID(),
      ),
    );
    expect(error).toMatchObject({ kind: "provider_failed", status: 502, method: "POST", path: "/api/v1/orders" });
    expect(calls.filter((call) => call.route === "/api/v1/orders")).toHaveLength(1);
    expect((await marketplace.balance()).trx).toBe(before.trx);
  });
});

describe("automations", () => {
  it("creates, previews, pauses, resumes, cancels, fires and lists rules", async () => {
    const account = await world.account({ trx: "5000" });
    const { marketplace } = world.client(account.purchase);
    const options = await marketplace.automationOptions();
    expect(options.durations.length).toBeGreaterThan(0);

    const preview = await marketplace.previewAutomation({ volume: options.minVolume, duration: options.durations[0]! });
    expect(compareTrx(preview.priceTrx, "0")).toBe(1);
    await marketplace.previewAutomation({ volume: options.minVolume, duration: options.durations[0]!, type: "smart" });

    const refill = await marketplace.createRefill({
      targetAddress: ADDRESSES[0],
      minimal: options.minVolume,
      volume: options.minVolume,
      duration: options.durations[0]!,
      autoResume: false,
    });
    expect(refill).toMatchObject({
      minimal: options.minVolume,
      volume: options.minVolume,
      autoResume: false,
      resource: "energy",
    });
    const renewal = await marketplace.createRenewal({
      targetAddress: ADDRESSES[1],
      volume: options.renewalMinVolume,
      autoResume: true,
    });
    expect(renewal).toMatchObject({ volume: options.renewalMinVolume, autoResume: true });
    const smart = await marketplace.createSmart({ targetAddress: ADDRESSES[2] });

    const paused = await marketplace.pauseAutomation(refill.id);
    expect(paused.pauseReason).not.toBeNull();
    const resumed = await marketplace.resumeAutomation(refill.id);
    expect(resumed.status).toBe(refill.status);
    const cancelled = await marketplace.cancelAutomation(smart.id);
    expect(cancelled.status).not.toBe(smart.status);

    world.control.fireRule({ ruleId: renewal.id });
    const fires = await marketplace.automationFires(renewal.id);
    expect(fires).toHaveLength(1);
    expect(fires[0]?.volume).toBe(options.renewalMinVolume);

    const rules = await marketplace.listAutomations();
    expect(rules.map((rule) => rule.id).sort()).toStrictEqual([refill.id, renewal.id, smart.id].sort());
  });

  it("never retries a rule creation", async () => {
    const account = await world.account({ trx: "5000" });
    const { marketplace, calls } = world.client(account.purchase);
    const options = await marketplace.automationOptions();
    world.control.injectFault({ method: "POST", pathPrefix: "/api/v1/automations", times: 1, status: 503 });
    const error = await failure(
      marketplace.createRefill({
        targetAddress: ADDRESSES[0],
        minimal: options.minVolume,
        volume: options.minVolume,
        duration: options.durations[0]!,
      }),
    );
    expect(error).toMatchObject({ kind: "server", status: 503 });
    expect(calls.filter((call) => call.method === "POST")).toHaveLength(1);
    expect(await marketplace.listAutomations()).toHaveLength(0);
  });

  it("never retries a timed-out rule action", async () => {
    const account = await world.account({ trx: "5000" });
    // The rule is made with the usual timeout (a loaded machine can take over 100 ms to answer);
    // only the pause meets a short one, held well past it.
    const smart = await world.client(account.purchase).marketplace.createSmart({ targetAddress: ADDRESSES[0] });
    const { marketplace, calls } = world.client(account.purchase, { timeoutMs: 300 });
    world.control.injectFault({
      method: "POST",
      pathPrefix: `/api/v1/automations/${smart.id}/pause`,
      times: 1,
      delayMs: 2_000,
    });
    expect(await failure(marketplace.pauseAutomation(smart.id))).toMatchObject({ kind: "timeout" });
    expect(calls.filter((call) => call.route === "/api/v1/automations/{id}/pause")).toHaveLength(1);
  });
});

describe("wallet", () => {
  it("reads balance, a stable deposit address and the ledger with filters", async () => {
    const account = await world.account({ trx: "10", usdt: "0" });
    const { marketplace } = world.client(account.read);
    expect(trxToSun((await marketplace.balance()).trx!)).toBe(10_000_000n);

    const address = await marketplace.depositAddress();
    expect(address.address).not.toBe("");
    expect((await marketplace.depositAddress()).address).toBe(address.address);

    world.control.creditDeposit({ accountId: account.accountId, currency: "USDT-TRC20", amount: "25" });
    const balance = await marketplace.balance();
    expect(compareTrx(balance.usdtTrc20!, "0")).toBe(1);

    const ledger = await marketplace.transactions({ page: 1, pageSize: 5, type: "Deposit", currency: "USDT-TRC20" });
    expect(ledger).toMatchObject({ page: 1, pageSize: 5 });
    expect(ledger.total).toBeGreaterThanOrEqual(1);
    expect(ledger.items.every((entry) => entry.type === "Deposit" && entry.currency === "USDT-TRC20")).toBe(true);
    expect((await marketplace.transactions()).items.length).toBeGreaterThanOrEqual(1);
  });
});

describe("notifications", () => {
  it("lists, marks one read, then all read", async () => {
    const account = await world.account({ trx: "10" });
    const { marketplace } = world.client(account.purchase);
    world.control.addNotification({ accountId: account.accountId, title: "First", body: "one" });
    world.control.addNotification({ accountId: account.accountId, title: "Second", body: "two" });
    const page = await marketplace.notifications();
    expect(page).toMatchObject({ page: 1, pageSize: 20, total: 2, unread: 2 });

    await marketplace.readNotification(page.items[0]!.id);
    expect((await marketplace.notifications({ page: 1 })).unread).toBe(1);
    await marketplace.readAllNotifications();
    const after = await marketplace.notifications();
    expect(after.unread).toBe(0);
    expect(after.items.every((notification) => notification.read)).toBe(true);
  });
});

describe("errors", () => {
  it("400 on a bad quote", async () => {
    const { marketplace } = world.client(undefined);
    expect(await failure(marketplace.quote({ resource: "plutonium", duration: "1h", volume: 65000 }))).toMatchObject({
      kind: "bad_request",
      status: 400,
      path: "/api/v1/pricing/quote",
    });
  });

  it("401 on an unknown key", async () => {
    const { marketplace } = world.client("not-a-real-key-000000000000");
    expect(await failure(marketplace.balance())).toMatchObject({ kind: "unauthorized", status: 401 });
  });

  it("402 wallet.insufficient_balance on an order without TRX", async () => {
    const account = await world.account({ trx: "0" });
    const { marketplace } = world.client(account.purchase);
    const order = await smallestOrder(marketplace);
    expect(
      await failure(
        marketplace.createOrder(
          { targetAddress: ADDRESSES[0], volume: order.volume, duration: order.duration },
          randomUUID(),
        ),
      ),
    ).toMatchObject({
      kind: "insufficient_balance",
      status: 402,
      code: "wallet.insufficient_balance",
    });
    expect(await failure(marketplace.createSmart({ targetAddress: ADDRESSES[0] }))).toMatchObject({
      kind: "insufficient_balance",
      code: "wallet.insufficient_balance",
    });
  });

  it("403 api_key.insufficient_scope for a read key that spends", async () => {
    const account = await world.account({ trx: "1000" });
    const { marketplace } = world.client(account.read);
    expect(await failure(marketplace.createSmart({ targetAddress: ADDRESSES[0] }))).toMatchObject({
      kind: "insufficient_scope",
      status: 403,
      code: "api_key.insufficient_scope",
    });
  });

  it("403 api_key.spend_limit_exceeded past the key's daily limit", async () => {
    const account = await world.account({ trx: "1000" });
    const { marketplace } = world.client(await account.key("purchase", "0.000001"));
    const order = await smallestOrder(marketplace);
    expect(
      await failure(
        marketplace.createOrder(
          { targetAddress: ADDRESSES[0], volume: order.volume, duration: order.duration },
          randomUUID(),
        ),
      ),
    ).toMatchObject({
      kind: "spend_limit",
      status: 403,
      code: "api_key.spend_limit_exceeded",
    });
  });

  it("404 for an unknown order", async () => {
    const account = await world.account();
    const { marketplace } = world.client(account.read);
    expect(await failure(marketplace.getOrder(randomUUID()))).toMatchObject({ kind: "not_found", status: 404 });
  });

  it("404 for another account's order", async () => {
    const owner = await world.account({ trx: "1000" });
    const stranger = await world.account();
    const { marketplace } = world.client(owner.purchase);
    const order = await smallestOrder(marketplace);
    const placed = await marketplace.createOrder(
      { targetAddress: ADDRESSES[0], volume: order.volume, duration: order.duration },
      randomUUID(),
    );
    expect(await failure(world.client(stranger.read).marketplace.getOrder(placed.id))).toMatchObject({
      kind: "not_found",
    });
  });

  it("409 for pausing a rule that is not active, 422 for a volume out of bounds", async () => {
    const account = await world.account({ trx: "5000" });
    const { marketplace } = world.client(account.purchase);
    const smart = await marketplace.createSmart({ targetAddress: ADDRESSES[0] });
    await marketplace.pauseAutomation(smart.id);
    expect(await failure(marketplace.pauseAutomation(smart.id))).toMatchObject({
      kind: "conflict",
      status: 409,
      path: `/api/v1/automations/${smart.id}/pause`,
    });
    const options = await marketplace.orderOptions();
    const energy = options.resources[0]!;
    const tooMuch = (toBigInt(energy.maxVolume) + 1n).toString();
    expect(
      await failure(
        marketplace.createOrder(
          { resource: energy.resource, targetAddress: ADDRESSES[0], volume: tooMuch, duration: energy.durations[0]! },
          randomUUID(),
        ),
      ),
    ).toMatchObject({
      kind: "unprocessable",
      status: 422,
    });
  });

  it.each([
    [409, "conflict"],
    [422, "unprocessable"],
    [418, "http"],
  ] as const)("%i is %s and not retried", async (status, kind) => {
    const account = await world.account();
    const { marketplace, calls } = world.client(account.read);
    world.control.injectFault({
      pathPrefix: "/api/v1/wallet/balance",
      times: 1,
      status,
      body: { title: "Nope", detail: "injected" },
    });
    expect(await failure(marketplace.balance())).toMatchObject({ kind, status, detail: "injected" });
    expect(calls).toHaveLength(1);
  });

  it("429 with Retry-After waits as told, then succeeds", async () => {
    const account = await world.account();
    const { marketplace, sleeps, calls } = world.client(account.read);
    world.control.injectFault({
      pathPrefix: "/api/v1/wallet/balance",
      times: 1,
      status: 429,
      headers: { "Retry-After": "2" },
    });
    await marketplace.balance();
    expect(sleeps).toStrictEqual([2000]);
    expect(calls.map((call) => call.outcome)).toStrictEqual(["rate_limited", "ok"]);
  });

  it("429 with a Retry-After beyond 30 s goes back to the caller", async () => {
    const account = await world.account();
    const { marketplace, sleeps } = world.client(account.read);
    world.control.injectFault({
      pathPrefix: "/api/v1/wallet/balance",
      times: 1,
      status: 429,
      headers: { "Retry-After": "90" },
    });
    expect(await failure(marketplace.balance())).toMatchObject({
      kind: "rate_limited",
      status: 429,
      retryAfterMs: 90_000,
    });
    expect(sleeps).toStrictEqual([]);
  });

  it("503 is retried with backoff to success", async () => {
    const account = await world.account();
    const { marketplace, sleeps, calls } = world.client(account.read, { random: () => 1 - Number.EPSILON });
    world.control.injectFault({ pathPrefix: "/api/v1/orders/stats", times: 2, status: 503 });
    await marketplace.orderStats();
    expect(calls.map((call) => call.status)).toStrictEqual([503, 503, 200]);
    expect(sleeps).toHaveLength(2);
    expect(sleeps[1]!).toBeGreaterThan(sleeps[0]!);
  });

  it("503 that persists gives up after maxRetries", async () => {
    const account = await world.account();
    const { marketplace, calls } = world.client(account.read, { maxRetries: 2 });
    world.control.injectFault({ pathPrefix: "/api/v1/orders/stats", times: 10, status: 503 });
    expect(await failure(marketplace.orderStats())).toMatchObject({ kind: "server", status: 503 });
    expect(calls).toHaveLength(3);
  });

  it("times out a slow answer and retries a read", async () => {
    const account = await world.account();
    const { marketplace, calls } = world.client(account.read, { timeoutMs: 150 });
    world.control.injectFault({ pathPrefix: "/api/v1/wallet/balance", times: 1, delayMs: 500 });
    await marketplace.balance();
    expect(calls.map((call) => call.outcome)).toStrictEqual(["timeout", "ok"]);
  });

  it("a timeout with no retries left is a timeout error", async () => {
    const account = await world.account();
    const { marketplace } = world.client(account.read, { timeoutMs: 100, maxRetries: 0 });
    world.control.injectFault({ pathPrefix: "/api/v1/wallet/balance", times: 1, delayMs: 400 });
    expect(await failure(marketplace.balance())).toMatchObject({ kind: "timeout", path: "/api/v1/wallet/balance" });
  });

  it("a non-JSON body is invalid_response", async () => {
    const account = await world.account();
    const { marketplace } = world.client(account.read);
    world.control.injectFault({
      pathPrefix: "/api/v1/wallet/balance",
      times: 1,
      status: 200,
      rawBody: "<html>maintenance</html>",
    });
    expect(await failure(marketplace.balance())).toMatchObject({
      kind: "invalid_response",
      path: "/api/v1/wallet/balance",
      status: 200,
    });
  });

  it("a schema-violating body is invalid_response naming the fields", async () => {
    const account = await world.account();
    const { marketplace } = world.client(account.read);
    // (Absent, either would do: the spec marks neither required. Present, each must be a decimal string.)
    world.control.injectFault({
      pathPrefix: "/api/v1/wallet/balance",
      times: 1,
      status: 200,
      body: { trx: 12.5, usdtTrc20: false },
    });
    const error = await failure(marketplace.balance());
    expect(error.kind).toBe("invalid_response");
    expect(error.issues?.map((issue) => issue.path).sort()).toStrictEqual(["trx", "usdtTrc20"]);
    expect(error.message).toContain("/api/v1/wallet/balance");
  });

  it("a 502 on a read is a server error, retried (only the order POST reads it as the provider's final failure)", async () => {
    const account = await world.account();
    const { marketplace, calls } = world.client(account.read);
    world.control.injectFault({ pathPrefix: "/api/v1/wallet/balance", times: 1, status: 502 });
    await marketplace.balance();
    expect(calls.map((call) => call.outcome)).toStrictEqual(["server", "ok"]);
  });
});

describe("error code placements", () => {
  it.each(["code", "type", "type-uri", "title", "detail"] as const)("finds the code in %s", async (placement) => {
    world.control.setErrorCodePlacement({ placement });
    const broke = await world.account({ trx: "0" });
    const rich = await world.account({ trx: "1000" });
    const order = await smallestOrder(world.client(rich.read).marketplace);
    const body = { targetAddress: ADDRESSES[0], volume: order.volume, duration: order.duration };
    expect(await failure(world.client(broke.purchase).marketplace.createOrder(body, randomUUID()))).toMatchObject({
      kind: "insufficient_balance",
      code: "wallet.insufficient_balance",
    });
    expect(await failure(world.client(rich.read).marketplace.createOrder(body, randomUUID()))).toMatchObject({
      kind: "insufficient_scope",
      code: "api_key.insufficient_scope",
    });
    expect(
      await failure(world.client(await rich.key("purchase", "0.000001")).marketplace.createOrder(body, randomUUID())),
    ).toMatchObject({
      kind: "spend_limit",
      code: "api_key.spend_limit_exceeded",
    });
  });
});

describe("int64 on the wire", () => {
  it.each(["number", "string"] as const)("reads int64 sent as a %s into the same canonical strings", async (format) => {
    world.control.setInt64Format({ format });
    const account = await world.account({ trx: "5000" });
    const { marketplace } = world.client(account.purchase);
    const wire = (await (
      await fetch(`${world.baseUrl}/api/v1/orders/options`, { headers: { "X-Api-Key": account.read } })
    ).json()) as { resources: { minVolume: unknown }[] };
    expect(typeof wire.resources[0]?.minVolume).toBe(format);
    const options = await marketplace.orderOptions();
    const automation = await marketplace.automationOptions();
    for (const value of [
      ...options.resources.flatMap((entry) => [entry.unit, entry.minVolume, entry.maxVolume]),
      automation.energyUnit,
      automation.renewalMaxVolume,
    ]) {
      expect(value).toMatch(/^-?(?:0|[1-9]\d*)$/);
    }
    const order = await smallestOrder(marketplace);
    const placed = await marketplace.createOrder(
      { targetAddress: ADDRESSES[0], volume: order.volume, duration: order.duration },
      randomUUID(),
    );
    expect(placed.volume).toBe(order.volume);
    const rule = await marketplace.createRefill({
      targetAddress: ADDRESSES[1],
      minimal: automation.minVolume,
      volume: automation.minVolume,
      duration: automation.durations[0]!,
    });
    expect(rule.minimal).toBe(automation.minVolume);
    expect((await marketplace.orderStats()).energyDeliveredThisMonth).toMatch(/^\d+$/);
  });

  it("accepts int64 requests given as string, number and bigint", async () => {
    const account = await world.account({ trx: "5000" });
    const { marketplace } = world.client(account.purchase);
    const order = await smallestOrder(marketplace);
    for (const volume of [order.volume, Number(order.volume), BigInt(order.volume)]) {
      const placed = await marketplace.createOrder(
        { targetAddress: ADDRESSES[2], volume, duration: order.duration },
        randomUUID(),
      );
      expect(placed.volume).toBe(order.volume);
    }
  });
});

describe("the key in errors", () => {
  it("never appears in a real error from the sandbox", async () => {
    const account = await world.account({ trx: "0" });
    const { marketplace } = world.client(account.purchase);
    const order = await smallestOrder(marketplace);
    const error = await failure(
      marketplace.createOrder(
        { targetAddress: ADDRESSES[0], volume: order.volume, duration: order.duration },
        randomUUID(),
      ),
    );
    const { inspect } = await import("node:util");
    for (const text of [error.message, JSON.stringify(error), inspect(error, { showHidden: true, depth: 10 })])
      expect(text).not.toContain(account.purchase);
  });
});
