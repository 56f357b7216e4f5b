import { HttpError, type Transformer } from "grammy";
import { describe, expect, it } from "vitest";
import { linkedUser, manageWorld, nextBotText, type World } from "../kit/world";
import { groupLinkOf, teamGroup } from "../kit/group-helpers";

type Failure = () => never | { ok: false; error_code: number; description: string };

/** Answers the `nth` getChatMember call from now (1: the bot's own check, 2: the user's) with `failure`. */
function failMemberCheck(world: World, nth: number, failure: Failure): void {
  let calls = 0;
  const transformer: Transformer = async (prev, method, payload, signal) =>
    method === "getChatMember" && ++calls === nth ? (failure() as never) : prev(method, payload, signal);
  world.app.bot.api.config.use(transformer);
}

/**
 * The picked group is checked with getChatMember: when Telegram does not answer that check (a 5xx,
 * the network), the user is told Telegram did not answer and to try again, never that the bot is
 * not in the group; nothing is linked; the next try links it.
 */
describe("team alerts: a member check Telegram does not answer", () => {
  let world: World;
  manageWorld((started) => (world = started), { telegramServerErrorRetries: 0 });

  const pick = async (user: Awaited<ReturnType<typeof linkedUser>>["user"], groupId: number) => {
    user.send("/group");
    // Without a linked group: the intro (with Add to a group), then the picker.
    await nextBotText(user, (text) => text.includes("pick the group"));
    world.fake.shareChat(user.user, groupId);
  };

  const cases: Array<[string, number, number, Failure]> = [
    [
      "a Telegram 502 on the bot's own check",
      4591,
      1,
      () => ({ ok: false, error_code: 502, description: "Bad Gateway" }),
    ],
    [
      "a network failure on the bot's own check",
      4592,
      1,
      () => {
        throw new HttpError("Network request for 'getChatMember' failed!", new Error("socket hang up"));
      },
    ],
    [
      "a 429 on the user's check",
      4593,
      2,
      () => ({ ok: false, error_code: 429, description: "Too Many Requests: retry after 1" }),
    ],
  ];

  it.each(cases)(
    "%s is told as Telegram not answering, and nothing is linked until a new try",
    async (_name, id, nth, failure) => {
      const { user } = await linkedUser(world, id);
      const group = teamGroup(world, [user]);
      failMemberCheck(world, nth, failure);
      await pick(user, group.id);
      const told = await nextBotText(user, (text) => text.includes("Telegram did not answer"));
      expect(told.text).toContain("Try again");
      expect(world.fake.messages(id).some((message) => message.text?.includes("not a member"))).toBe(false);
      expect(await groupLinkOf(world, id)).toBeUndefined();

      await pick(user, group.id);
      await nextBotText(user, (text) => text.includes("Linked"));
      expect(Number((await groupLinkOf(world, id))?.group_chat_id)).toBe(group.id);
    },
  );
});
