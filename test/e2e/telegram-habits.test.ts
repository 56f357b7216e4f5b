import { describe, expect, it } from "vitest";
import { ADDRESS_A, buttonStyles, linkedUser, manageWorld, nextBotText, type World } from "../kit/world";
import { groupTexts, linkGroup, teamGroup } from "../kit/group-helpers";
import { waitFor } from "../kit/push-helpers";
import { PUBLIC_URL } from "../kit/miniapp";

/**
 * Telegram's own habits: coloured buttons (Bot API 9.4 `style`), the menu button in the user's
 * language, /group alone in group chats' command menu, and Telegram's link that adds the bot to a group.
 */
describe("Telegram's habits", () => {
  let world: World;
  manageWorld((started) => (world = started), { env: { PUBLIC_URL } });

  const tr = (language: string, key: string) => world.app.deps.i18n.t(language, key);

  it("Confirm is green (success) and Cancel red (danger), on the order card and on /disconnect", async () => {
    const { user } = await linkedUser(world, 5701);
    user.send(`/buy energy 65000 1h ${ADDRESS_A}`);
    const card = await nextBotText(user, (text) => text.includes("Total"));
    expect(buttonStyles(card)).toEqual({ "✅ Confirm": "success", "✖️ Cancel": "danger" });
    user.send("/disconnect");
    const ask = await nextBotText(user, (text) => text.includes("Forget the key"));
    expect(buttonStyles(ask)).toEqual({ "✅ Confirm": "success", "✖️ Cancel": "danger" });
    // A watch's card (drawn by a menu): Delete red, the rest the app's own look.
    user.send("/watch energy 65k 1h 2.5");
    const watch = await nextBotText(user, (text) => text.includes("Price watch"));
    expect(buttonStyles(watch)).toMatchObject({ "🗑 Delete": "danger", "⏸ Pause": "none" });
  });

  it("group chats' command menu holds /group alone, in every language; private chats keep every command", async () => {
    const api = world.app.bot.api;
    const groups = { type: "all_group_chats" } as const;
    await waitFor(() => world.fake.calls.filter((call) => call.ok && call.method === "setMyCommands").length >= 6);
    expect(await api.getMyCommands({ scope: groups })).toEqual([
      { command: "group", description: tr("en", "command-group-here") },
    ]);
    for (const language of ["en", "ru", "zh"] as const) {
      expect(await api.getMyCommands({ scope: groups, language_code: language })).toEqual([
        { command: "group", description: tr(language, "command-group-here") },
      ]);
      expect((await api.getMyCommands({ language_code: language })).map((entry) => entry.command)).toContain("buy");
    }
    expect(tr("ru", "command-group-here")).not.toBe(tr("en", "command-group-here"));
  });

  it("the menu button opens the dashboard in the user's language: the Telegram app's at first contact, then the one chosen in /settings", async () => {
    const api = world.app.bot.api;
    const russian = world.user(5711, { languageCode: "ru" });
    russian.send("/start");
    await russian.nextMessage();
    expect(await api.getChatMenuButton({ chat_id: 5711 })).toEqual({
      type: "web_app",
      text: tr("ru", "menu-button"),
      web_app: { url: `${PUBLIC_URL}/app` },
    });
    expect(tr("ru", "menu-button")).not.toBe(tr("en", "menu-button"));

    const english = world.user(5712, { languageCode: "en" });
    english.send("/start");
    await english.nextMessage();
    // An English app: the default button, in English, and none of the chat's own.
    await waitFor(async () => (await api.getChatMenuButton()).type === "web_app");
    expect(await api.getChatMenuButton()).toMatchObject({ text: tr("en", "menu-button") });
    expect(await api.getChatMenuButton({ chat_id: 5712 })).toEqual({ type: "default" });
    english.send("/settings");
    await english.nextMessage();
    english.press(/中文/);
    await waitFor(
      async () =>
        ((await api.getChatMenuButton({ chat_id: 5712 })) as { text?: string }).text === tr("zh", "menu-button"),
    );
  });

  it("/group offers Add to a group (Telegram's startgroup link asking to post) before the picker, and on the linked group's card", async () => {
    const { user } = await linkedUser(world, 5721);
    const addUrl = "https://t.me/sandbox_energy_bot?startgroup=alerts&admin=post_messages";
    user.send("/group");
    const intro = await nextBotText(user, (text) => text.includes("Team alerts"));
    expect(intro.replyMarkup?.inline_keyboard.flat()).toEqual([{ text: "➕ Add to a group", url: addUrl }]);
    await nextBotText(user, (text) => text.includes("pick the group"));

    const group = teamGroup(world, [user], { bot: "left" });
    world.fake.addBotToGroup(group.id, user.user);
    // Telegram then sends the link's /start in the group: the greeting alone answers.
    world.fake.sendText(user.user, "/start@sandbox_energy_bot alerts", { groupId: group.id });
    await world.settled();
    expect(groupTexts(world, group.id)).toHaveLength(1);
    expect(groupTexts(world, group.id)[0]).toContain("I copy team members' alerts here");

    const card = await linkGroup(world, user, group);
    const add = card.replyMarkup?.inline_keyboard.flat().find((button) => button.url !== undefined);
    expect(add).toEqual({ text: "➕ Add to a group", url: addUrl });
  });
});
