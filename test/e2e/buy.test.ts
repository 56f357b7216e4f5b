import { describe, expect, it, onTestFinished } from "vitest";
import {
  startWorld,
  linkKey,
  ADDRESS_A,
  ADDRESS_B,
  type World,
  manageWorld,
  callbackAnswerText,
  buttonLabels,
} from "../kit/world";

describe("/quote and /buy with an idempotent confirmation card", () => {
  let world: World;
  manageWorld((started) => (world = started), { file: true });

  const charges = (accountId: string) => world.sandbox.control.listOrders(accountId).length;

  it("/quote works for a user who never linked a key, and Buy this carries the values over", async () => {
    const user = world.user(301);
    user.send("/quote energy 65k 1h");
    const quote = await user.nextMessage();
    expect(quote.text).toContain("65,000");
    expect(quote.text).toMatch(/\d TRX/);
    expect(quote.text).toMatch(/sun per unit/);
    const { apiKey } = world.newAccount();
    await linkKey(world, user, apiKey);
    user.press(/Buy this/);
    const ask = await user.nextMessage();
    expect(ask.text).toContain("address");
    user.send(ADDRESS_A);
    const card = await user.nextMessage();
    expect(card.text).toContain("65,000");
    expect(card.text).toContain("1h");
    expect(card.text).toContain(ADDRESS_A);
  });

  it("guided /quote asks step by step with buttons", async () => {
    const user = world.user(302);
    user.send("/quote");
    expect((await user.nextMessage()).text).toContain("Which resource");
    user.press("Energy");
    expect((await user.nextMessage()).text).toContain("How much");
    user.send("lots");
    expect((await user.nextMessage()).text).toContain("could not read");
    user.send("1.5");
    expect((await user.nextMessage()).text).toContain("whole number");
    user.send("131K");
    expect((await user.nextMessage()).text).toContain("how long");
    user.press("1d");
    expect((await user.nextMessage()).text).toContain("131,000");
  });

  it("one-line /buy places exactly one order after a double tap on Confirm", async () => {
    const { accountId, apiKey } = world.newAccount();
    const user = world.user(303);
    await linkKey(world, user, apiKey);
    user.send(`/buy energy 65000 1h ${ADDRESS_A}`);
    const card = await user.nextMessage();
    for (const word of ["Energy", "65,000", "1h", ADDRESS_A, "Price", "commission", "Savings", "Total", "Balance"])
      expect(card.text).toContain(word);
    const first = user.press("✅ Confirm");
    const second = world.fake.pressButton(
      user.user,
      card.messageId,
      card.replyMarkup!.inline_keyboard[0]![0]!.callback_data as string,
    );
    expect(second.callbackQueryId).toBeTruthy();
    let placed;
    do placed = await user.nextBotEvent();
    while (!placed.message.text?.includes("Order placed"));
    expect(placed.message.text).toContain("Created");
    // Both presses answered and the bot idle: whatever either press was going to buy, it has.
    const answers = [
      await callbackAnswerText(world, first.callbackQueryId),
      await callbackAnswerText(world, second.callbackQueryId),
    ];
    await world.settled();
    expect(charges(accountId)).toBe(1);
    expect(answers.some((text) => /Already/.test(text))).toBe(true);
  });

  it("guided /buy resumes after a restart mid-flow and places one order", async () => {
    const { accountId, apiKey } = world.newAccount();
    const user = world.user(304);
    await linkKey(world, user, apiKey);
    user.send("/buy");
    expect((await user.nextMessage()).text).toContain("Which resource");
    user.press("Energy");
    const volumeStep = await user.nextMessage();
    expect(volumeStep.text).toContain("sends");
    user.press("65,000");
    await user.nextMessage();
    await world.restart();
    user.press("1h");
    expect((await user.nextMessage()).text).toContain("address");
    user.send("TNPeeaaFB7K9cmo4uQpcU32zGK8G1NYqeM");
    expect((await user.nextMessage()).text).toContain("checksum");
    user.send(ADDRESS_B);
    const card = await user.nextMessage();
    expect(card.text).toContain(ADDRESS_B);
    user.press("✅ Confirm");
    let placed;
    do placed = await user.nextBotEvent();
    while (!placed.message.text?.includes("Order placed"));
    expect(charges(accountId)).toBe(1);
    // the address is now offered as a shortcut
    user.send("/buy energy 65k 1h");
    const ask = await user.nextMessage();
    // a button carrying a short reference, never the address itself; pressing it picks the address
    expect(JSON.stringify(ask.replyMarkup)).not.toContain(ADDRESS_B);
    user.press("TR7N…Lj6t");
    expect((await user.nextMessage()).text).toContain(ADDRESS_B);
  });

  it("a Confirm that timed out shows 'check again'; after a restart Confirm reuses the key and charges once", async () => {
    await world.stop();
    const replacement = await startWorld({ file: true, env: { MARKETPLACE_TIMEOUT_MS: "300" } });
    world = replacement;
    onTestFinished(async () => {
      try {
        replacement.assertNoRejectedCalls();
      } finally {
        await replacement.stop();
      }
    });
    const { accountId, apiKey } = world.newAccount();
    const user = world.user(311);
    await linkKey(world, user, apiKey);
    user.send(`/buy energy 65000 1h ${ADDRESS_A}`);
    await user.nextMessage();
    // every attempt reaches the marketplace (and the first one charges) but answers too late
    world.sandbox.control.injectFault({ method: "POST", pathPrefix: "/api/v1/orders", delayMs: 600, times: 10 });
    // The automatic check reads the order list first: it answers too late as well.
    world.sandbox.control.injectFault({ method: "GET", pathPrefix: "/api/v1/orders", delayMs: 600, times: 10 });
    user.press("✅ Confirm");
    let event;
    do event = await user.nextBotEvent({ timeoutMs: 10_000 });
    while (event.message.text?.includes("Processing"));
    expect(event.message.text).toContain("check again");
    world.sandbox.control.clearFaults();
    // The late answers still arrive: every request the bot made has been answered.
    for (const deadline = Date.now() + 5_000; world.sandboxInFlight() > 0 && Date.now() < deadline;)
      await new Promise((r) => setTimeout(r, 20));
    expect(world.sandboxInFlight()).toBe(0);
    expect(charges(accountId)).toBe(1);
    await world.restart();
    user.press("✅ Confirm");
    do event = await user.nextBotEvent();
    while (event.message.text?.includes("Processing"));
    expect(event.message.text).toContain("Order placed");
    expect(charges(accountId)).toBe(1);
    expect(world.sandbox.control.listOrders(accountId)[0]!.id).toBe(
      /Order ([0-9a-f-]{36})/.exec(event.message.text ?? "")?.[1],
    );
  });

  it("a card older than 5 minutes asks to refresh the preview; Refresh gives a new card that can be confirmed", async () => {
    const { accountId, apiKey } = world.newAccount();
    const user = world.user(312);
    await linkKey(world, user, apiKey);
    user.send(`/buy energy 65000 1h ${ADDRESS_A}`);
    const card = await user.nextMessage();
    await world.app.db
      .updateTable("pending_actions")
      .set({ created_at: Date.now() - 6 * 60_000 })
      .execute();
    user.press("✅ Confirm");
    const stale = await user.nextBotEvent();
    expect(stale.message.messageId).toBe(card.messageId);
    expect(stale.message.text).toContain("5 minutes");
    expect(charges(accountId)).toBe(0);
    user.press(/Refresh/);
    const fresh = await user.nextMessage();
    expect(fresh.text).toContain("Total");
    user.press("✅ Confirm");
    let placed;
    do placed = await user.nextBotEvent();
    while (!placed.message.text?.includes("Order placed"));
    expect(charges(accountId)).toBe(1);
  });

  it("Cancel charges nothing", async () => {
    const { accountId, apiKey } = world.newAccount();
    const user = world.user(305);
    await linkKey(world, user, apiKey);
    user.send(`/buy bandwidth 5000 1h ${ADDRESS_A}`);
    await user.nextMessage();
    user.press("✖️ Cancel");
    const cancelled = await user.nextBotEvent();
    expect(cancelled.message.text).toContain("Cancelled");
    expect(charges(accountId)).toBe(0);
  });

  it("a short balance offers Top up instead of Confirm", async () => {
    const { apiKey } = world.newAccount({ trx: "0.5", usdt: "0" });
    const user = world.user(306);
    await linkKey(world, user, apiKey);
    user.send(`/buy energy 65000 1h ${ADDRESS_A}`);
    const card = await user.nextMessage();
    expect(card.text).toContain("short");
    const labels = card.replyMarkup!.inline_keyboard.flat().map((b) => b.text);
    expect(labels.join()).toContain("Top up");
    expect(labels.join()).not.toContain("Confirm");
  });

  it("each marketplace error gets its own message and next step", async () => {
    const user = world.user(307);
    const { accountId, apiKey } = world.newAccount();
    await linkKey(world, user, apiKey);
    const confirmWith = async (setup: () => void) => {
      user.send(`/buy energy 65000 1h ${ADDRESS_A}`);
      await user.nextMessage();
      setup();
      user.press("✅ Confirm");
      let event;
      do event = await user.nextBotEvent();
      while (event.message.text?.includes("Processing"));
      return event.message;
    };
    let result = await confirmWith(() => world.sandbox.control.setBalance({ accountId, trx: "1" }));
    expect(result.text).toContain("Not enough TRX");
    expect(JSON.stringify(result.replyMarkup)).toContain("Top up");
    world.sandbox.control.setBalance({ accountId, trx: "1000" });
    result = await confirmWith(() => world.sandbox.control.failNextOrder({ accountId, mode: "sync" }));
    expect(result.text).toContain("nothing was charged");
    expect(JSON.stringify(result.replyMarkup)).toContain("Try again");
    result = await confirmWith(() => world.sandbox.control.setSpendLimit({ apiKey, dailyLimitTrx: "0.000001" }));
    expect(result.text).toContain("daily spend limit");
    world.sandbox.control.setSpendLimit({ apiKey, dailyLimitTrx: null });
    result = await confirmWith(() =>
      world.sandbox.control.injectFault({
        method: "POST",
        pathPrefix: "/api/v1/orders",
        status: 422,
        body: { title: "Unprocessable", status: 422, detail: "volume must be a multiple of 1000" },
      }),
    );
    expect(result.text).toContain("volume must be a multiple of 1000");

    const reader = world.user(308);
    const readOnly = world.sandbox.control.createKey({ accountId, scope: "read" }).apiKey;
    await linkKey(world, reader, readOnly);
    reader.send(`/buy energy 65000 1h ${ADDRESS_A}`);
    await reader.nextMessage();
    reader.press("✅ Confirm");
    let event;
    do event = await reader.nextBotEvent();
    while (event.message.text?.includes("Processing"));
    expect(event.message.text).toContain("read-only");
  });

  it("a 402 on Confirm shows the current TRX balance beside Top up, and nothing is charged", async () => {
    const { accountId, apiKey } = world.newAccount();
    const user = world.user(313);
    await linkKey(world, user, apiKey);
    user.send(`/buy energy 65000 1h ${ADDRESS_A}`);
    const card = await user.nextMessage();
    world.sandbox.control.setBalance({ accountId, trx: "1.25" });
    user.press("✅ Confirm");
    let event;
    do event = await user.nextBotEvent();
    while (event.message.text?.includes("Processing"));
    expect(event.message.messageId).toBe(card.messageId);
    expect(event.message.text).toContain("Not enough TRX");
    expect(event.message.text).toContain("Balance: 1.25 TRX");
    expect(event.message.replyMarkup!.inline_keyboard.flat().map((b) => b.text)).toContain("💳 Top up");
    expect(charges(accountId)).toBe(0);
  });

  it("an out-of-bounds volume is answered with the bounds from the options endpoint", async () => {
    const user = world.user(309);
    await linkKey(world, user, world.newAccount().apiKey);
    user.send(`/buy energy 5 1h ${ADDRESS_A}`);
    const reply = await user.nextMessage();
    expect(reply.text).toContain("out of bounds");
    expect(reply.text).toMatch(/\d{1,3}(,\d{3})+/);
  });

  it("/orders pages through 12 orders; a card shows every field; stats match the sandbox", async () => {
    const { accountId, apiKey } = world.newAccount({ trx: "100000", usdt: "0" });
    const user = world.user(310);
    await linkKey(world, user, apiKey);
    const client = world.app.deps.marketplace(() => apiKey);
    for (let i = 0; i < 12; i++)
      await client.createOrder(
        { resource: "energy", targetAddress: ADDRESS_A, volume: 65000 + i * 1000, duration: "1h" },
        `k-${i}`,
      );
    world.sandbox.control.settleNow({ accountId });
    user.send("/orders");
    const first = await user.nextMessage();
    expect(first.text).toContain("page 1 of 3");
    expect(first.text).toContain("76,000");
    // The list's text and its buttons write the resource the same way.
    expect(first.text).toContain("76,000 Energy");
    expect(buttonLabels(first).some((label) => label.includes("76,000 Energy"))).toBe(true);
    expect(buttonLabels(first).some((label) => label.includes("000 energy"))).toBe(false);
    user.press(/Next/);
    expect((await user.nextBotEvent()).message.text).toContain("page 2 of 3");
    user.press(/Next/);
    const third = await user.nextBotEvent();
    expect(third.message.text).toContain("page 3 of 3");
    expect(third.message.text).toContain("65,000");
    user.press(/65,000/);
    const card = await user.nextBotEvent();
    for (const word of [
      "Status",
      "Energy",
      "65,000",
      "1h",
      ADDRESS_A,
      "Price",
      "Activation",
      "Total",
      "Transaction",
      "Created",
    ])
      expect(card.message.text).toContain(word);
    user.press(/Back/);
    await user.nextBotEvent();
    user.press(/Stats/);
    const stats = await user.nextBotEvent();
    expect(stats.message.text).toContain("Total orders: 12");
  });
});
