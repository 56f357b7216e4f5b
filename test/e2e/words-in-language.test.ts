import { describe, expect, it } from "vitest";
import { ADDRESS_A, buttonLabels, linkKey, manageWorld, nextBotText, type World } from "../kit/world";
import { waitFor } from "../kit/push-helpers";

// Intl writes Russian thousands with a no-break space, as Telegram shows it.
const NBSP = "\u00a0";

type User = ReturnType<World["user"]>;

/**
 * Every word a user reads in their language (issue 57): an order's status, a ledger entry's type
 * and status (on the filter buttons too), an amount of a resource in the form its number asks for,
 * a marketplace notification of a known kind told from its facts with numbers written as the
 * language writes them, and an unknown marketplace word still shown as it came.
 */
describe("the marketplace's words in the user's language", () => {
  let world: World;
  manageWorld((started) => (world = started));

  async function linked(id: number, languageCode: string): Promise<{ accountId: string; apiKey: string; user: User }> {
    const account = world.newAccount({ trx: "1000", usdt: "0" });
    const user = world.user(id, { languageCode });
    await linkKey(world, user, account.apiKey);
    return { ...account, user };
  }

  /** Buys 65k energy for an hour through the card; the order stays Created until settled. */
  async function buy(user: User, accountId: string): Promise<string> {
    user.send(`/buy energy 65000 1h ${ADDRESS_A}`);
    const card = await user.nextMessage();
    user.press(buttonLabels(card)[0]!);
    const orders = await waitFor(
      () => world.sandbox.control.listOrders(accountId).length > 0 && world.sandbox.control.listOrders(accountId),
    );
    await world.settled();
    return orders[0]!.id;
  }

  it("ru: /orders, an order's card and the order placed say the status in Russian; amounts of energy read «65 000 энергии»", async () => {
    const { accountId, user } = await linked(5701, "ru");
    await buy(user, accountId);
    const placed = await nextBotText(user, (text) => text.includes("Заказ размещён"));
    expect(placed.text).toContain("Заказ размещён: создан");

    user.send("/orders");
    const list = await user.nextMessage();
    expect(list.text).toContain(`создан · 65${NBSP}000 энергии ·`);
    expect(list.text).not.toMatch(/Created|Energy|Энергия/);
    expect(buttonLabels(list)[0]).toContain(`создан · 65${NBSP}000 энергии ·`);

    world.sandbox.control.settleNow();
    user.send("/orders");
    const settled = await user.nextMessage();
    expect(settled.text).toContain(`исполнен · 65${NBSP}000 энергии ·`);
    user.press(buttonLabels(settled)[0]!);
    const card = await nextBotText(user, (text) => text.includes("Статус:"));
    expect(card.text).toContain("Статус: исполнен");
    expect(card.text).not.toContain("Filled");

    user.send("/quote energy 5m 1h");
    const quote = await user.nextMessage();
    expect(quote.text).toContain(`5${NBSP}000${NBSP}000 энергии на 1 ч`);
    user.send("/quote bandwidth 5000 1d");
    expect((await user.nextMessage()).text).toContain(`5${NBSP}000 единиц пропускной способности на 1 дн.`);
  });

  it("zh: /transactions says each type and status in Chinese, on the type filter's buttons and in the filter line", async () => {
    const { accountId, user } = await linked(5702, "zh");
    world.sandbox.control.creditDeposit({ accountId, currency: "TRX", amount: "5" });
    await buy(user, accountId);
    await nextBotText(user, (text) => text.includes("订单已提交"));

    user.send("/transactions");
    const list = await user.nextMessage();
    expect(list.text).toContain("· 充值 · +5 TRX · 已完成");
    expect(list.text).toContain("· 订单付款 · ");
    expect(list.text).not.toMatch(/Deposit|OrderPayment|Completed/);
    const labels = buttonLabels(list);
    expect(labels).toEqual(expect.arrayContaining(["充值", "订单付款"]));
    expect(labels.join(" ")).not.toMatch(/Deposit|OrderPayment/);

    user.press("充值");
    const filtered = await nextBotText(user, (text) => text.includes("筛选："));
    expect(filtered.text).toContain("筛选：全部币种 · 充值");
    expect(buttonLabels(filtered)).toContain("• 充值");
  });

  it("a type, a status or a resource the bot does not know is shown as the marketplace wrote it", async () => {
    const { apiKey, user } = await linked(5703, "ru");
    const client = world.app.deps.marketplace(() => apiKey);
    await client.createOrder({ resource: "energy", targetAddress: ADDRESS_A, volume: "65000", duration: "1h" }, "k-1");
    const orders = await client.listOrders({ page: 1, pageSize: 5 });
    world.sandbox.control.injectFault({
      method: "GET",
      pathPrefix: "/api/v1/orders",
      status: 200,
      body: { ...orders, items: orders.items.map((order) => ({ ...order, status: "Rerouted", resource: "storage" })) },
      times: 5,
    });
    user.send("/orders");
    expect((await user.nextMessage()).text).toContain(`Rerouted · 65${NBSP}000 storage ·`);
  });

  it("notifications of known kinds are told in the reader's words from their facts, numbers as the language writes them; others are quoted as the marketplace's", async () => {
    const { accountId, user } = await linked(5704, "ru");
    await buy(user, accountId);
    world.sandbox.control.settleNow();
    world.sandbox.control.creditDeposit({ accountId, currency: "TRX", amount: "1090.5" });
    world.sandbox.control.addNotification({ accountId, title: "Maintenance", body: "We upgrade on Sunday." });

    user.send("/notifications");
    const list = (await user.nextMessage()).text!;
    expect(list).toContain("Заказ исполнен");
    expect(list).toContain(`Доставлено: 65${NBSP}000 энергии на 1 ч`);
    expect(list).toContain(`Получатель: ${ADDRESS_A}`);
    expect(list).toContain("Пополнение зачислено");
    expect(list).toContain(`На ваш баланс зачислено 1${NBSP}090,5 TRX.`);
    expect(list).not.toMatch(/delivered|Order filled|Deposit credited|was credited/);
    // The unknown kind, in the marketplace's words and said to be theirs.
    expect(list).toContain("словами маркетплейса:\nMaintenance\nWe upgrade on Sunday.");

    // The same, pushed: a deposit alert in Chinese for a zh user.
    const zh = await linked(5705, "zh");
    world.sandbox.control.creditDeposit({ accountId: zh.accountId, currency: "USDT-TRC20", amount: "1234.5" });
    await world.app.push.pollNow();
    const alert = await waitFor(() =>
      world.fake.messages(5705).find((message) => message.from === "bot" && message.text?.includes("充值已到账")),
    );
    expect(alert.text).toBe("💰 充值已到账\n1,234.5 USDT-TRC20 已存入您的余额。");
  });
});
