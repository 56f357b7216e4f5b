import type { Hono } from "hono";
import type { ServerEnv } from "#src/server/create-server";
import type { FakeTelegram } from "#src/telegram-fake/index";
import { handle, userChanges, userId } from "./api-input";
import type { PlaygroundState } from "./state";
import { messageView, callView, transcriptText } from "./views";

/** Users and what the chat shows: users, the command menu, a chat's messages, its transcript, the Bot API calls, photos. */
export function registerChatRoutes(app: Hono<ServerEnv>, fake: FakeTelegram, state: PlaygroundState): void {
  app.get("/play/api/users", (c) => c.json({ users: state.users() }));
  app.post("/play/api/users", (c) =>
    handle(c, async (body) => {
      const id = body.id === undefined ? nextUserId(state) : userId(body.id);
      return { user: state.user(id, userChanges(body)) };
    }),
  );

  // The menu Telegram would show this user's chat: its own (the language chosen in /settings)
  // before the one for the app's language.
  app.get("/play/api/commands", (c) =>
    handle(c, async () => {
      const lang = c.req.query("lang") ?? "";
      const id = c.req.query("userId");
      return { lang, commands: id === undefined ? fake.commandMenu(0, lang) : fake.commandMenu(userId(id), lang) };
    }),
  );

  app.get("/play/api/chat", (c) =>
    handle(c, async () => {
      const id = userId(c.req.query("userId"));
      const user = state.knownUser(id) ?? null;
      const messages = fake.messages(id).map(messageView);
      return { user, lastEventId: state.lastEventId(), messages, rejections: state.rejections(id) };
    }),
  );

  app.get("/play/api/transcript", (c) => {
    let id: number;
    try {
      id = userId(c.req.query("userId"));
    } catch (error) {
      return c.json({ error: (error as Error).message }, 400);
    }
    const messages = fake.messages(id).map(messageView);
    const rejections = state.rejections(id);
    if (c.req.query("format") === "json") return c.json({ user: state.knownUser(id) ?? null, messages, rejections });
    const user = state.knownUser(id);
    const title = `Playground chat with ${user ? `${user.firstName} (${user.id}, ${user.languageCode})` : id}`;
    return c.body(transcriptText(messages, rejections, title), 200, {
      "content-type": "text/plain; charset=utf-8",
      ...(c.req.query("download") ? { "content-disposition": `attachment; filename="playground-chat-${id}.txt"` } : {}),
    });
  });

  app.get("/play/api/calls", (c) => {
    const since = Number(c.req.query("since") ?? 0) || 0;
    const withPolls = c.req.query("getUpdates") === "1";
    const method = c.req.query("method");
    const calls = fake.calls
      .filter(
        (call) =>
          call.seq > since && (withPolls || call.method !== "getUpdates") && (!method || call.method === method),
      )
      .map(callView);
    return c.json({ calls });
  });

  app.get("/play/api/photo/:chatId/:messageId", (c) => {
    const message = fake
      .messages(Number(c.req.param("chatId")))
      .find((m) => m.messageId === Number(c.req.param("messageId")));
    const bytes = message?.photo?.bytes;
    if (!bytes || bytes.length === 0) return c.json({ error: "no photo" }, 404);
    const type = bytes[0] === 0x89 ? "image/png" : bytes[0] === 0xff ? "image/jpeg" : "application/octet-stream";
    return c.body(bytes.slice().buffer, 200, {
      "content-type": type,
      "cache-control": "private, max-age=3600",
      "x-content-type-options": "nosniff",
    });
  });
}

function nextUserId(state: PlaygroundState): number {
  return Math.max(2000, ...state.users().map((user) => user.id)) + 1;
}
