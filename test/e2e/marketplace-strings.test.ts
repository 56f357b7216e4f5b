import { describe, expect, it } from "vitest";
import { ADDRESS_A, ADDRESS_B, buttonLabels, linkKey, manageWorld, nextBotText, type World } from "../kit/world";
import { linkedUser, waitFor } from "../kit/push-helpers";
import type { ChatMessage } from "#src/telegram-fake/index";

/**
 * Markup and an entity in one: shown raw, it would bold the rest of the message or be refused by
 * Telegram ("can't parse entities"). Every open string the marketplace returns must read literally.
 */
const HOSTILE = "<b>&";

type User = ReturnType<World["user"]>;

describe("strings from the marketplace are shown literally, never as markup", () => {
  let world: World;
  manageWorld((started) => (world = started));

  async function linked(id: number): Promise<{ accountId: string; apiKey: string; user: User }> {
    const account = world.newAccount();
    const user = world.user(id);
    await linkKey(world, user, account.apiKey);
    return { ...account, user };
  }

  async function marketplace(apiKey: string, method: "GET" | "POST", path: string, body?: object): Promise<unknown> {
    const headers: Record<string, string> = { "X-Api-Key": apiKey };
    if (body) headers["Content-Type"] = "application/json";
    if (method === "POST" && path === "/api/v1/orders") headers["Idempotency-Key"] = `strings-${Math.random()}`;
    const response = await world.sandbox.app.request(path, {
      method,
      headers,
      ...(body ? { body: JSON.stringify(body) } : {}),
    });
    expect(response.status).toBeLessThan(300);
    return response.json();
  }

  /**
   * From now on the sandbox answers GET `path` (and every path under it) with its own answer as it
   * is now, passed through `alter`: the marketplace's real shape, with hostile open strings.
   * Narrower paths must be served first, as the first matching one answers.
   */
  async function serveAltered<T>(apiKey: string, path: string, alter: (body: T) => unknown): Promise<void> {
    const body = alter((await marketplace(apiKey, "GET", path)) as T);
    world.sandbox.control.injectFault({ method: "GET", pathPrefix: path, status: 200, body, times: 1000 });
  }

  const hostileLabel = (message: ChatMessage) => buttonLabels(message).find((label) => label.includes(HOSTILE));

  /** Nothing Telegram refused, and nothing escaped twice (an escaped entity would show as "&amp;lt;"). */
  function expectAllLiteral(chatId: number): void {
    world.assertNoRejectedCalls();
    for (const message of world.fake.messages(chatId).filter((candidate) => candidate.from === "bot")) {
      expect(`${message.text ?? ""}${message.caption ?? ""}`).not.toMatch(/&(?:amp|lt|gt|quot);/);
    }
  }

  it("/rules, a rule card and its Deliveries show an unknown rule type, status, duration and pause reason as text", async () => {
    const { apiKey, user } = await linked(9101);
    const odd = (await marketplace(apiKey, "POST", "/api/v1/automations/renewal", {
      targetAddress: ADDRESS_A,
      volume: 65000,
    })) as { id: string };
    await marketplace(apiKey, "POST", "/api/v1/automations/renewal", { targetAddress: ADDRESS_B, volume: 65000 });
    expect(world.sandbox.control.fireRule({ ruleId: odd.id }).fired).toBe(true);
    await serveAltered<Array<Record<string, unknown>>>(apiKey, `/api/v1/automations/${odd.id}/fires`, (firings) =>
      firings.map((firing) => ({ ...firing, duration: HOSTILE })),
    );
    await serveAltered<Array<Record<string, unknown>>>(apiKey, "/api/v1/automations", (rules) =>
      rules.map((rule) =>
        rule.id === odd.id
          ? { ...rule, type: HOSTILE, status: HOSTILE, duration: HOSTILE }
          : { ...rule, status: "paused", pauseReason: HOSTILE },
      ),
    );

    user.send("/rules");
    const list = await user.nextMessage();
    expect(list.text).toContain("Your automation rules");
    const oddLabel = hostileLabel(list)!;
    expect(oddLabel).toContain(`${HOSTILE} · `);

    user.press(oddLabel);
    const card = await nextBotText(user, (text) => text.includes("TRX spent"));
    expect(card.text).toContain(`${HOSTILE} rule`);
    expect(card.text).toContain(`Duration: ${HOSTILE}`);
    expect(card.text).toContain(`Status: • ${HOSTILE}`);

    user.press("📋 Deliveries");
    const deliveries = await nextBotText(user, (text) => text.includes("Deliveries"));
    expect(deliveries.text).toContain(`${HOSTILE} · ${ADDRESS_A}`);
    expect(deliveries.text).toContain(`· ${HOSTILE} ·`);

    user.press("⬅️ Back");
    await nextBotText(user, (text) => text.includes("TRX spent"));
    user.press("⬅️ Back");
    const again = await nextBotText(user, (text) => text.includes("Your automation rules"));
    user.press(buttonLabels(again).find((label) => label.startsWith("⏸"))!);
    const paused = await nextBotText(user, (text) => text.includes("TRX spent"));
    expect(paused.text).toContain(`Pause reason: ${HOSTILE}`);
    expectAllLiteral(9101);
  });

  it("/transactions shows a ledger entry's type, currency and status as text, in the lines, the type filter and its button", async () => {
    const { accountId, apiKey, user } = await linked(9102);
    world.sandbox.control.creditDeposit({ accountId, currency: "TRX", amount: "5" });
    await serveAltered<{ items: Array<Record<string, unknown>> }>(apiKey, "/api/v1/wallet/transactions", (page) => ({
      ...page,
      items: page.items.map((entry) => ({ ...entry, type: HOSTILE, currency: HOSTILE, status: HOSTILE })),
    }));

    user.send("/transactions");
    const list = await user.nextMessage();
    expect(list.text).toContain(`· ${HOSTILE} · +5 ${HOSTILE} · ${HOSTILE}`);
    expect(buttonLabels(list)).toContain(HOSTILE);

    user.press(HOSTILE);
    const filtered = await nextBotText(user, (text) => text.includes("Filter:"));
    expect(filtered.text).toContain(`· ${HOSTILE}`);
    expect(buttonLabels(filtered)).toContain(`• ${HOSTILE}`);
    expectAllLiteral(9102);
  });

  it("/topup shows the network and the minimum's currency as text, in the message and the QR code's caption", async () => {
    const { apiKey, user } = await linked(9103);
    await serveAltered<{ minimums: Array<Record<string, unknown>> }>(
      apiKey,
      "/api/v1/wallet/deposit-address",
      (deposit) => ({
        ...deposit,
        network: HOSTILE,
        minimums: deposit.minimums.map((minimum) => ({ ...minimum, currency: HOSTILE })),
      }),
    );

    user.send("/topup");
    const message = await user.nextMessage();
    expect(message.text).toContain(`Network: ${HOSTILE}`);
    expect(message.text).toContain(`• ${HOSTILE}: `);
    const photo = await user.nextMessage();
    expect(photo.caption).toContain(HOSTILE);
    expectAllLiteral(9103);
  });

  it("/notifications shows a notification's title and body as text; a refusal shows the marketplace's detail as text", async () => {
    const { accountId, user } = await linked(9104);
    world.sandbox.control.addNotification({
      accountId,
      type: HOSTILE,
      level: HOSTILE,
      title: `${HOSTILE} title`,
      body: `${HOSTILE} body`,
    });

    user.send("/notifications");
    const list = await user.nextMessage();
    expect(list.text).toContain(`in the marketplace's words:\n${HOSTILE} title`);
    expect(list.text).toContain(`${HOSTILE} body`);

    world.sandbox.control.injectFault({
      method: "GET",
      pathPrefix: "/api/v1/notifications",
      status: 422,
      body: { type: "about:blank", title: HOSTILE, status: 422, detail: `${HOSTILE} detail` },
    });
    user.send("/notifications");
    const refused = await user.nextMessage();
    expect(refused.text).toContain(`refused the request: ${HOSTILE} detail`);
    expectAllLiteral(9104);
  });

  it("/orders and an order's card show the status, resource and duration as text", async () => {
    const { apiKey, user } = await linked(9105);
    const order = (await marketplace(apiKey, "POST", "/api/v1/orders", {
      resource: "energy",
      volume: 65000,
      duration: "1h",
      targetAddress: ADDRESS_A,
    })) as { id: string };
    const hostileOrder = (value: Record<string, unknown>) => ({
      ...value,
      status: HOSTILE,
      resource: HOSTILE,
      duration: HOSTILE,
    });
    await serveAltered<Record<string, unknown>>(apiKey, `/api/v1/orders/${order.id}`, hostileOrder);
    await serveAltered<{ items: Array<Record<string, unknown>> }>(apiKey, "/api/v1/orders", (page) => ({
      ...page,
      items: page.items.map(hostileOrder),
    }));

    user.send("/orders");
    const list = await user.nextMessage();
    expect(list.text).toContain(`${HOSTILE} · 65,000 ${HOSTILE} ·`);

    user.press(hostileLabel(list)!);
    const card = await nextBotText(user, (text) => text.includes("Created"));
    expect(card.text).toContain(`Status: ${HOSTILE}`);
    expect(card.text).toContain(`Resource: ${HOSTILE}`);
    expect(card.text).toContain(`Duration: ${HOSTILE}`);
    expectAllLiteral(9105);
  });

  it("pushed alerts show an unknown notification, a pause notification and a webhook's order as text", async () => {
    const who = await linkedUser(world, 9106);
    const alerts = () =>
      world.fake.messages(9106).filter((message) => message.from === "bot" && message.text?.includes(HOSTILE));

    world.sandbox.control.addNotification({
      accountId: who.accountId,
      type: HOSTILE,
      title: `${HOSTILE} news`,
      body: `${HOSTILE} more`,
    });
    await world.app.push.pollNow();
    const news = await waitFor(() => alerts().find((message) => message.text!.includes("news")));
    // A kind the bot does not know: the marketplace's own words, said to be theirs.
    expect(news.text).toBe(`💬 In the marketplace's words:\n${HOSTILE} news\n${HOSTILE} more`);

    world.sandbox.control.addNotification({
      accountId: who.accountId,
      type: "automation.paused",
      title: "Automation paused",
      body: `${HOSTILE} reason`,
    });
    await world.app.push.pollNow();
    const paused = await waitFor(() => alerts().find((message) => message.text!.includes("reason")));
    expect(paused.text).toContain(`Automation paused: ${HOSTILE} reason`);

    const order = (await marketplace(who.apiKey, "POST", "/api/v1/orders", {
      resource: "energy",
      volume: 65000,
      duration: "1h",
      targetAddress: ADDRESS_A,
    })) as Record<string, unknown>;
    expect(
      (await who.post({ event: "order.filled", data: { order: { ...order, status: "Filled", resource: HOSTILE } } }))
        .status,
    ).toBe(200);
    const filled = await waitFor(() => alerts().find((message) => message.text!.includes("filled")));
    expect(filled.text).toContain(`Delivered 65,000 ${HOSTILE}`);
    expectAllLiteral(9106);
  });
});
