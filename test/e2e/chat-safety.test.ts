import { describe, expect, it } from "vitest";
import {
  ADDRESS_A,
  callbackAnswerText,
  cardOutcome,
  linkedUser,
  manageWorld,
  nextBotText,
  type World,
} from "../kit/world";

/**
 * What a user can do in the chat that must never cost money or expose a key: buy the same rent
 * twice, answer an old /disconnect question, capitalise /Connect, send the key as a caption.
 */
describe("the chat keeps money and keys safe", () => {
  let world: World;
  manageWorld((started) => (world = started), { allowRejectedCalls: true });

  const linked = (id: number) => linkedUser(world, id);

  it("a second identical purchase whose order call failed is never reported as the first card's order", async () => {
    const { accountId, user } = await linked(9601);
    user.send(`/buy energy 65000 1h ${ADDRESS_A}`);
    await user.nextMessage();
    user.press("✅ Confirm");
    const first = await cardOutcome(user);
    expect(first.text).toContain("Order placed");
    const [placed] = world.sandbox.control.listOrders(accountId);
    expect(placed).toBeDefined();

    user.send(`/buy energy 65000 1h ${ADDRESS_A}`);
    await user.nextMessage();
    world.sandbox.control.injectFault({
      method: "POST",
      pathPrefix: "/api/v1/orders",
      status: 503,
      body: { title: "Service Unavailable", status: 503 },
      times: 40,
    });
    user.press("✅ Confirm");
    const second = await nextBotText(
      user,
      (text) => !text.includes("Processing") && !text.includes("checking"),
      15_000,
    );
    world.sandbox.control.clearFaults();
    expect(second.text).not.toContain(placed!.id);
    expect(second.text).not.toContain("Order placed");
    expect(second.text).toContain("could not confirm the result");
    expect(world.sandbox.control.listOrders(accountId)).toHaveLength(1);
    // Confirm again once the marketplace answers: the second card places its own order, once.
    user.press("✅ Confirm");
    const placedNow = await nextBotText(user, (text) => text.includes("Order placed"), 15_000);
    const orders = world.sandbox.control.listOrders(accountId);
    expect(orders).toHaveLength(2);
    const second2 = orders.find((candidate) => candidate.id !== placed!.id)!;
    expect(placedNow.text).toContain(second2.id);
  });

  it("Confirm under a /disconnect question asked about an earlier key forgets nothing", async () => {
    const { user } = await linked(9602);
    user.send("/disconnect");
    const ask = await user.nextMessage();
    expect(ask.text).toMatch(/Forget the key …/);
    const other = world.newAccount();
    user.send(`/connect ${other.apiKey}`);
    await nextBotText(user, (text) => text.includes(`…${other.apiKey.slice(-4)} linked`));
    const pressed = world.fake.pressButton(
      user.user,
      ask.messageId,
      ask.replyMarkup!.inline_keyboard[0]![0]!.callback_data!,
    );
    expect(await callbackAnswerText(world, pressed.callbackQueryId)).toContain("no longer valid");
    await world.settled();
    user.send("/start");
    expect((await nextBotText(user, (text) => text.includes("Welcome") || text.includes("linked"))).text).toContain(
      `…${other.apiKey.slice(-4)}`,
    );
    expect(
      await world.app.db.selectFrom("credentials").selectAll().where("telegram_id", "=", 9602).execute(),
    ).toHaveLength(1);
  });

  it("/Connect with a key, capitalised as phone keyboards type it, is deleted at once and links the key; /BUY is /buy", async () => {
    const user = world.user(9603);
    const { apiKey } = world.newAccount();
    const sent = user.send(`/Connect ${apiKey}`);
    const linkedReply = await nextBotText(user, (text) => text.includes("linked"));
    expect(linkedReply.text).toContain(`…${apiKey.slice(-4)}`);
    expect(world.fake.messages(user.user.id).find((message) => message.messageId === sent.messageId)!.deleted).toBe(
      true,
    );
    expect(world.logs()).not.toContain(apiKey);
    user.send(`/BUY energy 65000 1h ${ADDRESS_A}`);
    expect((await user.nextMessage()).text).toContain("Total:");
  });

  it("in the key step, a key sent as a photo's caption is deleted at once and read as the key", async () => {
    const user = world.user(9604);
    user.send("/connect");
    expect((await user.nextMessage()).text).toContain("Send me your marketplace API key");
    const { apiKey } = world.newAccount();
    const { id, firstName } = user.user;
    world.fake.injectUpdate({
      message: {
        message_id: 9001,
        from: { id, is_bot: false, first_name: firstName, language_code: "en" },
        chat: { id, type: "private", first_name: firstName },
        date: Math.floor(Date.now() / 1000),
        photo: [{ file_id: "p1", file_unique_id: "p1u", width: 10, height: 10 }],
        caption: apiKey,
      },
    });
    expect((await nextBotText(user, (text) => text.includes("linked"))).text).toContain(`…${apiKey.slice(-4)}`);
    expect(world.fake.calls.some((call) => call.method === "deleteMessage" && call.params.message_id === 9001)).toBe(
      true,
    );
  });
});
