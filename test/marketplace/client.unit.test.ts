import { inspect } from "node:util";
import { describe, expect, it } from "vitest";
import { MarketplaceError, createMarketplaceClient } from "#src/marketplace/index";
import type { MarketplaceCallInfo, MarketplaceClientOptions } from "#src/marketplace/index";
import { createFakeFetch, json } from "./fake-fetch";
import type { Script } from "./fake-fetch";

const KEY = "mk_live_SECRET_0123456789abcdef";
const ORDER = {
  id: "5f0c6f8e-2b7e-4c1b-9a4e-0a1b2c3d4e5f",
  resource: "energy",
  targetAddress: "TNPeeaaFB7K9cmo4uQpcU32zGK8G1NYqeL",
  volume: "65000",
  duration: "1h",
  priceTrx: "3.25",
  activationTrx: "0",
  totalTrx: "3.25",
  status: "Created",
  txId: null,
  createdAt: "2025-01-01T00:00:00Z",
};

function client(scripts: Script[], options: Partial<MarketplaceClientOptions> = {}) {
  const fake = createFakeFetch(...scripts);
  const sleeps: number[] = [];
  const calls: MarketplaceCallInfo[] = [];
  const marketplace = createMarketplaceClient({
    baseUrl: "https://market.example/",
    apiKey: () => KEY,
    fetch: fake.fetch,
    sleep: async (ms) => void sleeps.push(ms),
    random: () => 0.5,
    onCall: (info) => calls.push(info),
    ...options,
  });
  return { marketplace, requests: fake.requests, sleeps, calls };
}

async function failure(promise: Promise<unknown>): Promise<MarketplaceError> {
  const error = await promise.then(
    () => undefined,
    (caught: unknown) => caught,
  );
  expect(error).toBeInstanceOf(MarketplaceError);
  return error as MarketplaceError;
}

describe("requests", () => {
  it("sends the key, Accept and a JSON body with int64 as integers when safe", async () => {
    const { marketplace, requests } = client([() => json(ORDER)]);
    const order = await marketplace.createOrder(
      { targetAddress: ORDER.targetAddress, volume: "65000", duration: "1h" },
      "idem-1",
    );
    expect(order.volume).toBe("65000");
    const [request] = requests;
    expect(request?.url).toBe("https://market.example/api/v1/orders");
    expect(request?.headers.get("X-Api-Key")).toBe(KEY);
    expect(request?.headers.get("Accept")).toBe("application/json");
    expect(request?.headers.get("Content-Type")).toBe("application/json");
    expect(request?.headers.get("Idempotency-Key")).toBe("idem-1");
    expect(JSON.parse(request?.body ?? "")).toStrictEqual({
      targetAddress: ORDER.targetAddress,
      volume: 65000,
      duration: "1h",
    });
  });

  it("sends an unsafe int64 as a string", async () => {
    const { marketplace, requests } = client([() => json({ ...ORDER, volume: "9007199254740993" })]);
    const order = await marketplace.createOrder(
      { resource: null, targetAddress: ORDER.targetAddress, volume: 9007199254740993n, duration: "1h" },
      "idem-2",
    );
    expect(order.volume).toBe("9007199254740993");
    expect(requests[0]?.body).toBe(
      `{"resource":null,"targetAddress":"${ORDER.targetAddress}","volume":"9007199254740993","duration":"1h"}`,
    );
  });

  it("does not send the key with the public quote", async () => {
    const { marketplace, requests } = client([() => json({ priceTrx: "1.5" })]);
    await marketplace.quote({ resource: "energy", duration: "1h", volume: 65000 });
    expect(requests[0]?.headers.has("X-Api-Key")).toBe(false);
    expect(requests[0]?.url).toBe(
      "https://market.example/api/v1/pricing/quote?resource=energy&duration=1h&volume=65000",
    );
  });

  it("works without a key for the quote and refuses other calls before sending", async () => {
    const { marketplace, requests } = client([() => json({ priceTrx: "1.5" })], { apiKey: undefined });
    await expect(marketplace.quote({ resource: "energy", duration: "1h", volume: 65000 })).resolves.toStrictEqual({
      priceTrx: "1.5",
    });
    expect(await failure(marketplace.balance())).toMatchObject({ kind: "unauthorized", status: undefined });
    expect(requests).toHaveLength(1);
  });

  it("percent-encodes ids and refuses an empty one", async () => {
    const { marketplace, requests } = client([() => json(ORDER)]);
    await marketplace.getOrder("a/b?c");
    expect(requests[0]?.url).toBe("https://market.example/api/v1/orders/a%2Fb%3Fc");
    await expect(marketplace.getOrder("")).rejects.toThrow(TypeError);
    await expect(marketplace.createOrder({ targetAddress: "T", volume: 1, duration: "1h" }, "")).rejects.toThrow(
      /idempotencyKey/,
    );
    await expect(marketplace.createOrder({ targetAddress: "T", volume: 1.5, duration: "1h" }, "k")).rejects.toThrow(
      /volume must be an int64/,
    );
  });

  it("reports every attempt to onCall with the templated route and no key", async () => {
    const { marketplace, calls } = client([() => json({}, 503), () => json(ORDER)]);
    await marketplace.getOrder(ORDER.id);
    expect(calls).toMatchObject([
      { method: "GET", route: "/api/v1/orders/{id}", outcome: "server", status: 503, attempt: 1 },
      { method: "GET", route: "/api/v1/orders/{id}", outcome: "ok", status: 200, attempt: 2 },
    ]);
    expect(JSON.stringify(calls)).not.toContain(KEY);
  });
});

describe("retries", () => {
  it("retries a read on network errors and 5xx with growing jittered backoff", async () => {
    const { marketplace, requests, sleeps } = client([
      () => new TypeError("fetch failed"),
      () => json({}, 500),
      () => json({}, 502),
      () => json({ usdtTrc20: "0", trx: "1" }),
    ]);
    await expect(marketplace.balance()).resolves.toStrictEqual({ usdtTrc20: "0", trx: "1" });
    expect(requests).toHaveLength(4);
    expect(sleeps).toStrictEqual([150, 300, 600]);
  });

  it("gives up after maxRetries and throws the last error", async () => {
    const { marketplace, requests } = client([() => json({ title: "down" }, 503)], { maxRetries: 2 });
    expect(await failure(marketplace.balance())).toMatchObject({ kind: "server", status: 503, detail: "down" });
    expect(requests).toHaveLength(3);
  });

  it("caps one backoff step at 5 s", async () => {
    const { marketplace, sleeps } = client([() => json({}, 500)], {
      maxRetries: 6,
      backoffBaseMs: 1000,
      random: () => 0.999999,
    });
    await failure(marketplace.balance());
    expect(Math.max(...sleeps)).toBeLessThan(5000);
    expect(sleeps.at(-1)).toBeGreaterThan(4990);
  });

  it.each([
    ["seconds", "2", 2000],
    ["an HTTP date", new Date(Date.UTC(2025, 0, 1, 0, 0, 7)).toUTCString(), 7000],
  ])("honours Retry-After as %s", async (_, header, wait) => {
    const { marketplace, sleeps } = client(
      [() => json({}, 429, { "Retry-After": header }), () => json({ usdtTrc20: "0", trx: "1" })],
      {
        now: () => Date.UTC(2025, 0, 1),
      },
    );
    await marketplace.balance();
    expect(sleeps).toStrictEqual([wait]);
  });

  it("does not wait for a Retry-After beyond 30 s: the caller gets it", async () => {
    const { marketplace, requests } = client([() => json({}, 429, { "Retry-After": "120" })]);
    expect(await failure(marketplace.balance())).toMatchObject({ kind: "rate_limited", retryAfterMs: 120_000 });
    expect(requests).toHaveLength(1);
  });

  it("waits at most 30 s in all between attempts: a second Retry-After of 30 s goes to the caller", async () => {
    const { marketplace, requests, sleeps } = client([
      () => json({}, 429, { "Retry-After": "20" }),
      () => json({}, 429, { "Retry-After": "20" }),
      () => json({ usdtTrc20: "0", trx: "1" }),
    ]);
    expect(await failure(marketplace.balance())).toMatchObject({ kind: "rate_limited", retryAfterMs: 20_000 });
    expect(sleeps).toStrictEqual([20_000]);
    expect(requests).toHaveLength(2);
  });

  it("retries the order POST with the same key, but not after a 502", async () => {
    const first = client([() => new TypeError("fetch failed"), () => json({}, 503), () => json(ORDER)]);
    await first.marketplace.createOrder(
      { targetAddress: ORDER.targetAddress, volume: 65000, duration: "1h" },
      "idem-3",
    );
    expect(first.requests.map((request) => request.headers.get("Idempotency-Key"))).toStrictEqual([
      "idem-3",
      "idem-3",
      "idem-3",
    ]);
    expect(new Set(first.requests.map((request) => request.body)).size).toBe(1);

    const refunded = client([() => json({ title: "Provider failed" }, 502), () => json(ORDER)]);
    expect(
      await failure(
        refunded.marketplace.createOrder(
          { targetAddress: ORDER.targetAddress, volume: 65000, duration: "1h" },
          "idem-4",
        ),
      ),
    ).toMatchObject({
      kind: "provider_failed",
      status: 502,
    });
    expect(refunded.requests).toHaveLength(1);
  });

  it.each([
    [
      "createRefill",
      (m: ReturnType<typeof createMarketplaceClient>) =>
        m.createRefill({ targetAddress: "T", minimal: 1, volume: 1, duration: "1h" }),
    ],
    ["pauseAutomation", (m: ReturnType<typeof createMarketplaceClient>) => m.pauseAutomation("r1")],
    ["readAllNotifications", (m: ReturnType<typeof createMarketplaceClient>) => m.readAllNotifications()],
  ])("never retries %s", async (_, call) => {
    const { marketplace, requests } = client([() => json({}, 503)]);
    expect(await failure(call(marketplace))).toMatchObject({ kind: "server" });
    expect(requests).toHaveLength(1);
  });

  it("does not retry 4xx or invalid responses", async () => {
    const notFound = client([() => json({}, 404)]);
    await failure(notFound.marketplace.getOrder("x"));
    expect(notFound.requests).toHaveLength(1);
    const garbled = client([() => new Response("<html>", { status: 200 })]);
    expect(await failure(garbled.marketplace.balance())).toMatchObject({
      kind: "invalid_response",
      path: "/api/v1/wallet/balance",
    });
    expect(garbled.requests).toHaveLength(1);
  });

  it("times out a hung attempt", async () => {
    const hangUntilAborted = ((_input: string | URL | Request, init?: RequestInit) =>
      new Promise((_, reject) =>
        init?.signal?.addEventListener("abort", () => reject(new DOMException("aborted", "AbortError"))),
      )) as typeof fetch;
    const { marketplace } = client([], { timeoutMs: 20, maxRetries: 0, fetch: hangUntilAborted });
    expect(await failure(marketplace.balance())).toMatchObject({ kind: "timeout", status: undefined });
  });
});

describe("responses", () => {
  it("reports schema violations with their paths", async () => {
    const { marketplace } = client([() => json({ ...ORDER, volume: 1.5, priceTrx: "cheap" })]);
    const error = await failure(marketplace.getOrder(ORDER.id));
    expect(error.kind).toBe("invalid_response");
    expect(error.path).toBe(`/api/v1/orders/${ORDER.id}`);
    expect(error.issues?.map((issue) => issue.path).sort()).toStrictEqual(["priceTrx", "volume"]);
    expect(error.message).toContain("volume");
  });

  it("accepts 204 for the read marks", async () => {
    const { marketplace } = client([() => new Response(null, { status: 204 })]);
    await expect(marketplace.readNotification("n1")).resolves.toBeUndefined();
  });
});

describe("the API key never leaks through an error", () => {
  type Call = (marketplace: ReturnType<typeof createMarketplaceClient>) => Promise<unknown>;
  const balance: Call = (marketplace) => marketplace.balance();
  const getOrder: Call = (marketplace) => marketplace.getOrder(ORDER.id);

  it.each([
    [
      "an error body echoing the key",
      () => json({ title: "Unauthorized", detail: `key ${KEY} is revoked`, code: KEY }, 401),
      balance,
    ],
    ["a fetch error quoting the key", () => new TypeError(`connect failed for ${KEY}`), balance],
    ["a 200 body echoing the key", () => json({ trx: KEY, usdtTrc20: KEY }), balance],
    ["a 200 body with the key in an int64 field", () => json({ ...ORDER, volume: KEY, createdAt: KEY }), getOrder],
  ] as [string, Script, Call][])("with %s", async (_, script, call) => {
    const { marketplace } = client([script], { maxRetries: 0 });
    const error = await failure(call(marketplace));
    for (const text of [
      error.message,
      error.stack ?? "",
      JSON.stringify(error),
      inspect(error, { depth: 10, showHidden: true }),
      String(error),
    ]) {
      expect(text).not.toContain(KEY);
    }
    expect(Object.keys(error)).not.toContain("headers");
  });

  it("holds the key only behind the getter", () => {
    const { marketplace } = client([]);
    expect(inspect(marketplace, { depth: 10, showHidden: true })).not.toContain(KEY);
  });
});
