import { describe, expect, it } from "vitest";
import { isLoopbackHost, urlHost } from "#src/listen-address";
import { createRestorableSandbox } from "#src/sandbox/create-sandbox";
import { parseSnapshot } from "#src/sandbox/snapshot";
import { createFakeTelegram } from "#src/telegram-fake/index";
import { createEventLog } from "#src/telegram-fake/event-log";

describe("the playground's long-running pieces", () => {
  it("a bounded event log keeps the newest events and still resumes exactly after a recent id", () => {
    const log = createEventLog(10);
    for (let i = 0; i < 30; i++) log.emit({ kind: "user_message", chatId: 1 } as never);
    const kept = log.since(0).map((event) => event.id);
    expect(kept.length).toBeLessThanOrEqual(11);
    expect(kept.at(-1)).toBe(30);
    expect(kept).toEqual([...kept].sort((a, b) => a - b));
    expect(log.since(25).map((event) => event.id)).toEqual([26, 27, 28, 29, 30]);
    expect(log.since(30)).toEqual([]);
    // An id older than what is kept replays everything kept.
    expect(log.since(3).map((event) => event.id)).toEqual(kept);
  });

  it("the fake's call log is bounded by logLimit and keeps numbering", async () => {
    const token = "1000000:abcdefghijklmnopqrstuvwxyz";
    const fake = createFakeTelegram({ token, logLimit: 10 });
    for (let i = 0; i < 40; i++) await fake.app.request(`/bot${token}/getMe`, { method: "POST" });
    expect(fake.calls.length).toBeLessThanOrEqual(11);
    expect(fake.calls.at(-1)!.seq).toBe(40);
    expect(fake.eventsSince(0).length).toBeLessThanOrEqual(11);
    fake.close();
  });

  it("builds URLs that work for every HOST and tells loopback from exposed addresses", () => {
    expect(urlHost("0.0.0.0")).toBe("127.0.0.1");
    expect(urlHost("::")).toBe("[::1]");
    expect(urlHost("::1")).toBe("[::1]");
    expect(urlHost("fe80::1")).toBe("[fe80::1]");
    expect(urlHost("127.0.0.1")).toBe("127.0.0.1");
    expect(urlHost("localhost")).toBe("localhost");
    for (const host of ["127.0.0.1", "127.1.2.3", "::1", "[::1]", "localhost", "::ffff:127.0.0.1"])
      expect(isLoopbackHost(host)).toBe(true);
    for (const host of ["0.0.0.0", "::", "192.168.1.5", "example.com"]) expect(isLoopbackHost(host)).toBe(false);
  });

  it("a sandbox restored from its snapshot keeps the demo key, balances, orders and notifications", async () => {
    const first = createRestorableSandbox();
    const { accountId, apiKey } = first.sandbox.demo;
    first.sandbox.control.creditDeposit({ accountId, currency: "TRX", amount: "12.5" });
    const response = await first.sandbox.app.request("/api/v1/orders", {
      method: "POST",
      headers: { "X-Api-Key": apiKey, "Content-Type": "application/json", "Idempotency-Key": "k-1" },
      body: JSON.stringify({
        resource: "energy",
        volume: 65000,
        duration: "1h",
        targetAddress: "TNPeeaaFB7K9cmo4uQpcU32zGK8G1NYqeL",
      }),
    });
    expect(response.status).toBeLessThan(300);
    // a price moved from the panel (set-price) stays moved after the restore
    first.sandbox.control.setPrice({ resource: "energy", duration: "1h", sunPerUnit: 37 });
    const text = first.serialize();

    const second = createRestorableSandbox({}, parseSnapshot(text));
    expect(second.sandbox.demo).toEqual({ accountId, apiKey });
    expect(second.sandbox.control.getBalance(accountId)).toEqual(first.sandbox.control.getBalance(accountId));
    expect(second.sandbox.control.listOrders(accountId)).toEqual(first.sandbox.control.listOrders(accountId));
    expect(second.sandbox.control.listNotifications(accountId)).toEqual(
      first.sandbox.control.listNotifications(accountId),
    );
    expect(second.sandbox.control.getPrices()).toEqual(first.sandbox.control.getPrices());
    expect(
      second.sandbox.control.getPrices().find((p) => p.resource === "energy" && p.duration === "1h"),
    ).toMatchObject({ sunPerUnit: 37, overridden: true });
    const quote = await second.sandbox.app.request("/api/v1/pricing/quote?resource=energy&volume=65000&duration=1h");
    expect(quote.status).toBe(200);
    const firstQuote = await first.sandbox.app.request(
      "/api/v1/pricing/quote?resource=energy&volume=65000&duration=1h",
    );
    expect(await quote.json()).toEqual(await firstQuote.json());
    const balance = await second.sandbox.app.request("/api/v1/wallet/balance", { headers: { "X-Api-Key": apiKey } });
    expect(balance.status).toBe(200);
    // The same Idempotency-Key still returns the same order after the restore.
    const again = await second.sandbox.app.request("/api/v1/orders", {
      method: "POST",
      headers: { "X-Api-Key": apiKey, "Content-Type": "application/json", "Idempotency-Key": "k-1" },
      body: JSON.stringify({
        resource: "energy",
        volume: 65000,
        duration: "1h",
        targetAddress: "TNPeeaaFB7K9cmo4uQpcU32zGK8G1NYqeL",
      }),
    });
    expect(again.status).toBeLessThan(300);
    expect(second.sandbox.control.listOrders(accountId)).toHaveLength(1);
    expect(() => parseSnapshot("{}")).toThrow(/snapshot/);
  });
});
