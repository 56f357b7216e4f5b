import { describe, expect, it } from "vitest";
import {
  ADDRESS_A,
  ADDRESS_B,
  ADDRESS_C,
  linkKey,
  manageWorld,
  type World,
  nextBotText,
  cardOutcome,
  buttonLabels,
} from "../kit/world";

/** A TRON address anywhere in a string (base58, T and 33 more characters). */
const TRON_ADDRESS = /T[1-9A-HJ-NP-Za-km-z]{33}/;

describe("creating rules: guided renewal, refusals on Confirm, address buttons, renewal estimates", () => {
  let world: World;
  manageWorld((started) => (world = started));

  async function linked(
    id: number,
    options: { balance?: { trx: string; usdt: string }; scope?: "read" | "purchase" } = {},
  ) {
    const { accountId, apiKey } = world.newAccount(options.balance, options.scope ?? "purchase");
    const user = world.user(id);
    await linkKey(world, user, apiKey);
    return { accountId, apiKey, user };
  }

  /** Every callback_data the bot put on a keyboard in this chat (sent or edited), in order. */
  function callbackDataSent(chatId: number): string[] {
    const data: string[] = [];
    for (const call of world.fake.calls) {
      if (
        !["sendMessage", "editMessageText", "editMessageReplyMarkup", "sendPhoto"].includes(call.method) ||
        Number(call.params.chat_id) !== chatId
      )
        continue;
      const raw = call.params.reply_markup;
      const markup = (typeof raw === "string" ? JSON.parse(raw) : raw) as
        { inline_keyboard?: Array<Array<{ callback_data?: string }>> } | undefined;
      for (const button of markup?.inline_keyboard?.flat() ?? [])
        if (button.callback_data !== undefined) data.push(button.callback_data);
    }
    return data;
  }

  it("/newrule guided auto-renewal: kind, address, volume, auto-resume; Confirm creates exactly that rule", async () => {
    const { accountId, user } = await linked(701);
    user.send("/newrule");
    const kinds = await user.nextMessage();
    expect(kinds.text).toContain("Which kind of rule");
    expect(buttonLabels(kinds)).toEqual(["Auto-refill", "Auto-renewal", "Smart mode"]);
    user.press("Auto-renewal");
    expect((await user.nextMessage()).text).toContain("Which address");
    user.send(ADDRESS_B);
    const volume = await user.nextMessage();
    expect(volume.text).toContain("renewed each day");
    expect(volume.text).toContain("65,000 – 5,000,000");
    user.press("131,000");
    expect((await user.nextMessage()).text).toContain("resume by itself");
    user.press("Yes");
    const card = await user.nextMessage();
    for (const word of [
      "Auto-renewal",
      ADDRESS_B,
      "131,000",
      "Duration: 1d",
      "estimate",
      "once a day",
      "Auto-resume after a top-up: Yes",
    ])
      expect(card.text).toContain(word);
    // The options list a day, so the estimate needs no "priced for" caveat.
    expect(card.text).not.toContain("priced for");
    user.press("✅ Confirm");
    const created = await nextBotText(user, (text) => text.includes("Rule created"));
    const rules = world.sandbox.control.listRules(accountId);
    expect(rules).toHaveLength(1);
    expect(rules[0]).toMatchObject({
      type: "auto-renewal",
      targetAddress: ADDRESS_B,
      autoResume: true,
      status: "active",
    });
    expect(Number(rules[0]!.volume)).toBe(131000);
    expect(created.text).toContain(rules[0]!.id.slice(0, 8));
  });

  it("a 403 spend limit on Confirm of /smart says the daily limit is reached and creates nothing", async () => {
    const { accountId, user } = await linked(702);
    user.send(`/smart ${ADDRESS_A}`);
    const card = await user.nextMessage();
    // The sandbox checks spend limits on orders and firings only; the marketplace may refuse a creation too.
    world.sandbox.control.injectFault({
      method: "POST",
      pathPrefix: "/api/v1/automations",
      status: 403,
      body: {
        type: "about:blank",
        title: "Forbidden",
        status: 403,
        code: "api_key.spend_limit_exceeded",
        detail: "the daily spend limit of this key is reached",
      },
    });
    user.press("✅ Confirm");
    const refused = await cardOutcome(user);
    expect(refused.messageId).toBe(card.messageId);
    expect(refused.text).toContain("daily spend limit");
    expect(refused.text).not.toContain("Rule created");
    expect(buttonLabels(refused)).not.toContain("✅ Confirm");
    expect(world.sandbox.control.listRules(accountId)).toHaveLength(0);
  });

  it("a read-only key: Confirm of /refill says the key is read-only and creates nothing", async () => {
    const { accountId, user } = await linked(703, { scope: "read" });
    user.send(`/refill ${ADDRESS_A} 30k 65k 1h`);
    const card = await user.nextMessage();
    expect(card.text).toContain("Confirm the new rule");
    user.press("✅ Confirm");
    const refused = await cardOutcome(user);
    expect(refused.messageId).toBe(card.messageId);
    expect(refused.text).toContain("read-only");
    expect(refused.text).toContain("purchase scope");
    expect(world.sandbox.control.listRules(accountId)).toHaveLength(0);
    // The key still reads: it was not marked broken by a refusal about its scope.
    user.send("/rules");
    expect((await user.nextMessage()).text).toContain("Your automation rules");
  });

  it("the address step offers saved addresses by short reference: no callback data of the rule flows carries an address or exceeds 64 bytes", async () => {
    const { accountId, user } = await linked(704, { balance: { trx: "5000", usdt: "0" } });
    // Two rules made one-line save their addresses to the address book.
    for (const address of [ADDRESS_A, ADDRESS_C]) {
      user.send(`/smart ${address}`);
      await user.nextMessage();
      user.press("✅ Confirm");
      await nextBotText(user, (text) => text.includes("Rule created"));
      world.advance(1000);
    }

    user.send("/newrule");
    await user.nextMessage();
    user.press("Auto-refill");
    const addressStep = await user.nextMessage();
    expect(addressStep.text).toContain("Which address");
    expect(buttonLabels(addressStep)).toEqual(expect.arrayContaining(["TNPe…YqeL", "TLa2…YjU7"]));
    expect(JSON.stringify(addressStep.replyMarkup)).not.toMatch(TRON_ADDRESS);
    user.press("TLa2…YjU7");
    expect((await user.nextMessage()).text).toContain("falls below how much");
    user.send("40k");
    await user.nextMessage();
    user.press("65,000");
    await user.nextMessage();
    user.press("15m");
    await user.nextMessage();
    user.press("No");
    const card = await user.nextMessage();
    expect(card.text).toContain(ADDRESS_C);
    user.press("🔁 Auto-resume: No");
    await nextBotText(user, (text) => text.includes("Auto-resume after a top-up: Yes"));
    user.press("✅ Confirm");
    await nextBotText(user, (text) => text.includes("Rule created"));

    // Guided /renewal picks the other saved address by its button.
    user.send("/renewal");
    expect(buttonLabels(await user.nextMessage())).toContain("TNPe…YqeL");
    user.press("TNPe…YqeL");
    expect((await user.nextMessage()).text).toContain("renewed each day");
    user.press("65,000");
    await user.nextMessage();
    user.press("No");
    expect((await user.nextMessage()).text).toContain(ADDRESS_A);
    user.press("✖️ Cancel");
    await nextBotText(user, (text) => text.includes("Cancelled"));

    const refill = world.sandbox.control.listRules(accountId).find((rule) => rule.type === "auto-refill");
    expect(refill).toMatchObject({ targetAddress: ADDRESS_C, duration: "15m", autoResume: true });
    expect(Number(refill!.minimal)).toBe(40000);
    expect(world.sandbox.control.listRules(accountId)).toHaveLength(3);

    const data = callbackDataSent(user.user.id);
    expect(data.filter((item) => item.startsWith("a:@"))).toHaveLength(4);
    for (const item of data) {
      expect(item, item).not.toMatch(TRON_ADDRESS);
      expect(Buffer.byteLength(item), item).toBeLessThanOrEqual(64);
    }
  });

  it("another user's address reference picks nothing: the answer is refused as not an address", async () => {
    const { user: owner } = await linked(705);
    owner.send(`/smart ${ADDRESS_B}`);
    await owner.nextMessage();
    owner.press("✅ Confirm");
    await nextBotText(owner, (text) => text.includes("Rule created"));
    owner.send("/smart");
    const ownerStep = await owner.nextMessage();
    const ownerData = ownerStep.replyMarkup!.inline_keyboard.flat()[0]!.callback_data!;
    expect(ownerData).toMatch(/^a:@/);

    const { accountId, user: other } = await linked(706);
    other.send("/smart");
    expect((await other.nextMessage()).text).toContain("Which address");
    // The other user types the owner's reference as an answer.
    other.send(ownerData.slice(2));
    expect((await other.nextMessage()).text).toContain("not a TRON address");
    expect(world.sandbox.control.listRules(accountId)).toHaveLength(0);
  });

  it("renewal with automation options that list no '1d': the card is an estimate priced for the longest listed duration, and Confirm creates the rule", async () => {
    world.sandbox.control.setAutomationOptions({ durations: ["15m", "1h"] });
    const { accountId, apiKey, user } = await linked(707);
    user.send(`/renewal ${ADDRESS_A} 100k`);
    const card = await user.nextMessage();
    for (const word of [
      "Auto-renewal",
      ADDRESS_A,
      "100,000",
      "estimate",
      "priced for 1h",
      "Auto-resume after a top-up: No",
    ])
      expect(card.text).toContain(word);
    expect(buttonLabels(card)).toContain("✅ Confirm");
    // The figure is the marketplace's own preview of a 1h refill of that volume.
    const response = await fetch(
      `${world.marketplaceUrl}/api/v1/automations/preview?type=refill&volume=100000&duration=1h`,
      { headers: { "X-Api-Key": apiKey } },
    );
    expect(response.status).toBe(200);
    const preview = (await response.json()) as { priceTrx: string };
    expect(card.text).toContain(`(estimate): ${preview.priceTrx} TRX`);

    // The auto-resume toggle redraws the card from its stored figures: the caveat stays.
    user.press("🔁 Auto-resume: No");
    const toggled = await nextBotText(user, (text) => text.includes("Auto-resume after a top-up: Yes"));
    expect(toggled.text).toContain("priced for 1h");
    user.press("✅ Confirm");
    await nextBotText(user, (text) => text.includes("Rule created"));
    const rules = world.sandbox.control.listRules(accountId);
    expect(rules).toHaveLength(1);
    expect(rules[0]).toMatchObject({ type: "auto-renewal", targetAddress: ADDRESS_A, autoResume: true });
    expect(Number(rules[0]!.volume)).toBe(100000);
  });

  it("Top up on a System-pause alert opens /topup: the deposit address and its QR photo", async () => {
    const { accountId, apiKey, user } = await linked(708);
    const client = world.app.deps.marketplace(() => apiKey);
    const rule = await client.createSmart({ targetAddress: ADDRESS_A });
    world.sandbox.control.setBalance({ accountId, trx: "0" });
    expect(world.sandbox.control.fireRule({ ruleId: rule.id }).fired).toBe(false);
    await world.app.push.pollNow();
    const alert = await nextBotText(
      user,
      (text) => text.includes("paused") && text.includes(rule.id.slice(0, 8)),
      10_000,
    );
    expect(buttonLabels(alert)).toContain("💳 Top up");

    const response = await fetch(`${world.marketplaceUrl}/api/v1/wallet/deposit-address`, {
      headers: { "X-Api-Key": apiKey },
    });
    const deposit = (await response.json()) as { network: string; address: string };
    const photosBefore = world.fake.calls.filter((call) => call.method === "sendPhoto").length;
    user.press("💳 Top up");
    const details = await user.nextMessage();
    expect(details.text).toContain("Top up your balance");
    expect(details.html).toContain(`<code>${deposit.address}</code>`);
    expect(details.text).toContain(deposit.network);
    const photo = await user.nextMessage();
    expect(photo.photo).toBeDefined();
    expect(photo.caption).toContain(deposit.address);
    expect(world.fake.calls.filter((call) => call.method === "sendPhoto").length).toBe(photosBefore + 1);
    // The alert itself is left as it was, its Resume still there.
    expect(
      buttonLabels(world.fake.messages(user.user.id).find((message) => message.messageId === alert.messageId)!),
    ).toContain("▶️ Resume");
    expect(world.sandbox.control.listRules(accountId)[0]!.status).toBe("paused");
  });
});
