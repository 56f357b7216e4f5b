import { describe, expect, it } from "vitest";
import { ADDRESS_A, buttonLabels, cardOutcome, linkKey, manageWorld, type World } from "../kit/world";

/**
 * Answers the marketplace spec allows that a strict reading would refuse: a public quote whatever
 * the user's key says, a 502 that is only a gateway's (its "provider failed, refunded" meaning
 * belongs to placing an order), and fields the spec does not mark required left out.
 */
describe("the marketplace's answers the spec allows", () => {
  let world: World;
  manageWorld((started) => (world = started));

  async function linked(id: number) {
    const account = world.newAccount({ trx: "1000", usdt: "0" });
    const user = world.user(id);
    await linkKey(world, user, account.apiKey);
    return { ...account, user };
  }

  it("/quote and /watch are public: a revoked key or its options answering 503 still give the price and the watch", async () => {
    const revoked = await linked(8001);
    world.sandbox.control.revokeKey({ apiKey: revoked.apiKey });
    revoked.user.send("/quote energy 65000 1h");
    const quote = await revoked.user.nextMessage();
    expect(quote.text).toContain("Price quote");
    expect(quote.text).not.toContain("API key");
    revoked.user.send("/watch energy 65000 1h 10");
    expect((await revoked.user.nextMessage()).text).toContain("Price watch");

    const optionsDown = await linked(8002);
    world.sandbox.control.injectFault({ method: "GET", pathPrefix: "/api/v1/orders/options", status: 503, times: 20 });
    optionsDown.user.send("/quote energy 65000 1h");
    expect((await optionsDown.user.nextMessage()).text).toContain("Price quote");
  });

  it("a 502 on a read or on creating a rule is the marketplace not answering, never an order refunded", async () => {
    const { user } = await linked(8003);
    world.sandbox.control.injectFault({
      method: "GET",
      pathPrefix: "/api/v1/wallet/balance",
      status: 502,
      rawBody: "<html>Bad Gateway</html>",
      times: 20,
    });
    user.send("/wallet");
    const wallet = await user.nextMessage();
    expect(wallet.text).toContain("not answering");
    expect(wallet.text).not.toContain("refunded");
    world.sandbox.control.clearFaults();

    user.send(`/refill ${ADDRESS_A} 30k 65k 1h`);
    await user.nextMessage();
    world.sandbox.control.injectFault({
      method: "POST",
      pathPrefix: "/api/v1/automations",
      status: 502,
      rawBody: "Bad Gateway",
    });
    user.press("✅ Confirm");
    expect((await cardOutcome(user)).text).not.toContain("refunded");
  });

  it("a balance without usdtTrc20 links the key and shows the TRX, the USDT as unknown", async () => {
    const { apiKey } = world.newAccount();
    const user = world.user(8004);
    world.sandbox.control.injectFault({
      method: "GET",
      pathPrefix: "/api/v1/wallet/balance",
      status: 200,
      body: { trx: "12.5" },
      times: 20,
    });
    expect((await linkKey(world, user, apiKey)).text).toMatch(/linked/i);
    user.send("/wallet");
    const wallet = await user.nextMessage();
    expect(wallet.text).toContain("12.5 TRX");
    expect(wallet.text).toContain("USDT-TRC20: — USDT");
  });

  it("an order preview with only its price, and no balance anywhere: the card shows the price and offers Confirm", async () => {
    const { user } = await linked(8005);
    world.sandbox.control.injectFault({
      method: "GET",
      pathPrefix: "/api/v1/orders/preview",
      status: 200,
      body: { priceTrx: "4.5" },
      times: 20,
    });
    world.sandbox.control.injectFault({
      method: "GET",
      pathPrefix: "/api/v1/wallet/balance",
      status: 200,
      body: {},
      times: 20,
    });
    user.send(`/buy energy 65000 1h ${ADDRESS_A}`);
    const card = await user.nextMessage();
    expect(card.text).toContain("Price: 4.5 TRX (commission —)");
    expect(card.text).toContain("Balance: —");
    expect(buttonLabels(card)).toContain("✅ Confirm");
  });

  it("a ledger amount written with a plus sign is read as the amount", async () => {
    const { user } = await linked(8007);
    const entry = {
      id: "6f1c6f8e-2b7e-4c1b-9a4e-0a1b2c3d4e5f",
      type: "Deposit",
      currency: "TRX",
      amount: "+5",
      txId: null,
      status: "Completed",
      createdAt: new Date().toISOString(),
    };
    world.sandbox.control.injectFault({
      method: "GET",
      pathPrefix: "/api/v1/wallet/transactions",
      status: 200,
      body: { items: [entry], page: 1, pageSize: 10, total: 1 },
      times: 20,
    });
    user.send("/transactions");
    const list = await user.nextMessage();
    expect(list.text).toContain("+5");
    expect(list.text).not.toContain("not answering");
  });

  it("a rule's preview with only its price, and no balance: the card shows the cost and offers Confirm, which creates the rule", async () => {
    const { accountId, user } = await linked(8006);
    world.sandbox.control.injectFault({
      method: "GET",
      pathPrefix: "/api/v1/automations/preview",
      status: 200,
      body: { priceTrx: "4.5" },
      times: 20,
    });
    world.sandbox.control.injectFault({
      method: "GET",
      pathPrefix: "/api/v1/wallet/balance",
      status: 200,
      body: {},
      times: 20,
    });
    user.send(`/renewal ${ADDRESS_A} 65k`);
    const card = await user.nextMessage();
    expect(card.text).toContain("(commission —)");
    expect(card.text).toContain("Balance: —");
    user.press("✅ Confirm");
    expect((await cardOutcome(user)).text).toContain("created");
    expect(world.sandbox.control.listRules(accountId)).toHaveLength(1);
  });
});
