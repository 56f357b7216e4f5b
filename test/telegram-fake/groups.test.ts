import { Keyboard } from "grammy";
import { describe, expect, it } from "vitest";
import type { FakeUser } from "#src/telegram-fake/index";
import { ALICE, apiError, world } from "./grammy-helpers";

const BOB: FakeUser = { id: 1002, firstName: "Bob", languageCode: "en" };
const NO_RIGHTS = {
  is_anonymous: false,
  can_manage_chat: false,
  can_delete_messages: false,
  can_manage_video_chats: false,
  can_restrict_members: false,
  can_promote_members: false,
  can_change_info: false,
  can_invite_users: false,
  can_post_stories: false,
  can_edit_stories: false,
  can_delete_stories: false,
  can_send_welcome_messages: false,
};
const picker = (request: Record<string, unknown>) => ({
  keyboard: [[{ text: "Choose a group", request_chat: request }]],
  one_time_keyboard: true,
});

describe("groups in the fake Telegram", () => {
  it("validates a request_chat button as Telegram does, and only in private chats", async () => {
    const { fake, bot } = await world();
    fake.sendText(ALICE, "hi");
    const send = (request: Record<string, unknown>) =>
      bot.api.sendMessage(ALICE.id, "pick", { reply_markup: picker(request) as never });
    expect((await apiError(send({ request_id: 1 }))).description).toBe(
      `Bad Request: can't parse keyboard button: Field "chat_is_channel" must be of type Boolean`,
    );
    expect((await apiError(send({ request_id: 2 ** 31, chat_is_channel: false }))).description).toBe(
      `Bad Request: can't parse keyboard button: Field "request_id" must be of type Integer`,
    );
    expect(
      (
        await apiError(
          send({ request_id: 1, chat_is_channel: false, user_administrator_rights: { is_anonymous: false } }),
        )
      ).description,
    ).toMatch(/ChatAdministratorRights: Field "can_manage_chat"/);
    expect((await apiError(send({ request_id: 1, chat_is_channel: false, bot_is_member: "yes" }))).description).toMatch(
      /Field "bot_is_member" must be of type Boolean/,
    );
    await bot.api.sendMessage(ALICE.id, "pick", {
      reply_markup: new Keyboard()
        .requestChat("Choose a group", 7, {
          chat_is_channel: false,
          user_administrator_rights: NO_RIGHTS,
          bot_is_member: true,
        })
        .oneTime(),
    });
    const group = fake.createGroup({ title: "Team", members: [{ user: ALICE, status: "creator" }] });
    expect(
      (
        await apiError(
          bot.api.sendMessage(group.id, "pick", {
            reply_markup: picker({ request_id: 1, chat_is_channel: false }) as never,
          }),
        )
      ).description,
    ).toMatch(/^Bad Request: BUTTON_TYPE_INVALID/);
  });

  it("the picker lists only what the button allows; the pick arrives as chat_shared, and a one-time keyboard goes", async () => {
    const { fake, bot } = await world();
    fake.sendText(ALICE, "hi");
    expect(() => fake.shareChat(ALICE, -5)).toThrow(/no group -5/);
    const team = fake.createGroup({ title: "Team", members: [{ user: ALICE, status: "administrator" }] });
    const notAdmin = fake.createGroup({ title: "Other", members: [{ user: ALICE, status: "member" }] });
    const withoutBot = fake.createGroup({
      title: "No bot",
      members: [{ user: ALICE, status: "creator" }],
      bot: "left",
    });
    expect(() => fake.shareChat(ALICE, team.id)).toThrow(/shows no chat picker/);
    await bot.api.sendMessage(ALICE.id, "pick", {
      reply_markup: new Keyboard()
        .requestChat("Choose a group", 7, {
          chat_is_channel: false,
          user_administrator_rights: NO_RIGHTS,
          bot_is_member: true,
          request_title: true,
        })
        .oneTime(),
    });
    expect(() => fake.shareChat(ALICE, notAdmin.id)).toThrow(/not an admin/);
    expect(() => fake.shareChat(ALICE, withoutBot.id)).toThrow(/bot is not a member/);
    const shared = fake.shareChat(ALICE, team.id);
    const updates = await bot.api.getUpdates({ offset: shared.updateId, timeout: 0 });
    expect(updates.at(-1)?.message).toMatchObject({
      chat: { id: ALICE.id, type: "private" },
      from: { id: ALICE.id },
      chat_shared: { request_id: 7, chat_id: team.id, title: "Team" },
    });
    expect(() => fake.shareChat(ALICE, team.id)).toThrow(/shows no chat picker/);
  });

  it("getChatMember tells each member's status; a group without the bot answers 403", async () => {
    const { fake, bot } = await world();
    const team = fake.createGroup({
      title: "Team",
      members: [
        { user: ALICE, status: "creator" },
        { user: BOB, status: "member" },
      ],
    });
    expect((await bot.api.getChatMember(team.id, ALICE.id)).status).toBe("creator");
    expect((await bot.api.getChatMember(team.id, BOB.id)).status).toBe("member");
    expect((await bot.api.getChatMember(team.id, 999)).status).toBe("left");
    expect((await bot.api.getChatMember(team.id, bot.botInfo.id)).status).toBe("member");
    fake.setMemberStatus(team.id, BOB, "administrator");
    expect((await bot.api.getChatMember(team.id, BOB.id)).status).toBe("administrator");
    expect((await apiError(bot.api.getChatMember(-777, ALICE.id))).description).toBe("Bad Request: chat not found");
    fake.removeBotFromGroup(team.id, ALICE, "kicked");
    const refused = await apiError(bot.api.getChatMember(team.id, ALICE.id));
    expect([refused.error_code, refused.description]).toEqual([403, "Forbidden: bot was kicked from the group chat"]);
    expect((await apiError(bot.api.sendMessage(team.id, "hello"))).error_code).toBe(403);
  });

  it("the bot added or removed is a my_chat_member update; a migrated group answers 400 with migrate_to_chat_id", async () => {
    const { fake, bot } = await world();
    const team = fake.createGroup({ title: "Team", members: [{ user: ALICE, status: "creator" }], bot: "left" });
    const added = fake.addBotToGroup(team.id, ALICE);
    fake.removeBotFromGroup(team.id, ALICE, "kicked");
    fake.addBotToGroup(team.id, ALICE);
    const all = await bot.api.getUpdates({ offset: added, timeout: 0 });
    // Each add is followed by the group's service message naming the bot among its new members.
    expect(
      all
        .filter((update) => update.message)
        .map((update) => update.message!.new_chat_members?.map((member) => member.id)),
    ).toEqual([[bot.botInfo.id], [bot.botInfo.id]]);
    const updates = all.filter((update) => update.my_chat_member);
    expect(
      updates.map((update) => [
        update.my_chat_member?.old_chat_member.status,
        update.my_chat_member?.new_chat_member.status,
      ]),
    ).toEqual([
      ["left", "member"],
      ["member", "kicked"],
      ["kicked", "member"],
    ]);
    expect(updates[0]!.my_chat_member).toMatchObject({
      chat: { id: team.id, type: "group", title: "Team" },
      from: { id: ALICE.id },
      new_chat_member: { user: { id: bot.botInfo.id, is_bot: true } },
    });
    const supergroup = fake.migrateGroup(team.id, ALICE);
    expect(supergroup.id).toBeLessThan(-1000000000000);
    const moved = await apiError(bot.api.sendMessage(team.id, "hello"));
    expect([moved.error_code, moved.description, moved.parameters.migrate_to_chat_id]).toEqual([
      400,
      "Bad Request: group chat was upgraded to a supergroup chat",
      supergroup.id,
    ]);
    const service = await bot.api.getUpdates({ offset: all.at(-1)!.update_id + 1, timeout: 0 });
    expect(
      service.map((update) => [
        update.message?.chat.id,
        update.message?.migrate_to_chat_id,
        update.message?.migrate_from_chat_id,
      ]),
    ).toEqual([
      [team.id, supergroup.id, undefined],
      [supergroup.id, undefined, team.id],
    ]);
    expect((await bot.api.sendMessage(supergroup.id, "hello")).chat).toMatchObject({
      id: supergroup.id,
      type: "supergroup",
      title: "Team",
    });
  });

  it("paces a group at 20 messages in any minute: the 21st is 429 with retry_after until the oldest leaves the minute", async () => {
    let clock = 1_000_000;
    const { fake, bot } = await world({ now: () => clock, rateLimits: { enabled: true } });
    const team = fake.createGroup({ title: "Team", members: [{ user: ALICE, status: "creator" }] });
    for (let i = 0; i < 20; i++) {
      await bot.api.sendMessage(team.id, `alert ${i}`);
      clock += 1_000;
    }
    // 20 sent over 20 s: the first leaves the minute 40 s from now.
    const throttled = await apiError(bot.api.sendMessage(team.id, "one too many"));
    expect([throttled.error_code, throttled.parameters.retry_after]).toEqual([429, 40]);
    clock += 40_000;
    await bot.api.sendMessage(team.id, "in the next minute");
    expect(fake.messages(team.id).filter((message) => message.from === "bot")).toHaveLength(21);
  });
});
