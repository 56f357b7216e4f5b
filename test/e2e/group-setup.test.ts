import { describe, expect, it } from "vitest";
import { buttonLabels, callbackAnswerText, linkedUser, manageWorld, nextBotText, type World } from "../kit/world";
import { groupLinkOf, groupTexts, linkGroup, teamGroup } from "../kit/group-helpers";
import { waitFor } from "../kit/push-helpers";
import { GROUP_ANSWER_EVERY_MS } from "#src/bot/features/group/in-group";

/**
 * Team alerts, set up: /group shows Telegram's own chat picker, the picked group is checked with
 * getChatMember (the user an admin, the bot a member) before it is stored, the card switches kinds
 * of alerts and Stop group alerts ends the link; /disconnect forgets it; in a group, /group says
 * whose alerts come there and every other command gets the private-only answer.
 */
describe("team alerts: setting up /group", () => {
  let world: World;
  manageWorld((started) => (world = started));

  it("/group offers Telegram's chat picker; the picked group is checked, stored and shown with its switches", async () => {
    const { user } = await linkedUser(world, 4501);
    const group = teamGroup(world, [user], { title: "Ops <team>" });
    user.send("/group");
    const intro = await nextBotText(user, (text) => text.includes("Team alerts"));
    expect(intro.text).toContain("Add to a group");
    expect(await nextBotText(user, (text) => text.includes("pick the group"))).toBeDefined();
    const send = world.fake.calls
      .filter((call) => call.method === "sendMessage" && call.params.chat_id === 4501)
      .at(-1)!;
    const markup = (
      typeof send.params.reply_markup === "string" ? JSON.parse(send.params.reply_markup) : send.params.reply_markup
    ) as { keyboard: Array<Array<{ text: string; request_chat: Record<string, unknown> }>> };
    const button = markup.keyboard[0]![0]!;
    expect(button.text).toBe("Choose a group");
    expect(button.request_chat).toMatchObject({ chat_is_channel: false, bot_is_member: true, request_title: true });
    expect(button.request_chat.user_administrator_rights).toBeTypeOf("object");

    world.fake.shareChat(user.user, group.id);
    const linked = await nextBotText(user, (text) => text.includes("Linked"));
    expect(linked.text).toContain("Ops <team>");
    const card = await nextBotText(user, (text) => text.includes("copied to"));
    expect(buttonLabels(card)).toEqual([
      "✅ Order filled",
      "✅ Order failed",
      "✅ Rule paused",
      "✅ Price watch",
      "✅ Other notifications",
      "Choose a group",
      "Stop group alerts",
      "➕ Add to a group",
    ]);
    const checks = world.fake.calls.filter(
      (call) => call.method === "getChatMember" && call.params.chat_id === group.id,
    );
    expect(checks.map((call) => Number(call.params.user_id))).toEqual([123456789, 4501]);
    const link = await groupLinkOf(world, 4501);
    expect(Number(link?.group_chat_id)).toBe(group.id);
    expect(link?.owner_name).toBe("User4501");
  });

  it("/group is in the command menu and in /help, in every language", async () => {
    await waitForCommands();
    for (const language of ["en", "ru", "zh"])
      expect(world.fake.commands(language).map((command) => command.command)).toContain("group");
    const user = world.user(4509);
    user.send("/help");
    const help = await nextBotText(user, (text) => text.includes("/group"));
    expect(help.text).toContain("/group — team alerts: copy your alerts into a group");
  });

  it("a group where the bot is not a member, or the user no admin, is refused with the reason", async () => {
    const { user } = await linkedUser(world, 4502);
    const other = world.user(4503);
    const withoutBot = teamGroup(world, [user], { bot: "left" });
    user.send("/group");
    await nextBotText(user, (text) => text.includes("pick the group"));
    // The picker lists neither; a group can change between the picker and the answer.
    world.fake.shareChat(user.user, withoutBot.id, { unchecked: true });
    await nextBotText(user, (text) => text.includes("I am not a member of that group"));
    const notAdmin = teamGroup(world, [other], { members: [user] });
    user.send("/group");
    await nextBotText(user, (text) => text.includes("pick the group"));
    world.fake.shareChat(user.user, notAdmin.id, { unchecked: true });
    await nextBotText(user, (text) => text.includes("You are not an admin of that group"));
    expect(await groupLinkOf(world, 4502)).toBeUndefined();
    // The picker itself lists only groups where the user is an admin and the bot a member.
    user.send("/group");
    await nextBotText(user, (text) => text.includes("pick the group"));
    expect(() => world.fake.shareChat(user.user, notAdmin.id)).toThrow(/not an admin/);
    // The bot a member there but restricted from sending: refused with what to change.
    const muted = teamGroup(world, [user]);
    Object.assign(world.fake.group(muted.id)!, { botStatus: "restricted", botCanSend: false });
    user.send("/group");
    await nextBotText(user, (text) => text.includes("pick the group"));
    world.fake.shareChat(user.user, muted.id);
    await nextBotText(user, (text) => text.includes("may not send messages there"));
    expect(await groupLinkOf(world, 4502)).toBeUndefined();
  });

  it("the switches choose what is copied; Stop group alerts ends the link", async () => {
    const { user } = await linkedUser(world, 4504);
    const group = teamGroup(world, [user]);
    const card = await linkGroup(world, user, group);
    world.fake.pressButtonByLabel(user.user, "✅ Price watch", { messageId: card.messageId });
    const edited = await nextBotText(user, (text) => text.includes("copied to"));
    expect(buttonLabels(edited)).toContain("▫️ Price watch");
    expect(Number((await groupLinkOf(world, 4504))?.copy_prices)).toBe(0);
    expect(Number((await groupLinkOf(world, 4504))?.copy_filled)).toBe(1);
    user.send("/group");
    const again = await nextBotText(user, (text) => text.includes("copied to"));
    expect(again.text).not.toContain("Price watch");
    world.fake.pressButtonByLabel(user.user, "Stop group alerts", { messageId: again.messageId });
    await nextBotText(user, (text) => text.includes("Group alerts stopped"));
    expect(await groupLinkOf(world, 4504)).toBeUndefined();
  });

  it("/disconnect forgets the group link with the rest of the user's data", async () => {
    const { user } = await linkedUser(world, 4505);
    await linkGroup(world, user, teamGroup(world, [user]));
    user.send("/disconnect");
    const ask = await nextBotText(user, (text) => text.includes("Forget the key"));
    world.fake.pressButtonByLabel(user.user, "✅ Confirm", { messageId: ask.messageId });
    await nextBotText(user, (text) => text.includes("Your key and stored data are deleted"));
    expect(await groupLinkOf(world, 4505)).toBeUndefined();
  });

  it("in a group, /group names whose alerts come here; any other command gets the private-only answer", async () => {
    const a = (await linkedUser(world, 4506)).user;
    const b = world.user(4507, { firstName: "Bo<b>" });
    await linkedUserFor(b);
    const group = teamGroup(world, [a, b]);
    world.fake.sendText(a.user, "/group", { groupId: group.id });
    await waitForGroupText(group.id, "No member's alerts come here yet");
    await linkGroup(world, a, group);
    await linkGroup(world, b, group);
    world.fake.sendText(b.user, "/group@sandbox_energy_bot", { groupId: group.id });
    const list = await waitForGroupText(group.id, "Alerts of these members come here");
    expect(list).toContain("User4506");
    expect(list).toContain("Bo<b>");
    // The same member again within half a minute: not answered (each answer takes one of the group's turns); later, answered.
    const answers = () =>
      groupTexts(world, group.id).filter((text) => text.includes("Alerts of these members come here")).length;
    world.fake.sendText(b.user, "/group", { groupId: group.id });
    await world.settled();
    expect(answers()).toBe(1);
    world.shiftAppClock(GROUP_ANSWER_EVERY_MS);
    world.fake.sendText(b.user, "/group", { groupId: group.id });
    await waitFor(() => answers() === 2, 10_000);
    world.fake.sendText(a.user, "/start", { groupId: group.id });
    await waitForGroupText(group.id, "works in private chats only");
    // The group's own chat keeps the private-only answer for /buy too (once an hour: not repeated).
    const count = groupTexts(world, group.id).length;
    world.fake.sendText(a.user, "/buy", { groupId: group.id });
    await world.settled();
    expect(groupTexts(world, group.id)).toHaveLength(count);
  });

  it("the bot added to a group greets it once with how team alerts are set up; the join's service message gets no private-only answer", async () => {
    const a = world.user(4515);
    const group = teamGroup(world, [a], { bot: "left" });
    world.fake.addBotToGroup(group.id, a.user);
    const welcome = await waitForGroupText(group.id, "sends /group to me in a private chat");
    expect(welcome).toContain("copy team members' alerts here");
    await world.settled();
    expect(groupTexts(world, group.id)).toEqual([welcome]);
    // Removed and added again: greeted again (the link, if any, ended meanwhile).
    world.fake.removeBotFromGroup(group.id, a.user, "kicked");
    await world.settled();
    world.fake.addBotToGroup(group.id, a.user);
    // The group's own pace (a turn every 3.3 s) may hold the second greeting a moment.
    await waitFor(() => groupTexts(world, group.id).length === 2, 10_000);
    await world.settled();
    expect(groupTexts(world, group.id)).toEqual([welcome, welcome]);
  });

  it("in a group, /group with more members than one message holds names as many as fit and counts the rest", async () => {
    const a = (await linkedUser(world, 4510)).user;
    const group = teamGroup(world, [a]);
    // 80 members with 64-character first names (Telegram's most), ampersands among them: over 5,000 characters in all.
    const name = (index: number) => `${String(index).padStart(2, "0")} & ${"N".repeat(59)}`;
    await world.app.db
      .insertInto("group_links")
      .values(
        Array.from({ length: 80 }, (_, index) => ({
          telegram_id: 9_450_000 + index,
          group_chat_id: group.id,
          group_title: "Ops team",
          owner_name: name(index),
          linked_at: 1_000 + index,
        })),
      )
      .execute();
    world.fake.sendText(a.user, "/group", { groupId: group.id });
    const list = await waitForGroupText(group.id, "Alerts of these members come here");
    expect(list.length).toBeLessThanOrEqual(4096);
    expect(list).toContain(name(0));
    const shown = list.split("\n").filter((line) => line.startsWith("• ")).length;
    expect(shown).toBeGreaterThan(50);
    expect(list.split("\n").at(-1)).toBe(`…and ${80 - shown} more.`);
  });

  it("forged team-alert button data changes nothing: an unknown reference in a group, a kind that is none, a stop without a link", async () => {
    const { user } = await linkedUser(world, 4508);
    const group = teamGroup(world, [user]);
    const forged = (chat: { id: number; type: string; title?: string }, data: string) => {
      const id = `${Date.now()}${Math.floor(Math.random() * 1000)}`;
      world.fake.injectUpdate({
        callback_query: {
          id,
          from: { id: 4508, is_bot: false, first_name: "User4508", language_code: "en" },
          chat_instance: "1",
          data,
          message: {
            message_id: 1,
            date: 1,
            chat,
            from: { id: 123456789, is_bot: true, first_name: "Bot" },
            text: "x",
          },
        },
      });
      return id;
    };
    const inGroup = { id: group.id, type: "group", title: group.title };
    const inPrivate = { id: 4508, type: "private", first_name: "User4508" };
    for (const data of ["gp:r:__proto__x", "gp:p:constructo"])
      expect(await callbackAnswerText(world, forged(inGroup, data))).toBe("This button is no longer valid.");
    // Not even the shape of a reference: answered without a word, as any other press in a group.
    expect(await callbackAnswerText(world, forged(inGroup, "gp:r:toString"))).toBe("");
    expect(await callbackAnswerText(world, forged(inPrivate, "gl:t:__proto__"))).toBe(
      "This button is no longer valid.",
    );
    expect(await callbackAnswerText(world, forged(inPrivate, "gl:t:filled"))).toBe(
      "No group is linked. Send /group to choose one.",
    );
    await world.settled();
    expect(await groupLinkOf(world, 4508)).toBeUndefined();
    expect(world.logs()).not.toContain("update handler failed");
  });

  async function waitForCommands() {
    for (let i = 0; i < 200 && world.fake.commands("zh").length === 0; i++)
      await new Promise((resolve) => setTimeout(resolve, 25));
  }

  async function linkedUserFor(user: ReturnType<World["user"]>) {
    const account = world.newAccount();
    user.send(`/connect ${account.apiKey}`);
    await user.nextMessage();
  }

  async function waitForGroupText(chatId: number, part: string): Promise<string> {
    for (let i = 0; i < 200; i++) {
      const found = groupTexts(world, chatId).find((text) => text.includes(part));
      if (found) return found;
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
    throw new Error(`no "${part}" in group ${chatId}: ${JSON.stringify(groupTexts(world, chatId))}`);
  }
});
