import { existsSync, readFileSync } from "node:fs";
import { join, sep } from "node:path";
import type { Context, Hono } from "hono";
import { streamSSE } from "hono/streaming";
import type { EmbeddedSandbox } from "../embedded-sandbox";
import type { Logger } from "../logger";
import type { ServerEnv } from "../server/create-server";
import { projectRoot } from "../paths";
import type { FakeEvent, FakeTelegram, FakeUser } from "../telegram-fake";
import { playgroundGuard, type PlaygroundAddress } from "./guard";
import { createSandboxPanel, PanelError, type PanelHooks } from "./sandbox-panel";
import { LANGUAGES, type PlaygroundState, type PlayUser } from "./state";
import { eventView, messageView, callView, transcriptText, type EventView } from "./views";

export interface PlaygroundRouteDeps {
  fake: FakeTelegram;
  sandbox: EmbeddedSandbox | null;
  logger: Logger;
  state: PlaygroundState;
  /** Set once the push machinery exists (see PlaygroundHandle.attach). */
  hooks: () => PanelHooks;
  /** Streams to end when the playground stops. */
  streams: Set<() => void>;
  botUsername?: string;
  /** Where the server listens: requests must name it (see playgroundGuard). */
  address: PlaygroundAddress;
}

const PUBLIC_DIR = join(projectRoot(), "src", "playground", "public") + sep;
/** The page's script: the ES modules of src/playground/web, bundled by `npm run build:web` (part of `npm run build`). */
const SCRIPT = join(projectRoot(), "dist", "playground", "app.js");
const ASSETS: Record<string, string> = {
  "/play": `${PUBLIC_DIR}index.html`,
  "/play/": `${PUBLIC_DIR}index.html`,
  "/play/app.js": SCRIPT,
  "/play/app.css": `${PUBLIC_DIR}app.css`,
};
const CONTENT_TYPES: Record<string, string> = {
  html: "text/html; charset=utf-8",
  js: "text/javascript; charset=utf-8",
  css: "text/css; charset=utf-8",
};
const CSP =
  "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; " +
  "base-uri 'none'; form-action 'none'; frame-ancestors 'none'";
const HEARTBEAT_MS = 15_000;
const MAX_TEXT = 4096;

class BadInput extends Error {}

/** GET /play (the web chat), its assets, and the JSON/SSE interface under /play/api. */
export function registerPlaygroundRoutes(deps: PlaygroundRouteDeps) {
  const { fake, state } = deps;
  // Read once at start: the page is small and never changes while the process runs.
  if (!existsSync(SCRIPT)) throw new Error(`The playground's script is not built (${SCRIPT}): run npm run build:web, or npm start, which builds it`);
  const assets = new Map(Object.entries(ASSETS).map(([route, file]) => [route, readFileSync(file, "utf8")]));
  const panel = deps.sandbox ? createSandboxPanel(deps.sandbox, fake, deps.hooks) : null;

  const fakeUser = (user: PlayUser): FakeUser => ({ id: user.id, firstName: user.firstName, languageCode: user.languageCode });

  return (app: Hono<ServerEnv>) => {
    const guard = playgroundGuard(deps.address);
    app.use("/play", guard);
    app.use("/play/*", guard);

    for (const [route, file] of Object.entries(ASSETS)) {
      const type = CONTENT_TYPES[file.split(".").pop()!]!;
      app.get(route, (c) =>
        c.body(assets.get(route)!, 200, {
          "content-type": type,
          "cache-control": "no-cache",
          "content-security-policy": CSP,
          "x-content-type-options": "nosniff",
          "referrer-policy": "no-referrer",
        }),
      );
    }

    app.get("/play/api/config", (c) =>
      c.json({
        sandbox: panel !== null,
        demo: deps.sandbox ? { accountId: deps.sandbox.sandbox.demo.accountId, apiKey: deps.sandbox.demoApiKey } : null,
        users: state.users(),
        languages: LANGUAGES,
        lastEventId: state.lastEventId(),
      }),
    );

    app.get("/play/api/users", (c) => c.json({ users: state.users() }));
    app.post("/play/api/users", (c) =>
      handle(c, async (body) => {
        const id = body.id === undefined ? nextUserId() : userId(body.id);
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
        .filter((call) => call.seq > since && (withPolls || call.method !== "getUpdates") && (!method || call.method === method))
        .map(callView);
      return c.json({ calls });
    });

    app.get("/play/api/photo/:chatId/:messageId", (c) => {
      const message = fake.messages(Number(c.req.param("chatId"))).find((m) => m.messageId === Number(c.req.param("messageId")));
      const bytes = message?.photo?.bytes;
      if (!bytes || bytes.length === 0) return c.json({ error: "no photo" }, 404);
      const type = bytes[0] === 0x89 ? "image/png" : bytes[0] === 0xff ? "image/jpeg" : "application/octet-stream";
      return c.body(bytes.slice().buffer, 200, { "content-type": type, "cache-control": "private, max-age=3600", "x-content-type-options": "nosniff" });
    });

    app.post("/play/api/send", (c) =>
      handle(c, async (body) => {
        const user = state.user(userId(body.userId), userChanges(body));
        const text = body.text;
        if (typeof text !== "string" || text.trim() === "") throw new BadInput("text must be a non-empty string");
        if (text.length > MAX_TEXT) throw new BadInput(`text is longer than ${MAX_TEXT} characters`);
        return withReplies(user.id, body.waitMs, () => fake.sendText(fakeUser(user), text));
      }),
    );

    app.post("/play/api/press", (c) =>
      handle(c, async (body) => {
        const user = state.user(userId(body.userId), userChanges(body));
        const messageId = body.messageId === undefined ? undefined : positiveInt(body.messageId, "messageId");
        if (typeof body.callbackData === "string") {
          if (messageId === undefined) throw new BadInput("messageId is required with callbackData");
          const callbackData = body.callbackData;
          return withReplies(user.id, body.waitMs, () => ({ ...fake.pressButton(fakeUser(user), messageId, callbackData), messageId }));
        }
        if (typeof body.label === "string" && body.label !== "") {
          const label = body.label;
          return withReplies(user.id, body.waitMs, () => fake.pressButtonByLabel(fakeUser(user), label, messageId === undefined ? {} : { messageId }));
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
        return { inlineQueryId, answer: (await inlineAnswer(inlineQueryId)) ?? null };
      }),
    );
    app.post("/play/api/inline/choose", (c) =>
      handle(c, async (body) => {
        const user = state.user(userId(body.userId), userChanges(body));
        if (typeof body.inlineQueryId !== "string" || typeof body.resultId !== "string") throw new BadInput("inlineQueryId and resultId are required");
        const { inlineQueryId, resultId } = body;
        return { message: messageView(fakeAction(() => fake.chooseInlineResult(fakeUser(user), inlineQueryId, resultId))) };
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
          if (!/^[A-Za-z0-9_-]{1,64}$/.test(payload)) throw new BadInput("startParameter must be 1-64 characters of A-Z a-z 0-9 _ -");
          return fake.sendText(fakeUser(user), `/start ${payload}`);
        }
        if (typeof body.url !== "string") throw new BadInput("url or startParameter is required");
        const url = body.url;
        return fakeAction(() => fake.openDeepLink(fakeUser(user), url));
      }),
    );

    app.get("/play/api/events", (c) => {
      const header = c.req.header("last-event-id") ?? c.req.query("since");
      const since = header !== undefined && /^\d+$/.test(header) ? Number(header) : state.lastEventId();
      const filter = c.req.query("userId") ? Number(c.req.query("userId")) : undefined;
      c.header("cache-control", "no-cache");
      c.header("x-accel-buffering", "no");
      return streamSSE(c, async (stream) => {
        const queue: FakeEvent[] = [];
        let wake: (() => void) | null = null;
        let closed = false;
        const close = () => {
          closed = true;
          wake?.();
        };
        deps.streams.add(close);
        const unsubscribe = fake.subscribe((event) => {
          queue.push(event);
          wake?.();
        });
        stream.onAbort(close);
        let sent = since;
        const send = async (event: FakeEvent) => {
          if (event.id <= sent) return;
          sent = event.id;
          const view = eventView(event, state.rejectionForEvent(event.id));
          if (!view || (filter !== undefined && view.chatId !== filter) || closed || stream.aborted) return;
          await stream.writeSSE({ id: String(event.id), data: JSON.stringify(view) }).catch(close);
        };
        try {
          await stream.write("retry: 1000\n\n");
          for (const event of fake.eventsSince(since)) await send(event);
          while (!closed) {
            while (queue.length && !closed) await send(queue.shift()!);
            if (closed) break;
            const timedOut = await new Promise<boolean>((resolve) => {
              const timer = setTimeout(() => resolve(true), HEARTBEAT_MS);
              wake = () => {
                clearTimeout(timer);
                resolve(false);
              };
            });
            wake = null;
            if (timedOut && !closed) await stream.write(": ping\n\n").catch(close);
          }
        } finally {
          unsubscribe();
          deps.streams.delete(close);
        }
      });
    });

    app.get("/play/api/sandbox", (c) => (panel ? c.json(panel.state()) : c.json({ error: "the playground runs against an external marketplace (MARKETPLACE_URL); the sandbox panel is off" }, 404)));
    app.post("/play/api/sandbox/:action", (c) =>
      handle(c, async (body) => {
        if (!panel) throw new PanelError(404, "the sandbox panel is off: MARKETPLACE_URL points at an external marketplace");
        const action = c.req.param("action");
        const result = await panel.run(action, body, { origin: new URL(c.req.url).origin });
        deps.logger.info({ action }, "playground sandbox action");
        return { ok: true, result, state: panel.state() };
      }),
    );
  };

  /** Runs a user action and, when asked, waits until the bot has gone quiet in that chat. */
  async function withReplies<T extends object>(chatId: number, waitMs: unknown, act: () => T): Promise<T & { replies?: EventView[] }> {
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
  async function inlineAnswer(inlineQueryId: string) {
    const deadline = Date.now() + 10_000;
    while (!fake.inlineAnswer(inlineQueryId) && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 50));
    return fake.inlineAnswer(inlineQueryId);
  }

  function nextUserId(): number {
    return Math.max(2000, ...state.users().map((user) => user.id)) + 1;
  }
}

type Body = Record<string, unknown>;

async function handle(c: Context, run: (body: Body) => Promise<unknown>): Promise<Response> {
  let body: Body = {};
  if (c.req.method === "POST") {
    try {
      const parsed: unknown = await c.req.json();
      if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed)) throw new Error("not an object");
      body = parsed as Body;
    } catch {
      return c.json({ error: "the body must be a JSON object" }, 400);
    }
  }
  try {
    return c.json((await run(body)) as object);
  } catch (error) {
    if (error instanceof BadInput) return c.json({ error: error.message }, 400);
    if (error instanceof PanelError) return c.json({ error: error.message }, error.status);
    // The fake throws plain Errors for presses on missing messages or buttons.
    if (error instanceof Error && /^press/.test(error.message)) return c.json({ error: error.message }, 404);
    throw error;
  }
}

/** A user-side action of the fake; what it refuses (inline mode off, a link to another bot) is the request's fault. */
function fakeAction<T>(act: () => T): T {
  try {
    return act();
  } catch (error) {
    if (error instanceof Error && /^(sendInlineQuery|chooseInlineResult|openDeepLink): /.test(error.message)) throw new BadInput(error.message);
    throw error;
  }
}

function positiveInt(value: unknown, name: string): number {
  const number = typeof value === "string" && /^\d+$/.test(value) ? Number(value) : value;
  if (typeof number !== "number" || !Number.isSafeInteger(number) || number < 1) throw new BadInput(`${name} must be a positive integer`);
  return number;
}

function userId(value: unknown): number {
  const id = positiveInt(value, "userId");
  if (id > 0xffffffffff) throw new BadInput("userId is too large");
  return id;
}

function userChanges(body: Body): { firstName?: string; languageCode?: string } {
  const changes: { firstName?: string; languageCode?: string } = {};
  if (body.firstName !== undefined) {
    if (typeof body.firstName !== "string" || body.firstName.trim() === "" || body.firstName.length > 64) throw new BadInput("firstName must be 1-64 characters");
    changes.firstName = body.firstName.trim();
  }
  if (body.languageCode !== undefined) {
    if (typeof body.languageCode !== "string" || !/^[a-z]{2,3}(?:-[A-Za-z]{2,4})?$/.test(body.languageCode)) throw new BadInput("languageCode must look like en, ru or zh");
    changes.languageCode = body.languageCode;
  }
  return changes;
}
