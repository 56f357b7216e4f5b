import { describe, expect, it } from "vitest";
import { createSandboxWorld, newCustomer, orderBody } from "./sandbox-world";

describe("wallet", () => {
  it("keeps a stable TRC20 deposit address per account and publishes minimums", async () => {
    const world = createSandboxWorld();
    const a = newCustomer(world);
    const b = newCustomer(world);
    const first = await world.call("GET", "/api/v1/wallet/deposit-address", { key: a.apiKey });
    expect(first.body).toMatchObject({
      network: "TRC20",
      minimums: [
        { currency: "USDT-TRC20", amount: "1" },
        { currency: "TRX", amount: "10" },
      ],
    });
    expect(first.body.address).toMatch(/^T[1-9A-HJ-NP-Za-km-z]{33}$/);
    expect((await world.call("GET", "/api/v1/wallet/deposit-address", { key: a.apiKey })).body.address).toBe(
      first.body.address,
    );
    expect((await world.call("GET", "/api/v1/wallet/deposit-address", { key: b.apiKey })).body.address).not.toBe(
      first.body.address,
    );
  });

  it("credits deposits with a ledger entry and a notification, and filters the ledger", async () => {
    const world = createSandboxWorld();
    const { accountId, apiKey } = newCustomer(world, { trx: "100" });
    const entry = world.control.creditDeposit({ accountId, currency: "USDT-TRC20", amount: "12.5" });
    expect(entry).toMatchObject({ type: "Deposit", currency: "USDT-TRC20", amount: "12.5", status: "Completed" });
    expect(entry.txId).toMatch(/^[0-9a-f]{64}$/);
    expect(world.control.listNotifications(accountId)[0]).toMatchObject({
      type: "deposit.credited",
      body: "12.5 USDT-TRC20 was credited to your balance.",
    });
    await world.call("POST", "/api/v1/orders", { key: apiKey, body: orderBody(), headers: { "Idempotency-Key": "1" } });
    expect((await world.call("GET", "/api/v1/wallet/balance", { key: apiKey })).body).toEqual({
      usdtTrc20: "12.5",
      trx: "95.3525",
    });

    const all = (await world.call("GET", "/api/v1/wallet/transactions", { key: apiKey })).body;
    expect(all).toMatchObject({ page: 1, pageSize: 20, total: 3 });
    expect(all.items.map((item: { type: string }) => item.type)).toEqual(["OrderPayment", "Deposit", "Deposit"]);
    const deposits = (await world.call("GET", "/api/v1/wallet/transactions?type=Deposit&currency=TRX", { key: apiKey }))
      .body;
    expect(deposits.items).toHaveLength(1);
    expect(deposits.items[0]).toMatchObject({ currency: "TRX", amount: "100" });
    expect(
      (await world.call("GET", "/api/v1/wallet/transactions?pageSize=1&page=2", { key: apiKey })).body.items[0].type,
    ).toBe("Deposit");
    expect((await world.call("GET", "/api/v1/wallet/transactions?currency=BTC", { key: apiKey })).status).toBe(400);
  });
});

describe("notifications", () => {
  it("pages 20 at a time newest first with total and unread counts, and marks read", async () => {
    const world = createSandboxWorld();
    const { accountId, apiKey } = newCustomer(world);
    for (let i = 1; i <= 23; i++)
      world.control.addNotification({
        accountId,
        title: `Note ${i}`,
        body: `Body ${i}`,
        link: i === 23 ? "https://example.com" : null,
      });
    const first = (await world.call("GET", "/api/v1/notifications", { key: apiKey })).body;
    expect(first).toMatchObject({ page: 1, pageSize: 20, total: 23, unread: 23 });
    expect(first.items[0]).toMatchObject({
      title: "Note 23",
      type: "announcement",
      level: "info",
      link: "https://example.com",
      read: false,
    });
    const second = (await world.call("GET", "/api/v1/notifications?page=2&pageSize=5", { key: apiKey })).body;
    expect(second.pageSize).toBe(20);
    expect(second.items.map((n: { title: string }) => n.title)).toEqual(["Note 3", "Note 2", "Note 1"]);

    const one = await world.call("POST", `/api/v1/notifications/${first.items[0].id}/read`, { key: apiKey });
    expect(one.status).toBe(204);
    expect(one.text).toBe("");
    const after = (await world.call("GET", "/api/v1/notifications", { key: apiKey })).body;
    expect(after.unread).toBe(22);
    expect(after.items[0].read).toBe(true);
    expect(after.items[1].read).toBe(false);

    expect((await world.call("POST", "/api/v1/notifications/read-all", { key: apiKey })).status).toBe(204);
    expect((await world.call("GET", "/api/v1/notifications", { key: apiKey })).body.unread).toBe(0);
  });

  it("answers 404 for unknown, foreign and malformed notification ids", async () => {
    const world = createSandboxWorld();
    const mine = newCustomer(world);
    const other = newCustomer(world);
    const note = world.control.addNotification({
      accountId: mine.accountId,
      type: "promo",
      level: "warning",
      title: "T",
      body: "B",
    });
    expect((await world.call("POST", `/api/v1/notifications/${note.id}/read`, { key: other.apiKey })).status).toBe(404);
    expect(
      (
        await world.call("POST", "/api/v1/notifications/00000000-0000-4000-8000-000000000000/read", {
          key: mine.apiKey,
        })
      ).status,
    ).toBe(404);
    expect((await world.call("POST", "/api/v1/notifications/42/read", { key: mine.apiKey })).status).toBe(404);
    expect(world.control.listNotifications(mine.accountId)[0]).toMatchObject({
      type: "promo",
      level: "warning",
      read: false,
    });
  });
});
