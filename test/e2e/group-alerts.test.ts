import { describe, expect, it } from "vitest";
import { ADDRESS_A, buttonLabels, callbackAnswerText, manageWorld, type World } from "../kit/world";
import { markKeyBroken } from "#src/db/repos/credentials";
import { botTexts, buyThroughBot, linkedUser, outboxSwept, waitFor } from "../kit/push-helpers";
import { groupTexts, linkGroup, teamGroup } from "../kit/group-helpers";

const filled = (id: string) => ({
  event: "order.filled",
  data: { id, status: "Filled", resource: "energy", volume: "65000", totalTrx: "4.6475", targetAddress: ADDRESS_A },
});
const failed = (id: string) => ({ event: "order.failed", data: { id, status: "Failed", totalTrx: "4.6475" } });

/**
 * Team alerts, copied: the alerts a member chose reach their group naming them, without a button
 * that spends; Pause and Resume there act for the owner alone; several members share one group,
 * one event is one message in it; the private alerts go on as before.
 */
describe("team alerts: alerts copied into the group", () => {
  let world: World;
  manageWorld((started) => (world = started));

  const groupBotMessages = (chatId: number) => world.fake.messages(chatId).filter((message) => message.from === "bot");

  it("a filled and a failed order reach the group naming the owner (escaped), with no spending button; the private alerts are unchanged", async () => {
    const who = await linkedUser(world, 4511);
    const owner = world.user(4511, { firstName: "Ann <&> Co" });
    const group = teamGroup(world, [owner]);
    await linkGroup(world, owner, group);
    await who.post(filled("45110000-0000-4000-8000-000000000001"));
    await who.post(failed("45110000-0000-4000-8000-000000000002"));
    await waitFor(() => groupTexts(world, group.id).filter((text) => text.includes("Order 45110000")).length === 2);
    const [filledCopy, failedCopy] = groupBotMessages(group.id).filter((message) =>
      message.text?.includes("Order 45110000"),
    );
    expect(filledCopy!.text).toMatch(/^👤 Ann <&> Co\n✅ Order 45110000 filled\./);
    expect(filledCopy!.html).toContain("Ann &lt;&amp;&gt; Co");
    expect(failedCopy!.text).toMatch(/^👤 Ann <&> Co\n❌ Order 45110000 failed\./);
    expect(buttonLabels(filledCopy!)).toEqual([]);
    expect(buttonLabels(failedCopy!)).toEqual([]);
    // Privately, as before: no name line, and Buy again where it was.
    await waitFor(() => botTexts(world, 4511).filter((text) => text.includes("Order 45110000")).length === 2);
    const privateFilled = world.fake
      .messages(4511)
      .find((message) => message.from === "bot" && message.text?.includes("Order 45110000 filled"))!;
    expect(privateFilled.text).not.toContain("Ann");
    expect(buttonLabels(privateFilled)).toContain("Buy again");
  });

  it("two members send their alerts to one group; an event both see is one message there; switched-off kinds stay out", async () => {
    const a = await linkedUser(world, 4512);
    const b = await linkedUser(world, 4513);
    const group = teamGroup(world, [a.user, b.user]);
    await linkGroup(world, a.user, group);
    const cardB = await linkGroup(world, b.user, group);
    world.fake.pressButtonByLabel(b.user.user, "✅ Order failed", { messageId: cardB.messageId });
    await waitFor(
      async () =>
        Number(
          (
            await world.app.db
              .selectFrom("group_links")
              .select("copy_failed")
              .where("telegram_id", "=", 4513)
              .executeTakeFirst()
          )?.copy_failed,
        ) === 0,
    );
    await a.post(filled("45120000-0000-4000-8000-000000000001"));
    await b.post(filled("45130000-0000-4000-8000-000000000001"));
    await b.post(failed("45130000-0000-4000-8000-000000000002"));
    // The same order seen by both members (one key linked twice): one message in the group.
    await a.post(filled("45199999-0000-4000-8000-000000000001"));
    await b.post(filled("45199999-0000-4000-8000-000000000001"));
    await outboxSwept(world);
    const texts = groupTexts(world, group.id);
    expect(texts.filter((text) => text.includes("Order 45120000")).map((text) => text.split("\n")[0])).toEqual([
      "👤 User4512",
    ]);
    expect(texts.filter((text) => text.includes("Order 45130000 filled")).map((text) => text.split("\n")[0])).toEqual([
      "👤 User4513",
    ]);
    expect(texts.some((text) => text.includes("Order 45130000 failed"))).toBe(false);
    expect(texts.filter((text) => text.includes("Order 45199999"))).toHaveLength(1);
    // Each member still got their own private alert of the shared order.
    expect(botTexts(world, 4512).filter((text) => text.includes("Order 45199999"))).toHaveLength(1);
    expect(botTexts(world, 4513).filter((text) => text.includes("Order 45199999"))).toHaveLength(1);
  });

  it("a rule paused by the system reaches the group with Resume only; anyone but the owner gets a toast and nothing changes; the owner's press resumes it", async () => {
    const who = await linkedUser(world, 4514);
    const colleague = world.user(4515);
    const group = teamGroup(world, [who.user], { members: [colleague] });
    await linkGroup(world, who.user, group);
    const rule = await world.app.deps.marketplace(() => who.apiKey).createSmart({ targetAddress: ADDRESS_A });
    world.sandbox.control.systemPauseRule({ ruleId: rule.id });
    await world.app.push.pollNow();
    const copy = await waitFor(() =>
      groupBotMessages(group.id).find((message) => message.text?.includes(rule.id.slice(0, 8))),
    );
    expect(copy.text).toContain("👤 User4514");
    expect(buttonLabels(copy)).toEqual(["▶️ Resume"]);
    const privateAlert = await waitFor(() =>
      world.fake
        .messages(4514)
        .find((message) => message.from === "bot" && message.text?.includes(rule.id.slice(0, 8))),
    );
    expect(buttonLabels(privateAlert)).toContain("💳 Top up");

    const resume = copy.replyMarkup!.inline_keyboard[0]![0]!.callback_data!;
    const pressed = world.fake.pressButton(colleague.user, copy.messageId, resume, { chatId: group.id });
    expect(await callbackAnswerText(world, pressed.callbackQueryId)).toBe(
      "Only User4514 can pause or resume this rule.",
    );
    await world.settled();
    expect(
      world.sandbox.control
        .listRules(who.accountId)
        .find((candidate) => candidate.id === rule.id)
        ?.status.toLowerCase(),
    ).toBe("paused");

    const byOwner = world.fake.pressButton(who.user.user, copy.messageId, resume, { chatId: group.id });
    expect(await callbackAnswerText(world, byOwner.callbackQueryId)).toBe("Rule resumed.");
    expect(
      world.sandbox.control
        .listRules(who.accountId)
        .find((candidate) => candidate.id === rule.id)
        ?.status.toLowerCase(),
    ).toBe("active");
    const edited = await waitFor(() => {
      const now = world.fake.messages(group.id).find((message) => message.messageId === copy.messageId);
      return now && buttonLabels(now)[0] === "⏸ Pause" && now;
    });
    const pause = edited.replyMarkup!.inline_keyboard[0]![0]!.callback_data!;
    const notOwnerPause = world.fake.pressButton(colleague.user, copy.messageId, pause, { chatId: group.id });
    expect(await callbackAnswerText(world, notOwnerPause.callbackQueryId)).toContain("Only User4514");
    expect(
      world.sandbox.control
        .listRules(who.accountId)
        .find((candidate) => candidate.id === rule.id)
        ?.status.toLowerCase(),
    ).toBe("active");

    // The marketplace refusing the owner's press: said in the toast, the rule and the button as they were.
    world.sandbox.control.injectFault({
      method: "POST",
      pathPrefix: `/api/v1/automations/${rule.id}/pause`,
      status: 400,
      times: 1,
      body: { type: "about:blank", title: "Bad Request", status: 400 },
    });
    const refused = world.fake.pressButton(who.user.user, copy.messageId, pause, { chatId: group.id });
    expect(await callbackAnswerText(world, refused.callbackQueryId)).toBe(
      "The marketplace did not accept that. Try again from /rules in private.",
    );
    expect(
      world.sandbox.control
        .listRules(who.accountId)
        .find((candidate) => candidate.id === rule.id)
        ?.status.toLowerCase(),
    ).toBe("active");
    // The owner's key refused by the marketplace since (marked broken): the press says so and changes nothing.
    await markKeyBroken(world.app.db, 4514, Date.now());
    const keyless = world.fake.pressButton(who.user.user, copy.messageId, pause, { chatId: group.id });
    expect(await callbackAnswerText(world, keyless.callbackQueryId)).toBe(
      "The owner's API key is not linked any more.",
    );
    expect(
      world.sandbox.control
        .listRules(who.accountId)
        .find((candidate) => candidate.id === rule.id)
        ?.status.toLowerCase(),
    ).toBe("active");
  });

  it("the toast a colleague gets names the owner as written (a toast is plain text, not HTML), within its 200 characters", async () => {
    const who = await linkedUser(world, 4518);
    const owner = world.user(4518, { firstName: "Tom & Jerry <3" });
    const colleague = world.user(4519);
    const group = teamGroup(world, [owner], { members: [colleague] });
    await linkGroup(world, owner, group);
    const rule = await world.app.deps.marketplace(() => who.apiKey).createSmart({ targetAddress: ADDRESS_A });
    world.sandbox.control.systemPauseRule({ ruleId: rule.id });
    await world.app.push.pollNow();
    const copy = await waitFor(() =>
      groupBotMessages(group.id).find((message) => message.text?.includes(rule.id.slice(0, 8))),
    );
    const resume = copy.replyMarkup!.inline_keyboard[0]![0]!.callback_data!;
    const pressed = world.fake.pressButton(colleague.user, copy.messageId, resume, { chatId: group.id });
    expect(await callbackAnswerText(world, pressed.callbackQueryId)).toBe(
      "Only Tom & Jerry <3 can pause or resume this rule.",
    );
    // A first name of 64 ampersands: escaped it would be 320 characters, past a toast's 200.
    await world.app.db
      .updateTable("group_links")
      .set({ owner_name: "&".repeat(64) })
      .where("telegram_id", "=", 4518)
      .execute();
    const again = world.fake.pressButton(colleague.user, copy.messageId, resume, { chatId: group.id });
    expect(await callbackAnswerText(world, again.callbackQueryId)).toBe(
      `Only ${"&".repeat(64)} can pause or resume this rule.`,
    );
    expect(
      world.sandbox.control
        .listRules(who.accountId)
        .find((candidate) => candidate.id === rule.id)
        ?.status.toLowerCase(),
    ).toBe("paused");
  });

  it("a price watch reaching its price and any other notification are copied too, without Buy now", async () => {
    const who = await linkedUser(world, 4516);
    const group = teamGroup(world, [who.user]);
    await linkGroup(world, who.user, group);
    who.user.send("/watch energy 65k 1h 2.5");
    await who.user.nextMessage();
    await world.app.push.checkPriceWatches();
    world.sandbox.control.setPrice({ resource: "energy", duration: "1h", sunPerUnit: 30 });
    expect(await world.app.push.checkPriceWatches()).toMatchObject({ fired: 1 });
    world.sandbox.control.addNotification({
      accountId: who.accountId,
      type: "system.maintenance",
      level: "info",
      title: "Maintenance <tonight>",
      body: "The marketplace pauses at 02:00.",
      link: null,
    });
    await world.app.push.pollNow();
    const price = await waitFor(() => groupBotMessages(group.id).find((message) => message.text?.includes("price")));
    expect(price.text).toMatch(/^👤 User4516\n/);
    expect(buttonLabels(price)).toEqual([]);
    const other = await waitFor(() =>
      groupBotMessages(group.id).find((message) => message.text?.includes("Maintenance <tonight>")),
    );
    expect(other.text).toMatch(/^👤 User4516\n/);
    // Privately, the same alert with its Buy now (and Auto-buy, which opens /autobuy filled in).
    const priceLine = price.text!.split("\n")[1]!;
    const privatePrice = await waitFor(() =>
      world.fake.messages(4516).find((message) => message.from === "bot" && message.text?.startsWith(priceLine)),
    );
    expect(buttonLabels(privatePrice)).toEqual(["🛒 Buy now", "🤖 Auto-buy"]);
  });

  it("the group's switches are its own: a price watch reaching its price is copied while the owner's private price alerts are off", async () => {
    const who = await linkedUser(world, 4510);
    const group = teamGroup(world, [who.user]);
    await linkGroup(world, who.user, group);
    who.user.send("/watch energy 65k 1h 2.5");
    await who.user.nextMessage();
    await world.app.push.checkPriceWatches();
    who.user.send("/settings");
    await who.user.nextMessage();
    who.user.press(/Price watches/);
    expect((await who.user.nextBotEvent()).message.text).toMatch(/Price watches: off/);
    world.sandbox.control.setPrice({ resource: "energy", duration: "1h", sunPerUnit: 30 });
    expect(await world.app.push.checkPriceWatches()).toMatchObject({ fired: 1 });
    const copy = await waitFor(() => groupBotMessages(group.id).find((message) => message.text?.includes("price")));
    expect(copy.text).toMatch(/^👤 User4510\n/);
    expect(buttonLabels(copy)).toEqual([]);
    await outboxSwept(world);
    // Privately nothing: the owner switched price alerts off there.
    expect(
      world.fake
        .messages(4510)
        .filter((message) => message.from === "bot" && buttonLabels(message).includes("🛒 Buy now")),
    ).toEqual([]);
  });

  it("an order the bot placed and followed (no webhook) is copied once, and a webhook of the same settlement adds nothing", async () => {
    const who = await linkedUser(world, 4517);
    const group = teamGroup(world, [who.user]);
    await linkGroup(world, who.user, group);
    const orderId = await buyThroughBot(world, who);
    world.sandbox.control.settleNow({ accountId: who.accountId });
    await world.app.push.checkOrdersNow(4517);
    await waitFor(() =>
      groupTexts(world, group.id).some((text) => text.includes(`Order ${orderId.slice(0, 8)} filled`)),
    );
    await who.post(filled(orderId));
    await world.app.push.checkOrdersNow(4517);
    await outboxSwept(world);
    expect(groupTexts(world, group.id).filter((text) => text.includes(`Order ${orderId.slice(0, 8)}`))).toHaveLength(1);
    expect(botTexts(world, 4517).filter((text) => text.includes(`Order ${orderId.slice(0, 8)} filled`))).toHaveLength(
      1,
    );
  });
});
