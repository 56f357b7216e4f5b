import { serve } from "@hono/node-server";
import type { AddressInfo } from "node:net";
import type { Server } from "node:http";
import { createFakeTelegram } from "#src/telegram-fake/index";
import type { ChatMessage, FakeEvent, FakeTelegram, FakeTelegramOptions, FakeUser } from "#src/telegram-fake/index";

export const TEST_BOT_TOKEN = "123456789:TEST-fake-telegram-token";

export interface StartedFakeTelegram {
  fake: FakeTelegram;
  /** For grammY: `new Bot(token, { client: { apiRoot } })`. */
  apiRoot: string;
  token: string;
  /**
   * Bot API methods (lower case) answered with this HTTP status before the fake sees them, while
   * set: 500 (Telegram failing), 400 (a refused call) or 403 (the user blocked the bot).
   */
  failing: Map<string, 400 | 403 | 500>;
  /** The raw bodies of the calls answered with a failure from `failing`, as the bot sent them. */
  failedBodies: string[];
  close(): Promise<void>;
}

export interface FakeTelegramKitOptions {
  /**
   * Bot API methods answered with a 400 before the fake sees them (a Telegram that refuses them,
   * e.g. setMyCommands). Not recorded as calls, so they never count as rejected.
   */
  refuseMethods?: readonly string[];
}

/** Serves a fresh fake Telegram on 127.0.0.1 and a free port. */
export async function startFakeTelegram(
  options: Partial<FakeTelegramOptions> = {},
  kit: FakeTelegramKitOptions = {},
): Promise<StartedFakeTelegram> {
  const token = options.token ?? TEST_BOT_TOKEN;
  const fake = createFakeTelegram({ ...options, token });
  const refused = new Set((kit.refuseMethods ?? []).map((method) => method.toLowerCase()));
  const failing = new Map<string, 400 | 403 | 500>();
  const failedBodies: string[] = [];
  const FAILURE_DESCRIPTIONS = {
    400: "Bad Request: refused by the test",
    403: "Forbidden: bot was blocked by the user",
    500: "Internal Server Error",
  } as const;
  const answer = async (request: Request, env?: unknown) => {
    const method = /\/bot[^/]+\/([A-Za-z]+)$/.exec(new URL(request.url).pathname)?.[1]?.toLowerCase();
    if (method && refused.has(method))
      return Response.json(
        { ok: false, error_code: 400, description: "Bad Request: refused by the test" },
        { status: 400 },
      );
    const failure = method ? failing.get(method) : undefined;
    if (failure) {
      failedBodies.push(await request.text());
      return Response.json(
        { ok: false, error_code: failure, description: FAILURE_DESCRIPTIONS[failure] },
        { status: failure },
      );
    }
    return fake.app.fetch(request, env);
  };
  const { server, port } = await new Promise<{ server: Server; port: number }>((resolve) => {
    const started = serve({ fetch: answer, hostname: "127.0.0.1", port: 0 }, (info: AddressInfo) =>
      resolve({ server: started as Server, port: info.port }),
    );
  });
  return {
    fake,
    apiRoot: `http://127.0.0.1:${port}`,
    token,
    failing,
    failedBodies,
    async close() {
      fake.close();
      // grammY keeps connections alive; without this, close() waits for them to time out.
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

export interface ChatUser {
  user: FakeUser;
  send(text: string): ReturnType<FakeTelegram["sendText"]>;
  press(label: string | RegExp): ReturnType<FakeTelegram["pressButtonByLabel"]>;
  /** The next bot message, edit or deletion in this user's private chat; waits for it. */
  nextBotEvent(options?: { timeoutMs?: number }): Promise<FakeEvent & { message: ChatMessage }>;
  /** The next new bot message, skipping (and consuming) edits and deletions before it. */
  nextMessage(options?: { timeoutMs?: number }): Promise<ChatMessage>;
  lastBotMessage(): ChatMessage | undefined;
  botMessages(): ChatMessage[];
}

const BOT_EVENT_KINDS = new Set(["message", "edit", "delete"]);

/** A person in a private chat with the bot, reading what the bot does there in order. */
export function createChatUser(fake: FakeTelegram, user: FakeUser): ChatUser {
  // Deletions count whoever wrote the message: only the bot can delete in a private chat.
  const isBotEvent = (event: FakeEvent) =>
    BOT_EVENT_KINDS.has(event.kind) &&
    event.chatId === user.id &&
    (event.kind === "delete" || event.message?.from === "bot");
  let cursor = fake.eventsSince(0).length;

  function takeNext(): (FakeEvent & { message: ChatMessage }) | undefined {
    for (const event of fake.eventsSince(cursor)) {
      cursor = event.id;
      if (isBotEvent(event)) return event as FakeEvent & { message: ChatMessage };
    }
    return undefined;
  }

  async function nextBotEvent({ timeoutMs = 5000 } = {}) {
    const ready = takeNext();
    if (ready) return ready;
    return new Promise<FakeEvent & { message: ChatMessage }>((resolve, reject) => {
      const timer = setTimeout(() => {
        unsubscribe();
        reject(
          new Error(
            `No bot message, edit or deletion for user ${user.id} within ${timeoutMs} ms. ${recentCalls(fake)}`,
          ),
        );
      }, timeoutMs);
      const unsubscribe = fake.subscribe(() => {
        const next = takeNext();
        if (!next) return;
        clearTimeout(timer);
        unsubscribe();
        resolve(next);
      });
    });
  }

  const botMessages = () => fake.messages(user.id).filter((message) => message.from === "bot");

  return {
    user,
    send: (text) => fake.sendText(user, text),
    press: (label) => fake.pressButtonByLabel(user, label),
    nextBotEvent,
    async nextMessage(options) {
      for (;;) {
        const event = await nextBotEvent(options);
        if (event.kind === "message") return event.message;
      }
    },
    lastBotMessage: () =>
      botMessages()
        .filter((message) => !message.deleted)
        .at(-1),
    botMessages,
  };
}

/** Fails with every call Telegram would have refused and why. */
export function expectNoRejectedCalls(fake: FakeTelegram): void {
  const rejected = fake.rejectedCalls();
  if (rejected.length === 0) return;
  const lines = rejected.map(
    (call) =>
      `  #${call.seq} ${call.method} → ${call.errorCode} ${call.description}\n    params: ${JSON.stringify(call.params)}`,
  );
  throw new Error(`Telegram would have rejected ${rejected.length} call(s):\n${lines.join("\n")}`);
}

function recentCalls(fake: FakeTelegram): string {
  const last = fake.calls.filter((call) => call.method !== "getUpdates").slice(-5);
  if (last.length === 0) return "The bot made no calls besides getUpdates.";
  // What each said (a toast's words tell an expired button from a changed rule), shortened.
  const said = (call: (typeof last)[number]) => {
    const text = typeof call.params.text === "string" ? call.params.text.replace(/\s+/g, " ").slice(0, 60) : "";
    return text ? ` "${text}"` : "";
  };
  return `Last calls: ${last.map((call) => `${call.method}${said(call)} ${call.ok ? "ok" : `→ ${call.description}`}`).join("; ")}`;
}
