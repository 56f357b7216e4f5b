import { describe, expect, it } from "vitest";
import { buttonLabels, callbackAnswerText, linkKey, manageWorld, nextBotText, type World } from "../kit/world";
import { buyThroughBot, linkedUser, waitFor } from "../kit/push-helpers";
import type { ChatMessage } from "#src/telegram-fake/index";
import { BUY_AGAIN, CARD_CONFIRM, MAIN_MENU, ORDERS_PAGE, RULE_RESUME, WATCH_BUY } from "#src/chat/callback-data";
import { isSpendingButton } from "#src/chat/alerts";

/** Buy again: from a settled order's alert or its card in /orders to a repeat order in two taps, checked against the key linked now. */
describe("Buy again", () => {
  let world: World;
  // A file database: the references and cards must survive the restarts.
  manageWorld((started) => (world = started), { file: true });

  type Who = Awaited<ReturnType<typeof linkedUser>>;

  const isCard = (text: string) => text.includes("Confirm your order");
  const ordersOf = (who: Who) => world.sandbox.control.listOrders(who.accountId);
  const cardsOf = (who: Who) =>
    world.app.db
      .selectFrom("pending_actions")
      .select(["idempotency_key", "payload", "state"])
      .where("telegram_id", "=", who.user.user.id)
      .where("kind", "=", "order")
      .execute();

  /** The bot's newest message in the user's chat whose text passes `check` (edits included), once there is one. */
  const botMessage = (who: Who, check: (text: string) => boolean) =>
    waitFor(() =>
      world.fake
        .messages(who.user.user.id)
        .filter((message) => message.from === "bot" && !message.deleted && check(message.text ?? ""))
        .at(-1),
    );

  /** The settlement alert of `orderId` ("filled" or "failed"), once it arrived. */
  const alertOf = (who: Who, orderId: string, word: "filled" | "failed") =>
    botMessage(who, (text) => text.includes(`Order ${orderId.slice(0, 8)} ${word}`));

  /** A user whose order was bought through the bot and settled, with its alert sent by the sandbox's own webhook. */
  async function settledOrder(id: number, outcome: "filled" | "failed" = "filled") {
    const who = await linkedUser(world, id);
    world.sandbox.control.setWebhookUrl({ accountId: who.accountId, url: who.webhookUrl });
    if (outcome === "failed") world.sandbox.control.failNextOrder({ accountId: who.accountId, mode: "async" });
    const orderId = await buyThroughBot(world, who);
    world.sandbox.control.settleNow({ accountId: who.accountId });
    await world.sandbox.tick();
    const alert = await alertOf(who, orderId, outcome);
    return { who, orderId, alert };
  }

  /**
   * Presses `label` on `message`, counting the tap. A press the bot answers with an edit or a
   * message is what the next helper waits for.
   */
  function tapper(who: Who) {
    const taps = { count: 0 };
    const tap = (label: string, message: ChatMessage) => {
      taps.count += 1;
      return world.fake.pressButtonByLabel(who.user.user, label, { messageId: message.messageId });
    };
    return { taps, tap };
  }

  /** The repeat order's card after Buy again: the same values as `original`, a Confirm button. */
  async function expectRepeatCard(
    who: Who,
    original: { volume: unknown; duration: string; targetAddress: string },
  ): Promise<ChatMessage> {
    const card = await nextBotText(who.user, isCard);
    expect(card.text).toContain("Energy");
    expect(card.text).toContain(Number(original.volume).toLocaleString("en-US"));
    expect(card.text).toContain(original.duration);
    expect(card.text).toContain(original.targetAddress);
    expect(buttonLabels(card)).toContain("✅ Confirm");
    return card;
  }

  /** From `message`, Buy again then Confirm: the repeat order is placed, and it took two taps. */
  async function repeatInTwoTaps(who: Who, message: ChatMessage, orderId: string): Promise<void> {
    const { taps, tap } = tapper(who);
    tap("Buy again", message);
    const card = await expectRepeatCard(who, ordersOf(who)[0]!);
    tap("✅ Confirm", card);
    await expectRepeatPlaced(who, orderId);
    expect(taps.count).toBe(2);
  }

  /** After Confirm: the second order exists with the first one's values, under a new Idempotency-Key. */
  async function expectRepeatPlaced(who: Who, orderId: string): Promise<void> {
    await nextBotText(who.user, (text) => text.includes("Order placed"));
    const orders = await waitFor(() => ordersOf(who).length === 2 && ordersOf(who));
    const [repeat, first] = orders as [(typeof orders)[number], (typeof orders)[number]];
    expect(first.id).toBe(orderId);
    expect(repeat.id).not.toBe(orderId);
    expect({
      resource: repeat.resource,
      volume: String(repeat.volume),
      duration: repeat.duration,
      target: repeat.targetAddress,
    }).toEqual({
      resource: first.resource,
      volume: String(first.volume),
      duration: first.duration,
      target: first.targetAddress,
    });
    const keys = (await cardsOf(who)).map((card) => card.idempotency_key);
    expect(keys).toHaveLength(2);
    expect(new Set(keys).size).toBe(2);
  }

  it("from an order filled alert: Buy again, then Confirm places the same order again with a new key, two taps in all", async () => {
    const { who, orderId, alert } = await settledOrder(1501);
    expect(buttonLabels(alert)).toEqual(["Buy again"]);
    const data = alert.replyMarkup!.inline_keyboard[0]![0]!.callback_data!;
    expect(BUY_AGAIN.parse(data)).not.toBeNull();
    // The button carries a short reference, never the order id.
    expect(data).not.toContain(orderId.slice(0, 8));
    // Marked as spending, with Top up, Buy now and Confirm, so a group's copy never carries it; Resume and Back do not spend.
    expect(
      [data, MAIN_MENU.data("topup"), WATCH_BUY.data("AAAAAAAAAA"), CARD_CONFIRM.data("AAAAAAAAAA")].map(
        isSpendingButton,
      ),
    ).toEqual([true, true, true, true]);
    expect(
      [RULE_RESUME.data("AAAAAAAAAA"), ORDERS_PAGE.data(1), MAIN_MENU.data("orders")].map(isSpendingButton),
    ).toEqual([false, false, false]);
    await repeatInTwoTaps(who, alert, orderId);
  });

  it("from an order failed alert (found by the order follower): Buy again, then Confirm places it again", async () => {
    const who = await linkedUser(world, 1502);
    world.sandbox.control.failNextOrder({ accountId: who.accountId, mode: "async" });
    const orderId = await buyThroughBot(world, who);
    world.sandbox.control.settleNow({ accountId: who.accountId });
    expect(await world.app.push.checkOrdersNow(1502)).toBe(1);
    const alert = await alertOf(who, orderId, "failed");
    expect(alert.text).toContain("refunded");
    await repeatInTwoTaps(who, alert, orderId);
  });

  it("from a filled alert the notification poller made: Buy again opens the same order's card", async () => {
    const who = await linkedUser(world, 1510);
    const orderId = await buyThroughBot(world, who);
    // Not followed: the poll of the marketplace's notifications is the only path left.
    await world.app.db.deleteFrom("followed_orders").where("telegram_id", "=", 1510).execute();
    world.sandbox.control.settleNow({ accountId: who.accountId });
    await world.app.push.pollNow();
    const alert = await alertOf(who, orderId, "filled");
    world.fake.pressButtonByLabel(who.user.user, "Buy again", { messageId: alert.messageId });
    await expectRepeatCard(who, ordersOf(who)[0]!);
  });

  it("from an order's card in /orders: Buy again beside Back opens the card, Confirm places it", async () => {
    const who = await linkedUser(world, 1503);
    const orderId = await buyThroughBot(world, who);
    who.user.send("/orders");
    const list = await botMessage(who, (text) => text.includes("Your orders"));
    world.fake.pressButtonByLabel(who.user.user, /·/, { messageId: list.messageId });
    const detail = await waitFor(() =>
      world.fake
        .messages(1503)
        .find((message) => message.messageId === list.messageId && message.text?.includes(`Order ${orderId}`)),
    );
    expect(buttonLabels(detail)).toEqual(["Buy again", "⬅️ Back"]);
    await repeatInTwoTaps(who, detail, orderId);
  });

  it("survives restarts: before Buy again and between Buy again and Confirm", async () => {
    const { who, orderId, alert } = await settledOrder(1504);
    await world.restart();
    world.fake.pressButtonByLabel(who.user.user, "Buy again", { messageId: alert.messageId });
    const card = await expectRepeatCard(who, ordersOf(who)[0]!);
    await world.settled();
    await world.restart();
    world.fake.pressButtonByLabel(who.user.user, "✅ Confirm", { messageId: card.messageId });
    await expectRepeatPlaced(who, orderId);
  });

  it("with another key linked now (another account's, or another key of the same account): told so, nothing placed", async () => {
    const { who, alert } = await settledOrder(1505);
    const other = world.newAccount();
    await linkKey(world, who.user, other.apiKey);
    world.fake.pressButtonByLabel(who.user.user, "Buy again", { messageId: alert.messageId });
    const told = await nextBotText(who.user, (text) => text.includes("another key"));
    expect(told.text).toContain(`…${who.apiKey.slice(-4)}`);
    expect(told.text).toContain(`…${other.apiKey.slice(-4)}`);
    expect(told.text).toContain("nothing was ordered");

    const { apiKey: sameAccountKey } = world.sandbox.control.createKey({ accountId: who.accountId, scope: "purchase" });
    await linkKey(world, who.user, sameAccountKey);
    world.fake.pressButtonByLabel(who.user.user, "Buy again", { messageId: alert.messageId });
    await nextBotText(who.user, (text) => text.includes("another key") && text.includes(sameAccountKey.slice(-4)));
    await world.settled();
    expect(ordersOf(who)).toHaveLength(1);
    expect(world.sandbox.control.listOrders(other.accountId)).toHaveLength(0);
    expect(
      world.fake
        .messages(who.user.user.id)
        .some(
          (message) =>
            message.from === "bot" &&
            isCard(message.text ?? "") &&
            message.date >= alert.date &&
            message.messageId > alert.messageId,
        ),
    ).toBe(false);
  });

  it("with the same key linked again: told the button predates that link, nothing placed", async () => {
    const { who, alert } = await settledOrder(1506);
    world.shiftAppClock(1_000);
    await linkKey(world, who.user, who.apiKey);
    world.fake.pressButtonByLabel(who.user.user, "Buy again", { messageId: alert.messageId });
    await nextBotText(who.user, (text) => text.includes("linked again") && text.includes("nothing was ordered"));
    await world.settled();
    expect(ordersOf(who)).toHaveLength(1);
    expect((await cardsOf(who)).length).toBe(1);
  });

  it("when the marketplace no longer shows the order (404), or cannot answer (503): told so, nothing placed", async () => {
    const { who, alert } = await settledOrder(1507);
    world.sandbox.control.injectFault({
      method: "GET",
      pathPrefix: "/api/v1/orders/",
      status: 404,
      times: 1,
      body: { type: "about:blank", title: "Not Found", status: 404, code: "order.not_found" },
    });
    world.fake.pressButtonByLabel(who.user.user, "Buy again", { messageId: alert.messageId });
    const notFound = await nextBotText(who.user, (text) => text.includes("does not see this order"));
    expect(notFound.text).toContain(`…${who.apiKey.slice(-4)}`);
    world.sandbox.control.injectFault({ method: "GET", pathPrefix: "/api/v1/orders/", status: 503, times: 10 });
    world.fake.pressButtonByLabel(who.user.user, "Buy again", { messageId: alert.messageId });
    await nextBotText(who.user, (text) => text.includes("The marketplace is not answering right now"), 15_000);
    world.sandbox.control.clearFaults();
    await world.settled();
    expect(ordersOf(who)).toHaveLength(1);
    expect((await cardsOf(who)).length).toBe(1);
  });

  it("with the key gone (disconnected): told plainly, nothing placed", async () => {
    const { who, alert } = await settledOrder(1507);
    who.user.send("/disconnect");
    const ask = await nextBotText(who.user, (text) => text.includes("Forget the key"));
    world.fake.pressButtonByLabel(who.user.user, "✅ Confirm", { messageId: ask.messageId });
    await nextBotText(who.user, (text) => text.includes("Your key and stored data are deleted"));
    const requestsBefore = world.sandboxRequests.length;
    world.fake.pressButtonByLabel(who.user.user, "Buy again", { messageId: alert.messageId });
    const answer = await nextBotText(who.user, (text) => text.includes("No API key is linked now"));
    expect(answer.text).toContain("nothing was ordered");
    await world.settled();
    expect(ordersOf(who)).toHaveLength(1);
    expect(world.sandboxRequests.slice(requestsBefore)).toEqual([]);
  });

  it("crafted data gets 'no longer valid' and nothing else: an unknown reference, another user's, a malformed one", async () => {
    const first = await settledOrder(1508);
    const second = await linkedUser(world, 1509);
    const theirs = first.alert.replyMarkup!.inline_keyboard[0]![0]!.callback_data!;
    await world.settled();
    const chatCalls = (chatId: number) =>
      world.fake.calls.filter(
        (call) =>
          call.method !== "answerCallbackQuery" &&
          call.method !== "getUpdates" &&
          Number(call.params.chat_id) === chatId,
      ).length;
    const before = { first: chatCalls(1508), second: chatCalls(1509), requests: world.sandboxRequests.length };
    let forged = 0;
    /** A callback as a client could forge it: `keyboard` on the pressed message (date 0: a message Telegram no longer shows, sent without content). */
    const press = (who: Who, message: ChatMessage | null, data: string) => {
      const id = `forged-buy-again-${++forged}`;
      const { id: userId, firstName } = who.user.user;
      const chat = { id: userId, type: "private", first_name: firstName };
      world.fake.injectUpdate({
        callback_query: {
          id,
          from: { id: userId, is_bot: false, first_name: firstName, language_code: "en" },
          message: message
            ? {
                message_id: message.messageId,
                from: { id: 123456789, is_bot: true, first_name: "Energy Sandbox" },
                chat,
                date: message.date,
                text: message.text,
                reply_markup: { inline_keyboard: [[{ text: "Buy again", callback_data: data }]] },
              }
            : { message_id: 1, chat, date: 0 },
          chat_instance: "1",
          data,
        },
      });
      return callbackAnswerText(world, id);
    };
    const secondsMessage = await botMessage(second, () => true);
    expect(await press(first.who, first.alert, "ba:AAAAAAAAAA")).toContain("no longer valid");
    expect(await press(second, secondsMessage, theirs)).toContain("no longer valid");
    expect(await press(second, null, theirs)).toContain("no longer valid");
    expect(await press(first.who, first.alert, `ba:${"x".repeat(9)}!`)).toContain("no longer valid");
    await world.settled();
    expect({ first: chatCalls(1508), second: chatCalls(1509), requests: world.sandboxRequests.length }).toEqual(before);
    expect(ordersOf(first.who)).toHaveLength(1);
    expect(ordersOf(second)).toHaveLength(0);
  });
});
