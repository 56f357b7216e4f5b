import { describe, expect, it } from "vitest";
import { buttonLabels, linkedUser, manageWorld, nextBotText, type World } from "../kit/world";
import { PUBLIC_URL, ruleInChat } from "../kit/miniapp";
import { linkGroup, teamGroup } from "../kit/group-helpers";
import type { ChatMessage } from "#src/telegram-fake/index";

/** The redraws run in the background, after the change's own update: given time on a loaded machine. */
const SOON = { timeout: 5_000 };

const shownNow = (world: World, chatId: number, messageId: number) =>
  world.fake.messages(chatId).find((message) => message.messageId === messageId)!;

/** The second card of the user's only rule: /rules, then the rule's button on the list. */
async function secondCard(world: World, user: Awaited<ReturnType<typeof linkedUser>>["user"]): Promise<ChatMessage> {
  user.send("/rules");
  const list = await nextBotText(user, (text) => text.includes("Your automation rules"));
  const [ruleButton] = buttonLabels(list);
  world.fake.pressButtonByLabel(user.user, ruleButton!, { messageId: list.messageId });
  return nextBotText(user, (text) => text.includes("Deliveries") || /rule\s+[0-9a-f]{8}/i.test(text));
}

/**
 * A chat may show a rule in several cards (the card of its creation, one opened from /rules, an
 * alert turned into a card). When the rule changes, wherever that happens, every open card of it
 * is redrawn as it is now: no two cards of one rule disagree.
 */
describe("every open card of a rule follows a change of the rule", () => {
  let world: World;
  manageWorld((started) => (world = started), { env: { PUBLIC_URL } });

  it("Pause on one card redraws the chat's other card of the rule; Resume and Cancel on that one redraw the first", async () => {
    const { user } = await linkedUser(world, 4801);
    const first = await ruleInChat(user);
    const second = await secondCard(world, user);
    expect(second.messageId).not.toBe(first.messageId);
    expect(buttonLabels(second)).toContain("⏸ Pause");

    world.fake.pressButtonByLabel(user.user, "⏸ Pause", { messageId: second.messageId });
    await expect.poll(() => buttonLabels(shownNow(world, 4801, second.messageId)), SOON).toContain("▶️ Resume");
    await expect.poll(() => buttonLabels(shownNow(world, 4801, first.messageId)), SOON).toContain("▶️ Resume");
    expect(shownNow(world, 4801, first.messageId).text).toContain("paused");

    world.fake.pressButtonByLabel(user.user, "▶️ Resume", { messageId: first.messageId });
    await expect.poll(() => buttonLabels(shownNow(world, 4801, second.messageId)), SOON).toContain("⏸ Pause");
    expect(shownNow(world, 4801, second.messageId).text).toContain("active");

    // Cancel asks first: the question leaves the other card alone (the rule did not change) ...
    const edits = () => world.fake.calls.filter((call) => call.method === "editMessageText").length;
    const before = edits();
    world.fake.pressButtonByLabel(user.user, /Cancel rule/, { messageId: first.messageId });
    await expect.poll(() => shownNow(world, 4801, first.messageId).text, SOON).toMatch(/cancel/i);
    await world.settled();
    expect(edits()).toBe(before + 1);
    expect(buttonLabels(shownNow(world, 4801, second.messageId))).toContain("⏸ Pause");
    // ... and the cancellation redraws it.
    world.fake.pressButtonByLabel(user.user, /Confirm/, { messageId: first.messageId });
    await expect.poll(() => shownNow(world, 4801, second.messageId).text, SOON).toContain("cancelled");
    expect(buttonLabels(shownNow(world, 4801, second.messageId))).not.toContain("⏸ Pause");
  });

  it("a rule the marketplace paused: every open card of it shows it paused", async () => {
    const { user, accountId } = await linkedUser(world, 4802);
    const first = await ruleInChat(user);
    const second = await secondCard(world, user);
    const [rule] = world.sandbox.control.listRules(accountId);
    world.sandbox.control.systemPauseRule({ ruleId: rule!.id });
    await world.app.push.pollNow();
    for (const card of [first, second]) {
      await expect.poll(() => buttonLabels(shownNow(world, 4802, card.messageId)), SOON).toContain("▶️ Resume");
      expect(shownNow(world, 4802, card.messageId).text).toContain("paused");
    }
  });

  it("Resume under the team group's copy of the alert redraws the owner's open cards of the rule", async () => {
    const { user, accountId } = await linkedUser(world, 4803);
    const group = teamGroup(world, [user]);
    await linkGroup(world, user, group);
    const card = await ruleInChat(user);
    const [rule] = world.sandbox.control.listRules(accountId);
    world.sandbox.control.systemPauseRule({ ruleId: rule!.id });
    await world.app.push.pollNow();
    await expect.poll(() => buttonLabels(shownNow(world, 4803, card.messageId)), SOON).toContain("▶️ Resume");
    const groupCopy = () =>
      world.fake
        .messages(group.id)
        .find((message) => message.from === "bot" && message.text?.includes(rule!.id.slice(0, 8)));
    await expect.poll(groupCopy, SOON).toBeDefined();
    const copy = groupCopy()!;
    const resume = copy.replyMarkup!.inline_keyboard[0]![0]!.callback_data!;
    world.fake.pressButton(user.user, copy.messageId, resume, { chatId: group.id });
    await expect.poll(() => buttonLabels(shownNow(world, 4803, card.messageId)), SOON).toContain("⏸ Pause");
    expect(shownNow(world, 4803, card.messageId).text).toContain("active");
  });
});
