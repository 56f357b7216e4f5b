import { randomUUID } from "node:crypto";
import { describe, expect, it } from "vitest";
import {
  ADDRESS_A,
  buttonLabels,
  cardOutcome,
  linkedUser,
  linkKey,
  manageWorld,
  nextBotText,
  type World,
} from "../kit/world";

/**
 * Answers the marketplace spec allows and the sandbox never gives: escaped secrets in an error, a
 * 403 about one object, an order dearer than its card, amounts finer than a sun, a "%" in the
 * savings, and strings of any length. Each gets a clear message within Telegram's limits.
 */
describe("marketplace answers the spec allows", () => {
  let world: World;
  manageWorld((started) => (world = started));

  const linked = (id: number) => linkedUser(world, id);

  const order = (over: Record<string, unknown> = {}) => ({
    id: randomUUID(),
    resource: "energy",
    targetAddress: ADDRESS_A,
    volume: 65000,
    duration: "1h",
    priceTrx: "4.5",
    activationTrx: "0",
    totalTrx: "4.5",
    status: "Filled",
    txId: null,
    createdAt: new Date().toISOString(),
    ...over,
  });

  it("an error detail that repeats the API key JSON-escaped shows neither the key nor logs it", async () => {
    const { apiKey } = world.newAccount();
    const key = `sk_live+${apiKey.slice(-20)}`;
    const user = world.user(9501);
    world.sandbox.control.injectFault({
      method: "GET",
      pathPrefix: "/api/v1/notifications",
      status: 200,
      body: { items: [], page: 1, pageSize: 20, total: 0, unread: 0 },
      times: 100,
    });
    world.sandbox.control.injectFault({
      method: "GET",
      pathPrefix: "/api/v1/wallet/balance",
      status: 200,
      body: { trx: "10", usdtTrc20: "1" },
      times: 1,
    });
    expect((await linkKey(world, user, key)).text).toMatch(/linked/i);
    world.sandbox.control.injectFault({
      method: "GET",
      pathPrefix: "/api/v1/wallet/balance",
      status: 400,
      rawBody: `{"title":"Bad Request","status":400,"detail":"The X-Api-Key '${key.replace("+", "\\u002B")}' is not valid for this endpoint"}`,
      headers: { "Content-Type": "application/problem+json" },
      times: 5,
    });
    user.send("/wallet");
    const reply = await user.nextMessage();
    expect(reply.text).toContain("The marketplace refused the request");
    expect(reply.text).toContain("[redacted]");
    expect(reply.text).not.toContain(key.slice(-12));
    expect(world.logs()).not.toContain(key.slice(-12));
  });

  it("a 403 about one rule while the balance still answers leaves the key linked and names the refusal; a 403 on the balance too marks it broken", async () => {
    const { user } = await linked(9502);
    user.send(`/renewal ${ADDRESS_A} 65k`);
    await user.nextMessage();
    user.press("✅ Confirm");
    await cardOutcome(user);
    user.send("/rules");
    const list = await user.nextMessage();
    user.press(buttonLabels(list).find((label) => /renewal/i.test(label))!);
    await nextBotText(user, (text) => text.includes("TRX spent"));
    const forbidden = { title: "Forbidden", status: 403, detail: "This automation does not belong to your account" };
    world.sandbox.control.injectFault({
      method: "GET",
      pathPrefix: "/api/v1/automations/",
      status: 403,
      body: forbidden,
      times: 1,
    });
    user.press(/Deliveries/);
    const refused = await nextBotText(user, (text) => text.includes("did not allow"));
    expect(refused.text).toContain("This automation does not belong to your account");
    user.send("/wallet");
    const wallet = await user.nextMessage();
    expect(wallet.text).toContain("TRX");
    expect(wallet.text).not.toContain("no longer works");

    // The key itself refused: the balance answers 403 as well.
    user.send("/rules");
    const again = await user.nextMessage();
    user.press(buttonLabels(again).find((label) => /renewal/i.test(label))!);
    await nextBotText(user, (text) => text.includes("TRX spent"));
    world.sandbox.control.injectFault({
      method: "GET",
      pathPrefix: "/api/v1/automations/",
      status: 403,
      body: forbidden,
      times: 1,
    });
    world.sandbox.control.injectFault({
      method: "GET",
      pathPrefix: "/api/v1/wallet/balance",
      status: 403,
      body: { title: "Forbidden", status: 403 },
      times: 5,
    });
    user.press(/Deliveries/);
    expect((await nextBotText(user, (text) => text.includes("no longer works"))).text).toContain(
      "refused your API key",
    );
  });

  it("an order the marketplace placed dearer than its card says what it cost and that the card showed less", async () => {
    const { user } = await linked(9503);
    user.send(`/buy energy 65000 1h ${ADDRESS_A}`);
    const card = await user.nextMessage();
    expect(card.text).toContain("Total:");
    world.sandbox.control.injectFault({
      method: "POST",
      pathPrefix: "/api/v1/orders",
      status: 200,
      body: order({ status: "Created", priceTrx: "45", totalTrx: "45" }),
      times: 1,
    });
    user.press("✅ Confirm");
    const outcome = await cardOutcome(user);
    expect(outcome.text).toContain("Order placed");
    expect(outcome.text).toContain("Charged: 45 TRX");
    expect(outcome.text).toMatch(/more than the card showed \([\d.,]+ TRX\)/);
    expect(world.logs()).toContain("the order placed costs more than its card showed");
  });

  it("an order placed at the card's price says what it cost, without a warning", async () => {
    const { user } = await linked(9504);
    user.send(`/buy energy 65000 1h ${ADDRESS_A}`);
    await user.nextMessage();
    user.press("✅ Confirm");
    const outcome = await cardOutcome(user);
    expect(outcome.text).toMatch(/Charged: [\d.,]+ TRX/);
    expect(outcome.text).not.toContain("more than the card showed");
  });

  it("amounts finer than a sun are read to the sun; a savings figure sent with its % sign shows one", async () => {
    const { user } = await linked(9505);
    world.sandbox.control.injectFault({
      method: "GET",
      pathPrefix: "/api/v1/wallet/balance",
      status: 200,
      body: { trx: "100.1234567", usdtTrc20: "10.12345678" },
      times: 1,
    });
    user.send("/wallet");
    const wallet = await user.nextMessage();
    expect(wallet.text).toContain("100.123456 TRX");
    expect(wallet.text).toContain("10.123456 USDT");
    world.sandbox.control.injectFault({
      method: "GET",
      pathPrefix: "/api/v1/pricing/quote",
      status: 200,
      body: { priceTrx: "4.6475123" },
      times: 1,
    });
    user.send("/quote energy 65000 1h");
    expect((await user.nextMessage()).text).toContain("4.647512");
    world.sandbox.control.injectFault({
      method: "GET",
      pathPrefix: "/api/v1/orders/preview",
      status: 200,
      body: {
        priceTrx: "4.6475",
        baseCostTrx: "4.225",
        commissionTrx: "0.4225",
        activationTrx: "0",
        burnCostTrx: "13.65",
        savingsPercent: "65.9%",
        balanceTrx: "1000",
      },
      times: 1,
    });
    user.send(`/buy energy 65000 1h ${ADDRESS_A}`);
    const card = await user.nextMessage();
    expect(card.text).toContain("Savings vs burning: 65.9% ");
    expect(card.text).not.toContain("%%");
  });

  it("long strings in orders, the order card, the deposit and a rule's deliveries are cut; an empty ledger type gets no button", async () => {
    const { user } = await linked(9506);
    const items = Array.from({ length: 5 }, () => order({ status: "Pending provider confirmation ".repeat(40) }));
    world.sandbox.control.injectFault({
      method: "GET",
      pathPrefix: "/api/v1/orders",
      status: 200,
      body: { items, page: 1, pageSize: 5, total: 5 },
      times: 1,
    });
    user.send("/orders");
    const orders = await user.nextMessage();
    expect(orders.text).toContain("Pending provider confirmation");
    expect(orders.text!.length).toBeLessThan(2_000);

    const long = order({
      resource: "energy-".repeat(300),
      duration: "1h".repeat(800),
      targetAddress: "T".repeat(1500),
    });
    world.sandbox.control.injectFault({
      method: "GET",
      pathPrefix: "/api/v1/orders",
      status: 200,
      body: { items: [long], page: 1, pageSize: 5, total: 1 },
      times: 1,
    });
    user.send("/orders");
    const list = await user.nextMessage();
    world.sandbox.control.injectFault({
      method: "GET",
      pathPrefix: `/api/v1/orders/${long.id}`,
      status: 200,
      body: long,
      times: 1,
    });
    user.press(buttonLabels(list)[0]!);
    const orderCard = await nextBotText(user, (text) => text.includes("Target"));
    expect(orderCard.text!.length).toBeLessThan(1_000);
    expect(orderCard.text).toContain("…");

    world.sandbox.control.injectFault({
      method: "GET",
      pathPrefix: "/api/v1/wallet/deposit-address",
      status: 200,
      body: { network: "TRON TRC20 mainnet ".repeat(60), address: ADDRESS_A, minimums: [] },
      times: 1,
    });
    user.send("/topup");
    expect((await user.nextMessage()).text).toContain(ADDRESS_A);
    const photo = await user.nextMessage();
    expect(photo.photo).toBeDefined();
    expect(photo.caption!.length).toBeLessThan(1_024);

    world.sandbox.control.injectFault({
      method: "GET",
      pathPrefix: "/api/v1/wallet/deposit-address",
      status: 200,
      body: { network: "TRC20", address: `${ADDRESS_A}?memo=${"a".repeat(300)}`, minimums: [] },
      times: 1,
    });
    user.send("/topup");
    const tooLong = await user.nextMessage();
    expect(tooLong.text).toContain("too long to show here safely");
    expect(tooLong.text).not.toContain(ADDRESS_A);

    const entry = {
      id: randomUUID(),
      type: "",
      currency: "TRX",
      amount: "5",
      txId: null,
      status: "Completed",
      createdAt: new Date().toISOString(),
    };
    world.sandbox.control.injectFault({
      method: "GET",
      pathPrefix: "/api/v1/wallet/transactions",
      status: 200,
      body: { items: [entry], page: 1, pageSize: 10, total: 1 },
      times: 1,
    });
    user.send("/transactions");
    const ledger = await user.nextMessage();
    expect(buttonLabels(ledger).every((label) => label.trim() !== "" && label.trim() !== "✓")).toBe(true);

    const id = randomUUID();
    const now = new Date().toISOString();
    const rule = {
      id,
      type: "auto-renewal",
      resource: "energy",
      targetAddress: "T".repeat(5000),
      minimal: null,
      volume: 65000,
      duration: "1d",
      spentTrx: "0",
      status: "active",
      pauseReason: null,
      autoResume: false,
      createdAt: now,
      updatedAt: now,
    };
    world.sandbox.control.injectFault({
      method: "GET",
      pathPrefix: `/api/v1/automations/${id}/fires`,
      status: 200,
      body: [],
      times: 5,
    });
    world.sandbox.control.injectFault({
      method: "GET",
      pathPrefix: "/api/v1/automations",
      status: 200,
      body: [rule],
      times: 20,
    });
    user.send("/rules");
    const rules = await user.nextMessage();
    user.press(buttonLabels(rules).find((label) => label.includes("renewal"))!);
    await nextBotText(user, (text) => text.includes("TRX spent"));
    user.press(/Deliveries/);
    const deliveries = await nextBotText(user, (text) => text.includes("Deliveries") || text.includes("deliveries"));
    expect(deliveries.text!.length).toBeLessThan(1_000);
    expect(world.fake.rejectedCalls()).toEqual([]);
  });
});
