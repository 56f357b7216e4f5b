import type { Hono } from "hono";
import type { ServerEnv } from "#src/server/create-server";
import type { FakeTelegram } from "#src/telegram-fake/index";
import { BadInput, fakeAction, fakeUser, handle, positiveInt, userChanges, userId } from "./api-input";
import { groupId } from "./group-routes";
import type { PlaygroundState } from "./state";
import { eventView, messageView, type EventView } from "./views";

const MAX_TEXT = 4096;

/** What a user does in the chat: send a text, press a button, use inline mode, open a link to the bot. */
export function registerUserActions(app: Hono<ServerEnv>, fake: FakeTelegram, state: PlaygroundState): void {
  app.post("/play/api/send", (c) =>
    handle(c, async (body) => {
      const user = state.user(userId(body.userId), userChanges(body));
      const text = body.text;
      if (typeof text !== "string" || text.trim() === "") throw new BadInput("text must be a non-empty string");
      if (text.length > MAX_TEXT) throw new BadInput(`text is longer than ${MAX_TEXT} characters`);
      // In a team group (groupId) as that user, else in their private chat.
      const group = body.groupId === undefined ? undefined : groupId(body.groupId);
      return withReplies(fake, group ?? user.id, body.waitMs, () =>
        fake.sendText(fakeUser(user), text, group === undefined ? undefined : { groupId: group }),
      );
    }),
  );

  app.post("/play/api/press", (c) =>
    handle(c, async (body) => {
      const user = state.user(userId(body.userId), userChanges(body));
      const messageId = body.messageId === undefined ? undefined : positiveInt(body.messageId, "messageId");
      if (typeof body.callbackData === "string") {
        if (messageId === undefined) throw new BadInput("messageId is required with callbackData");
        const callbackData = body.callbackData;
        const chatId = body.chatId === undefined ? user.id : groupId(body.chatId);
        return withReplies(fake, chatId, body.waitMs, () => ({
          ...fake.pressButton(fakeUser(user), messageId, callbackData, { chatId }),
          messageId,
        }));
      }
      if (typeof body.label === "string" && body.label !== "") {
        const label = body.label;
        return withReplies(fake, user.id, body.waitMs, () =>
          fake.pressButtonByLabel(fakeUser(user), label, messageId === undefined ? {} : { messageId }),
        );
      }
      throw new BadInput("give callbackData (with messageId) or label");
    }),
  );

  // Inline mode as Telegram shows it: the user types "@bot 65k 1h", sees the bot's results,
  // and may send one into the chat. The answer is awaited here (Telegram drops it after 10 s).
  app.post("/play/api/inline", (c) =>
    handle(c, async (body) => {
      const user = state.user(userId(body.userId), userChanges(body));
      const query = typeof body.query === "string" ? body.query : "";
      const { inlineQueryId } = fakeAction(() => fake.sendInlineQuery(fakeUser(user), query));
      return { inlineQueryId, answer: (await inlineAnswer(fake, inlineQueryId)) ?? null };
    }),
  );
  app.post("/play/api/inline/choose", (c) =>
    handle(c, async (body) => {
      const user = state.user(userId(body.userId), userChanges(body));
      if (typeof body.inlineQueryId !== "string" || typeof body.resultId !== "string")
        throw new BadInput("inlineQueryId and resultId are required");
      const { inlineQueryId, resultId } = body;
      return {
        message: messageView(fakeAction(() => fake.chooseInlineResult(fakeUser(user), inlineQueryId, resultId))),
      };
    }),
  );
  /**
   * A t.me link to the bot (a "Buy in the bot" button, a shared link) or an inline answer's
   * button (its start parameter): the client sends /start with the payload, as Telegram's does.
   */
  app.post("/play/api/open-link", (c) =>
    handle(c, async (body) => {
      const user = state.user(userId(body.userId), userChanges(body));
      if (typeof body.startParameter === "string") {
        const payload = body.startParameter;
        if (!/^[A-Za-z0-9_-]{1,64}$/.test(payload))
          throw new BadInput("startParameter must be 1-64 characters of A-Z a-z 0-9 _ -");
        return fake.sendText(fakeUser(user), `/start ${payload}`);
      }
      if (typeof body.url !== "string") throw new BadInput("url or startParameter is required");
      const url = body.url;
      return fakeAction(() => fake.openDeepLink(fakeUser(user), url));
    }),
  );
}

/** Runs a user action and, when asked, waits until the bot has gone quiet in that chat. */
async function withReplies<T extends object>(
  fake: FakeTelegram,
  chatId: number,
  waitMs: unknown,
  act: () => T,
): Promise<T & { replies?: EventView[] }> {
  const limit = typeof waitMs === "number" && waitMs > 0 ? Math.min(waitMs, 30_000) : 0;
  if (!limit) return act();
  const replies: EventView[] = [];
  let idle: NodeJS.Timeout | undefined;
  let done!: () => void;
  const finished = new Promise<void>((resolve) => (done = resolve));
  const unsubscribe = fake.subscribe((event) => {
    if (event.kind === "call" || event.kind === "user_message") return;
    const view = eventView(event, undefined);
    if (!view || view.chatId !== chatId) return;
    replies.push(view);
    clearTimeout(idle);
    idle = setTimeout(done, 400);
  });
  const overall = setTimeout(done, limit);
  try {
    const result = act();
    await finished;
    return { ...result, replies };
  } finally {
    clearTimeout(idle);
    clearTimeout(overall);
    unsubscribe();
  }
}

/** The bot's answer to an inline query, waited for as long as Telegram would (undefined if none came). */
async function inlineAnswer(fake: FakeTelegram, inlineQueryId: string) {
  const deadline = Date.now() + 10_000;
  while (!fake.inlineAnswer(inlineQueryId) && Date.now() < deadline)
    await new Promise((resolve) => setTimeout(resolve, 50));
  return fake.inlineAnswer(inlineQueryId);
}
