import type { FakeGroup } from "#src/telegram-fake/index";
import { nextBotText, type World } from "./world";
import type { ChatUser } from "./telegram-driver";

/** The group link of a user, as stored (null: none). */
export const groupLinkOf = (world: World, telegramId: number) =>
  world.app.db.selectFrom("group_links").selectAll().where("telegram_id", "=", telegramId).executeTakeFirst();

/** A group with these people: the first its creator, the others admins unless named in `members`. */
export function teamGroup(
  world: World,
  admins: ChatUser[],
  options: { members?: ChatUser[]; title?: string; type?: "group" | "supergroup"; bot?: "member" | "left" } = {},
): FakeGroup {
  return world.fake.createGroup({
    title: options.title ?? "Ops team",
    type: options.type ?? "group",
    bot: options.bot ?? "member",
    members: [
      ...admins.map((admin, index) => ({
        user: admin.user,
        status: index === 0 ? ("creator" as const) : ("administrator" as const),
      })),
      ...(options.members ?? []).map((member) => ({ user: member.user, status: "member" as const })),
    ],
  });
}

/** /group, the picker, the group picked: resolves with the card of the linked group. */
export async function linkGroup(world: World, user: ChatUser, group: FakeGroup) {
  user.send("/group");
  // Without a linked group: the intro (with Add to a group), then the picker; with one: its card.
  const shown = await nextBotText(user, (text) => text.includes("pick the group") || text.includes("copied to"));
  if (shown.text?.includes("copied to")) {
    user.press("Choose a group");
    await nextBotText(user, (text) => text.includes("pick the group"));
  }
  world.fake.shareChat(user.user, group.id);
  await nextBotText(user, (text) => text.includes("Linked"));
  return nextBotText(user, (text) => text.includes("copied to"));
}

/** The bot's messages in a group, as text. */
export const groupTexts = (world: World, chatId: number) =>
  world.fake
    .messages(chatId)
    .filter((message) => message.from === "bot")
    .map((message) => message.text ?? "");
