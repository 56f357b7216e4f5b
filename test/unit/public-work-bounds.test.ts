import { describe, expect, it } from "vitest";
import { Semaphore } from "#src/bounded/semaphore";
import { SingleFlight } from "#src/bounded/single-flight";
import { createMarketplaceClient, type MarketplaceClient } from "#src/marketplace/index";
import {
  MAX_PUBLIC_QUOTES_IN_FLIGHT,
  withBoundedPublicQuotes,
  type PublicQuoteLimit,
} from "#src/marketplace/public-quotes";
import type { PriceQuote } from "#src/marketplace/schemas/order";
import { inlineVolume, readInlineQuery } from "#src/bot/features/inline/index";
import { SpendingCache, STATS_CACHE_MS, STATS_FRESH_MS } from "#src/reports/cache";
import type { SpendingRecords } from "#src/reports/collect";
import { MAX_CHARTS_RENDERING, renderChartPng } from "#src/reports/render";
import type { TopLevelSpec } from "vega-lite";
import { createFakeFetch, json } from "../marketplace/fake-fetch";

/** A promise with its resolve at hand. */
function deferred<T>() {
  let resolve!: (value: T) => void;
  const promise = new Promise<T>((done) => (resolve = done));
  return { promise, resolve };
}

const tick = () => new Promise((resolve) => setImmediate(resolve));

describe("Semaphore: at most `limit` at once, the rest in arrival order", () => {
  it("holds the third task until a slot frees, says when one waits, and a waiter that gives up leaves the queue", async () => {
    const slots = new Semaphore(2);
    const gates = [deferred<void>(), deferred<void>(), deferred<void>()];
    const started: number[] = [];
    let waits = 0;
    const onWait = () => (waits += 1);
    const runs = gates.map((gate, index) => slots.run(async () => (started.push(index), gate.promise), { onWait }));
    const leaving = new AbortController();
    const gaveUp = slots.run(async () => started.push(99), { signal: leaving.signal, onWait });
    await tick();
    expect(started).toEqual([0, 1]);
    expect(waits).toBe(2);
    expect(slots.waiting).toBe(2);
    leaving.abort(new Error("no longer wanted"));
    await expect(gaveUp).rejects.toThrow("no longer wanted");
    expect(slots.waiting).toBe(1);
    gates[1]!.resolve();
    await runs[1];
    await tick();
    expect(started).toEqual([0, 1, 2]);
    gates[0]!.resolve();
    gates[2]!.resolve();
    await Promise.all(runs);
    expect([slots.active, slots.waiting]).toEqual([0, 0]);
    expect(started).not.toContain(99);
  });
});

describe("SingleFlight: one run per key while it is in flight", () => {
  it("shares the run, frees the key once it settles, and cancels it only when every caller gave up", async () => {
    const flights = new SingleFlight<string, string>();
    const signals: AbortSignal[] = [];
    const gate = deferred<string>();
    let runs = 0;
    let shared = 0;
    const work = (signal: AbortSignal) => {
      runs += 1;
      signals.push(signal);
      return gate.promise;
    };
    const first = new AbortController();
    const second = new AbortController();
    const a = flights.run("65000", work, { signal: first.signal, onShared: () => (shared += 1) });
    const b = flights.run("65000", work, { signal: second.signal, onShared: () => (shared += 1) });
    const other = flights.run("131000", async () => "other");
    await tick();
    expect([runs, shared]).toEqual([1, 1]);
    first.abort(new Error("past its deadline"));
    await expect(a).rejects.toThrow("past its deadline");
    expect(signals[0]!.aborted).toBe(false);
    second.abort(new Error("past its deadline too"));
    await expect(b).rejects.toThrow("past its deadline too");
    expect(signals[0]!.aborted).toBe(true);
    // A new caller starts afresh rather than joining the cancelled run.
    const fresh = deferred<string>();
    const c = flights.run("65000", () => fresh.promise);
    const d = flights.run("65000", work);
    fresh.resolve("4.225");
    gate.resolve("stale");
    expect(await Promise.all([c, d, other])).toEqual(["4.225", "4.225", "other"]);
    expect(flights.size).toBe(0);
  });
});

function scriptedClient(
  answers: Map<string, ReturnType<typeof deferred<PriceQuote>>>,
  seen: Array<{ key: string; signal?: AbortSignal }>,
): MarketplaceClient {
  return {
    quote: (query: { resource: string; duration: string; volume: unknown }, options: { signal?: AbortSignal } = {}) => {
      const key = `${query.resource}:${String(query.volume)}:${query.duration}`;
      seen.push({ key, ...(options.signal ? { signal: options.signal } : {}) });
      let answer = answers.get(key);
      if (!answer) answers.set(key, (answer = deferred<PriceQuote>()));
      return answer.promise;
    },
  } as unknown as MarketplaceClient;
}

describe("the bounded public quote path", () => {
  it("shares a rent's call across clients and volume spellings, caps the calls in flight, and says when each bound bites", async () => {
    const answers = new Map<string, ReturnType<typeof deferred<PriceQuote>>>();
    const seen: Array<{ key: string; signal?: AbortSignal }> = [];
    const limits: PublicQuoteLimit[] = [];
    const factory = withBoundedPublicQuotes(() => scriptedClient(answers, seen), {
      maxInFlight: 2,
      onLimit: (limit) => limits.push(limit),
    });
    const same = [
      factory().quote({ resource: "energy", volume: "65000", duration: "1h" }),
      factory(() => "key").quote({ resource: "energy", volume: 65000, duration: "1h" }),
    ];
    const others = ["1d", "15m"].map((duration) => factory().quote({ resource: "energy", volume: "65000", duration }));
    await tick();
    expect(seen.map((call) => call.key)).toEqual(["energy:65000:1h", "energy:65000:1d"]);
    expect(limits).toEqual(["quote_shared", "quote_waited"]);
    answers.get("energy:65000:1h")!.resolve({ priceTrx: "4.225" } as PriceQuote);
    expect((await Promise.all(same)).map((quote) => quote.priceTrx)).toEqual(["4.225", "4.225"]);
    await tick();
    expect(seen.map((call) => call.key)).toContain("energy:65000:15m");
    answers.get("energy:65000:1d")!.resolve({ priceTrx: "5.525" } as PriceQuote);
    answers.get("energy:65000:15m")!.resolve({ priceTrx: "3.575" } as PriceQuote);
    await Promise.all(others);
    expect(MAX_PUBLIC_QUOTES_IN_FLIGHT).toBeGreaterThanOrEqual(4);
  });

  it("a caller's signal reaches the call, which is cancelled once nobody waits", async () => {
    const answers = new Map<string, ReturnType<typeof deferred<PriceQuote>>>();
    const seen: Array<{ key: string; signal?: AbortSignal }> = [];
    const factory = withBoundedPublicQuotes(() => scriptedClient(answers, seen));
    const deadline = new AbortController();
    const asked = factory().quote({ resource: "energy", volume: "65000", duration: "1h" }, { signal: deadline.signal });
    await tick();
    deadline.abort(new Error("deadline"));
    await expect(asked).rejects.toThrow("deadline");
    expect(seen[0]!.signal?.aborted).toBe(true);
  });
});

describe("the client's quote under an aborted signal", () => {
  it("ends the attempt in flight and makes no retry", async () => {
    // A marketplace that never answers; the request ends only when its signal aborts.
    const requests: string[] = [];
    const hanging = ((url: string, init?: RequestInit) => {
      requests.push(url);
      return new Promise<Response>((_resolve, reject) =>
        init?.signal?.addEventListener("abort", () => reject(new Error("aborted"))),
      );
    }) as typeof fetch;
    const client = createMarketplaceClient({
      baseUrl: "http://marketplace.test",
      fetch: hanging,
      timeoutMs: 60_000,
      maxRetries: 3,
      backoffBaseMs: 1,
    });
    const controller = new AbortController();
    const asked = client.quote({ resource: "energy", volume: "65000", duration: "1h" }, { signal: controller.signal });
    await tick();
    controller.abort();
    await expect(asked).rejects.toMatchObject({ kind: "timeout", detail: expect.stringContaining("cancelled") });
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(requests).toHaveLength(1);
    const answered = createMarketplaceClient({
      baseUrl: "http://marketplace.test",
      fetch: createFakeFetch(() => json({ resource: "energy", volume: 65000, duration: "1h", priceTrx: "4.225" }))
        .fetch,
    });
    await expect(
      answered.quote({ resource: "energy", volume: "65000", duration: "1h" }, { signal: new AbortController().signal }),
    ).resolves.toMatchObject({ priceTrx: "4.225" });
  });
});

describe("an inline answer's volume is the one it shows, rounded up to three significant digits", () => {
  it("rounds 65001…65040 to one volume and leaves round volumes alone", () => {
    expect(new Set(Array.from({ length: 40 }, (_, index) => inlineVolume(65_001n + BigInt(index))))).toEqual(
      new Set([65_100n]),
    );
    expect([65_000n, 131_000n, 999n, 1_234n, 5_000n, 1_000_001n].map(inlineVolume)).toEqual([
      65_000n,
      131_000n,
      999n,
      1_240n,
      5_000n,
      1_010_000n,
    ]);
    expect(readInlineQuery("65001 1h")).toEqual([{ resource: "energy", volume: 65_100n, duration: "1h" }]);
  });
});

describe("/stats records: reused by /stats for a minute, by the 7/30 switch for longer", () => {
  it("answers a shorter age when asked", () => {
    const cache = new SpendingCache();
    const records = { since: 0, readAt: 1_000 } as SpendingRecords;
    cache.set(7, "1234:1", records);
    expect(cache.get(7, "1234:1", 0, 1_000 + STATS_FRESH_MS - 1, STATS_FRESH_MS)).toBe(records);
    expect(cache.get(7, "1234:1", 0, 1_000 + STATS_FRESH_MS, STATS_FRESH_MS)).toBeNull();
    expect(cache.get(7, "1234:1", 0, 1_000 + STATS_FRESH_MS)).toBe(records);
    expect(cache.get(7, "1234:1", 0, 1_000 + STATS_CACHE_MS)).toBeNull();
    expect(cache.get(7, "other:2", 0, 1_001, STATS_FRESH_MS)).toBeNull();
  });
});

describe("charts rendered at once are bounded for the whole process", () => {
  it("a third chart asked while two render waits its turn, and all three are drawn", async () => {
    const spec: TopLevelSpec = {
      width: 60,
      height: 40,
      data: { values: [{ day: "a", trx: 1 }] },
      mark: "bar",
      encoding: { x: { field: "day", type: "ordinal" }, y: { field: "trx", type: "quantitative" } },
    };
    let waits = 0;
    const charts = await Promise.all(
      Array.from({ length: MAX_CHARTS_RENDERING + 1 }, () =>
        renderChartPng(spec, { cjk: false, onWait: () => (waits += 1) }),
      ),
    );
    expect(waits).toBe(1);
    for (const png of charts) expect(png.subarray(1, 4).toString()).toBe("PNG");
  }, 60_000);
});
