import type { Hono } from "hono";
import type { ServerEnv } from "#src/server/create-server";
import type { FakeGroup, FakeTelegram } from "#src/telegram-fake/index";
import { BadInput, fakeUser, handle, userId } from "./api-input";
import type { PlaygroundState } from "./state";
import { messageView } from "./views";

// Team alerts offline: a group with the simulated users in it, shown as a chat; the chat picker's
// reply keyboard and the pick itself; the bot removed from a group.

/** A group's id as the page sends it: a negative integer. */
export function groupId(value: unknown): number {
  const number = typeof value === "string" && /^-\d+$/.test(value) ? Number(value) : value;
  if (typeof number !== "number" || !Number.isSafeInteger(number) || number >= 0)
    throw new BadInput("groupId must be a negative integer (a group's chat id)");
  return number;
}

const groupView = (group: FakeGroup) => ({
  id: group.id,
  title: group.title,
  type: group.type,
  botStatus: group.botStatus,
  members: [...group.members.values()].map((member) => ({
    id: member.user.id,
    firstName: member.user.firstName ?? "",
    status: member.status,
  })),
});

export function registerGroupRoutes(app: Hono<ServerEnv>, fake: FakeTelegram, state: PlaygroundState): void {
  const made: number[] = [];
  const current = () => made.map((id) => fake.group(id)).filter((group): group is FakeGroup => group !== undefined);

  app.get("/play/api/groups", (c) => c.json({ groups: current().map(groupView) }));

  /** A group with every simulated user: the first its creator, the others admins, the bot a member. */
  app.post("/play/api/groups", (c) =>
    handle(c, async (body) => {
      const users = state.users();
      const title =
        typeof body.title === "string" && body.title.trim() !== ""
          ? body.title.trim().slice(0, 128)
          : `Team ${made.length + 1}`;
      const group = fake.createGroup({
        title,
        members: users.map((user, index) => ({
          user: fakeUser(user),
          status: index === 0 ? ("creator" as const) : ("administrator" as const),
        })),
      });
      made.push(group.id);
      return { group: groupView(group) };
    }),
  );

  app.get("/play/api/group-chat", (c) =>
    handle(c, async () => {
      const id = groupId(c.req.query("groupId"));
      const group = fake.group(id);
      if (!group) throw new BadInput("no such group");
      return {
        group: groupView(group),
        lastEventId: state.lastEventId(),
        messages: fake.messages(id).map(messageView),
        rejections: state.rejections(id),
      };
    }),
  );

  /** The reply keyboard the user's private chat shows now (the chat picker among its buttons), or null. */
  app.get("/play/api/reply-keyboard", (c) =>
    handle(c, async () => ({ keyboard: fake.replyKeyboard(userId(c.req.query("userId"))) ?? null })),
  );

  app.post("/play/api/share-chat", (c) =>
    handle(c, async (body) => {
      const user = state.user(userId(body.userId));
      const id = groupId(body.groupId);
      try {
        return fake.shareChat(fakeUser(user), id);
      } catch (error) {
        throw new BadInput(error instanceof Error ? error.message : "the chat picker refused");
      }
    }),
  );

  app.post("/play/api/group/remove-bot", (c) =>
    handle(c, async (body) => {
      const user = state.user(userId(body.userId));
      const id = groupId(body.groupId);
      if (!fake.group(id)) throw new BadInput("no such group");
      return { updateId: fake.removeBotFromGroup(id, fakeUser(user), "kicked") };
    }),
  );
}
