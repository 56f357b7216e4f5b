import { randomBytes } from "node:crypto";
import { get } from "node:http";
import { afterEach, describe, expect, it } from "vitest";
import { ConfigError, startApp, type App } from "#src/app";
import { startFakeTelegram, type StartedFakeTelegram } from "../kit/telegram-driver";
import { createSandbox } from "#src/sandbox/index";
import { serve } from "@hono/node-server";
import type { AddressInfo } from "node:net";
import { BOT_TOKEN } from "../kit/world";

const ADDRESS = "TNPeeaaFB7K9cmo4uQpcU32zGK8G1NYqeL";
const OTHER_ADDRESS = "TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t";
const USER = 424242;

interface MessageView {
  messageId: number;
  from: "bot" | "user";
  text?: string;
  caption?: string;
  html?: string;
  photo?: { src: string | null; width?: number; height?: number };
  replyMarkup?: { inline_keyboard: Array<Array<{ text: string; callback_data?: string }>> };
  edited: boolean;
  deleted: boolean;
}

function playgroundEnv(extra: Record<string, string> = {}): Record<string, string> {
  return {
    DATABASE_URL: ":memory:",
    PORT: "0",
    SECRET_KEY: randomBytes(32).toString("base64"),
    LOG_LEVEL: "silent",
    ...extra,
  };
}

/** What a browser sends with the page's POSTs: the content type and the playground's own origin. */
function pageHeaders(app: App, contentType = "application/json"): Record<string, string> {
  return { "content-type": contentType, origin: new URL(app.url).origin };
}

async function waitFor<T>(read: () => Promise<T | undefined | false>, what: string, timeoutMs = 10_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** The status of GET /play/api/config sent with this `Host` header (fetch cannot set Host). */
function statusWithHost(url: string, host: string): Promise<number> {
  const { hostname, port } = new URL(url);
  return new Promise<number>((resolve, reject) => {
    get({ hostname, port, path: "/play/api/config", headers: { host } }, (response) => {
      response.resume();
      resolve(response.statusCode ?? 0);
    }).on("error", reject);
  });
}

/** Reads server-sent events from a stream until `count` events arrived (or the time is up). */
async function readEvents(url: string, headers: Record<string, string>, count: number, timeoutMs = 5000) {
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(), timeoutMs);
  const events: Array<{ id: number; data: { id: number; kind: string; chatId?: number } }> = [];
  try {
    const response = await fetch(url, { headers, signal: controller.signal });
    expect(response.headers.get("content-type")).toContain("text/event-stream");
    const reader = response.body!.pipeThrough(new TextDecoderStream()).getReader();
    let buffer = "";
    while (events.length < count) {
      const { value, done } = await reader.read();
      if (done) break;
      buffer += value;
      let end: number;
      while ((end = buffer.indexOf("\n\n")) >= 0) {
        const block = buffer.slice(0, end);
        buffer = buffer.slice(end + 2);
        const id = /^id: ?(\d+)$/m.exec(block)?.[1];
        const data = /^data: ?(.*)$/m.exec(block)?.[1];
        if (id && data) events.push({ id: Number(id), data: JSON.parse(data) });
      }
    }
  } catch (error) {
    if (!controller.signal.aborted) throw error;
  } finally {
    clearTimeout(timer);
    controller.abort();
  }
  return events.slice(0, count);
}

/** A simulated user driving the playground over its JSON interface, reading their chat back. */
function playClient(app: App, userId: number) {
  const base = `${app.url}/play/api`;
  const request = async (path: string, body: object) => {
    const response = await fetch(`${base}${path}`, {
      method: "POST",
      headers: pageHeaders(app),
      body: JSON.stringify(body),
    });
    return { status: response.status, json: (await response.json()) as Record<string, unknown> };
  };
  const post = async (path: string, body: object) => {
    const { status, json } = await request(path, body);
    if (status !== 200) throw new Error(`${path} → ${status} ${JSON.stringify(json)}`);
    return json;
  };
  const chat = async () =>
    ((await (await fetch(`${base}/chat?userId=${userId}`)).json()) as { messages: MessageView[] }).messages;
  const botMessages = async () => (await chat()).filter((m) => m.from === "bot" && !m.deleted);
  const lastId = async () => (await chat()).at(-1)?.messageId ?? 0;
  return {
    request,
    post,
    chat,
    botMessages,
    lastId,
    say: (text: string) => post("/send", { userId, text }),
    /** The first bot message after `after` that passes `test`, waiting for it. */
    newBotMessage: (after: number, test: (m: MessageView) => boolean, what: string) =>
      waitFor(async () => (await botMessages()).find((m) => m.messageId > after && test(m)), what),
    /** Presses the button whose label matches on the newest bot message that has one. */
    async press(label: RegExp, what: string) {
      const message = await waitFor(
        async () =>
          (await botMessages())
            .reverse()
            .find((m) => (m.replyMarkup?.inline_keyboard.flat() ?? []).some((b) => label.test(b.text))),
        what,
      );
      const button = message.replyMarkup!.inline_keyboard.flat().find((b) => label.test(b.text))!;
      await post("/press", { userId, messageId: message.messageId, callbackData: button.callback_data });
      return message;
    },
  };
}

describe("the local playground's JSON and SSE interface", () => {
  let app: App | undefined;
  let telegram: StartedFakeTelegram | undefined;
  afterEach(async () => {
    await app?.stop();
    await telegram?.close();
    app = undefined;
    telegram = undefined;
  });

  it("plays a whole story as a new user: start, menu, quote, connect, buy, settle, filled alert, top-up QR", async () => {
    app = await startApp({ env: playgroundEnv(), perChatMinTimeMs: 0 });
    expect(app.playground).not.toBeNull();
    expect(app.sandbox).not.toBeNull();
    // Playground mode listens on loopback only (HOST unset).
    expect(new URL(app.url).hostname).toBe("127.0.0.1");

    const base = `${app.url}/play/api`;
    const post = async (path: string, body: object) => {
      const response = await fetch(`${base}${path}`, {
        method: "POST",
        headers: pageHeaders(app!),
        body: JSON.stringify(body),
      });
      const json = (await response.json()) as Record<string, unknown>;
      if (!response.ok) throw new Error(`${path} → ${response.status} ${JSON.stringify(json)}`);
      return json;
    };
    const chat = async () =>
      (
        (await (await fetch(`${base}/chat?userId=${USER}`)).json()) as {
          messages: MessageView[];
          rejections: unknown[];
        }
      ).messages;
    const botMessages = async () => (await chat()).filter((m) => m.from === "bot" && !m.deleted);
    const newBotMessage = async (after: number, test: (m: MessageView) => boolean, what: string) =>
      waitFor(async () => (await botMessages()).find((m) => m.messageId > after && test(m)), what);
    const lastId = async () => (await chat()).at(-1)?.messageId ?? 0;

    const page = await fetch(`${app.url}/play`);
    expect(page.status).toBe(200);
    expect(page.headers.get("content-type")).toContain("text/html");
    expect(page.headers.get("content-security-policy")).toContain("script-src 'self'");
    const html = await page.text();
    expect(html).toContain("/play/app.js");
    expect(html).not.toMatch(/https?:\/\/(?!127)/);
    expect((await fetch(`${app.url}/play/app.js`)).status).toBe(200);

    const config = (await (await fetch(`${base}/config`)).json()) as { sandbox: boolean; demo: { apiKey: string } };
    expect(config.sandbox).toBe(true);
    const demoKey = config.demo.apiKey;
    expect(demoKey).toBe(app.sandbox!.demoApiKey);

    // /start with waitMs answers with the bot's replies.
    const started = (await post("/send", {
      userId: USER,
      text: "/start",
      languageCode: "en",
      firstName: "Pat",
      waitMs: 5000,
    })) as { replies: Array<{ kind: string; message: MessageView }> };
    const welcome = started.replies.find((r) => r.kind === "message")!.message;
    expect(welcome.text).toContain("Pat");
    expect(welcome.text).toContain("sandbox");
    expect(welcome.replyMarkup!.inline_keyboard.flat().length).toBeGreaterThan(3);

    // A main-menu button.
    let mark = await lastId();
    await post("/press", { userId: USER, label: "💱 Quote" });
    await waitFor(
      async () => (await chat()).some((m) => m.messageId > mark || m.edited),
      "an answer to the Quote button",
    );

    mark = await lastId();
    await post("/send", { userId: USER, text: "/quote energy 65k 1h" });
    const quote = await newBotMessage(mark, (m) => /65,000/.test(m.text ?? ""), "the quote");
    expect(quote.text).toMatch(/TRX/);

    mark = await lastId();
    const connect = (await post("/send", { userId: USER, text: `/connect ${demoKey}` })) as { messageId: number };
    const linked = await newBotMessage(mark, (m) => (m.text ?? "").includes(demoKey.slice(-4)), "the linked reply");
    expect(linked.text).not.toContain(demoKey);
    const keyMessage = (await chat()).find((m) => m.messageId === connect.messageId)!;
    expect(keyMessage.deleted).toBe(true);

    mark = await lastId();
    await post("/send", { userId: USER, text: `/buy energy 65000 1h ${ADDRESS}` });
    const preview = await newBotMessage(
      mark,
      (m) => (m.replyMarkup?.inline_keyboard.flat() ?? []).some((b) => /Confirm/.test(b.text)),
      "the order preview",
    );
    const confirm = preview.replyMarkup!.inline_keyboard.flat().find((b) => /Confirm/.test(b.text))!;
    await post("/press", { userId: USER, messageId: preview.messageId, callbackData: confirm.callback_data });
    await waitFor(
      async () => app!.sandbox!.sandbox.control.listOrders(app!.sandbox!.sandbox.demo.accountId).length === 1,
      "the order",
    );

    mark = await lastId();
    const settled = (await post("/sandbox/settle", {})) as { result: { settled: Array<{ status: string }> } };
    expect(settled.result.settled.map((o) => o.status)).toEqual(["Filled"]);
    const alert = await newBotMessage(
      mark,
      (m) => /Order [0-9a-f]{8}\S* filled/.test(m.text ?? ""),
      "the filled alert",
    );
    expect(alert.text).toContain(ADDRESS);
    expect(alert.text).toContain("65,000");

    mark = await lastId();
    await post("/send", { userId: USER, text: "/topup" });
    const photo = await newBotMessage(mark, (m) => m.photo !== undefined, "the QR photo");
    expect(photo.photo!.src).toMatch(/^\/play\/api\/photo\//);
    const image = await fetch(`${app.url}${photo.photo!.src}`);
    expect(image.headers.get("content-type")).toBe("image/png");
    expect(
      Buffer.from(await image.arrayBuffer())
        .subarray(1, 4)
        .toString(),
    ).toBe("PNG");

    // The transcript and the call log.
    const transcript = await (await fetch(`${base}/transcript?userId=${USER}`)).text();
    expect(transcript).toContain("You #1");
    expect(transcript).toContain("[photo");
    expect(transcript).toContain("(deleted)");
    const calls = ((await (await fetch(`${base}/calls`)).json()) as { calls: Array<{ method: string; ok: boolean }> })
      .calls;
    expect(calls.some((c) => c.method === "sendPhoto" && c.ok)).toBe(true);
    expect(calls.some((c) => c.method === "deleteMessage" && c.ok)).toBe(true);
    expect(calls.some((c) => c.method === "getUpdates")).toBe(false);
    expect(app.playground!.fake.rejectedCalls()).toEqual([]);

    // A call Telegram refuses is kept for the chat, with Telegram's description.
    const { apiRoot, token } = app.playground!;
    const refused = await fetch(`${apiRoot}/bot${token}/sendMessage`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ chat_id: USER, text: "<b>oops", parse_mode: "HTML" }),
    });
    expect(refused.status).toBe(400);
    const { rejections } = (await (await fetch(`${base}/chat?userId=${USER}`)).json()) as {
      rejections: Array<{ method: string; description: string }>;
    };
    expect(rejections).toEqual([
      expect.objectContaining({ method: "sendMessage", description: expect.stringContaining("can't parse entities") }),
    ]);
    // A refused callback answer names no chat: it is shown in the chat of the press it answers.
    const answered = app.playground!.fake.callbackAnswers.at(-1)!.callbackQueryId;
    const twice = await fetch(`${apiRoot}/bot${token}/answerCallbackQuery`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ callback_query_id: answered }),
    });
    expect(twice.status).toBe(400);
    const after = (await (await fetch(`${base}/chat?userId=${USER}`)).json()) as {
      rejections: Array<{ method: string; description: string }>;
    };
    expect(after.rejections.map((r) => r.method)).toEqual(["sendMessage", "answerCallbackQuery"]);
    expect(after.rejections[1]!.description).toContain("query ID is invalid");

    // Sandbox panel: bad input is refused.
    const bad = await fetch(`${base}/sandbox/fire-rule`, {
      method: "POST",
      headers: pageHeaders(app!),
      body: JSON.stringify({ ruleId: "nope" }),
    });
    expect(bad.status).toBe(404);
    const noWebhook = await fetch(`${base}/sandbox/webhook`, {
      method: "POST",
      headers: pageHeaders(app!),
      body: JSON.stringify({ userId: USER }),
    });
    expect(noWebhook.status).toBe(409);
  });

  it("🪝 Webhook in a plain npm start (no PUBLIC_URL) is no dead end: it shows a URL on this server, which the panel registers", async () => {
    app = await startApp({ env: playgroundEnv(), perChatMinTimeMs: 0 });
    const user = playClient(app, 5160);
    await user.post("/send", { userId: 5160, text: `/connect ${app.sandbox!.demoApiKey}`, waitMs: 5000 });
    const mark = await user.lastId();
    await user.post("/send", { userId: 5160, text: "/start", waitMs: 5000 });
    await user.press(/Webhook/, "the main menu's Webhook button");
    const shown = await user.newBotMessage(mark, (m) => (m.text ?? "").includes("/webhooks/marketplace/"), "the URL");
    expect(shown.text).toMatch(new RegExp(`${app.url}/webhooks/marketplace/[A-Za-z0-9_-]+`));
    expect(shown.text).toContain("Register my /webhook URL");
    expect(shown.text).not.toContain("PUBLIC_URL");
    expect((shown.replyMarkup?.inline_keyboard.flat() ?? []).map((b) => b.text)).toEqual(["Copy", "♻️ Rotate"]);
    const registered = await user.request("/sandbox/webhook", { userId: 5160 });
    expect(registered.status).toBe(200);
    expect((registered.json.result as { webhookUrl: string }).webhookUrl).toBe(
      /https?:\/\/\S+\/webhooks\/marketplace\/[A-Za-z0-9_-]+/.exec(shown.text!)![0],
    );
  });

  it("delivers order.failed as a real sandbox webhook once the panel registers the URL from /webhook", async () => {
    app = await startApp({ env: playgroundEnv({ PUBLIC_URL: "https://playground.invalid" }), perChatMinTimeMs: 0 });
    const base = `${app.url}/play/api`;
    const post = async (path: string, body: object) => {
      const response = await fetch(`${base}${path}`, {
        method: "POST",
        headers: pageHeaders(app!),
        body: JSON.stringify(body),
      });
      return { status: response.status, json: (await response.json()) as Record<string, unknown> };
    };
    const say = async (text: string) =>
      (await post("/send", { userId: 5150, text, waitMs: 5000 })).json as {
        replies: Array<{ kind: string; message: MessageView }>;
      };
    const texts = async () =>
      ((await (await fetch(`${base}/chat?userId=5150`)).json()) as { messages: MessageView[] }).messages
        .filter((m) => m.from === "bot")
        .map((m) => m.text ?? "");

    await say(`/connect ${app.sandbox!.demoApiKey}`);
    const shown = await say("/webhook");
    expect(shown.replies.map((r) => r.message?.text ?? "").join("\n")).toContain(
      "https://playground.invalid/webhooks/marketplace/",
    );
    const registered = await post("/sandbox/webhook", { userId: 5150 });
    expect(registered.status).toBe(200);
    expect((registered.json.result as { webhookUrl: string }).webhookUrl).toMatch(
      new RegExp(`^${app.url}/webhooks/marketplace/[A-Za-z0-9_-]+$`),
    );

    expect((await post("/sandbox/fail-next", { mode: "async" })).status).toBe(200);
    const preview = (await say(`/buy energy 65000 1h ${ADDRESS}`)).replies
      .map((r) => r.message)
      .find((m) => m?.replyMarkup)!;
    const confirm = preview.replyMarkup!.inline_keyboard.flat().find((b) => /Confirm/.test(b.text))!;
    await post("/press", {
      userId: 5150,
      messageId: preview.messageId,
      callbackData: confirm.callback_data,
      waitMs: 3000,
    });
    const settled = await post("/sandbox/settle", {});
    expect((settled.json.result as { settled: Array<{ status: string }> }).settled.map((o) => o.status)).toEqual([
      "Failed",
    ]);
    // The sandbox posted order.failed to the bot's webhook route, which stored it before acknowledging.
    const stored = await app.db.selectFrom("webhook_events").selectAll().execute();
    expect(stored.length).toBeGreaterThan(0);
    await waitFor(
      async () => (await texts()).find((t) => /Order [0-9a-f]{8}\S* failed/.test(t) && /refunded/.test(t)),
      "the failed alert",
    );
  });

  it("resumes the event stream from Last-Event-ID and refuses cross-site or non-JSON posts", async () => {
    app = await startApp({ env: playgroundEnv(), perChatMinTimeMs: 0 });
    const base = `${app.url}/play/api`;
    const send = (text: string) =>
      fetch(`${base}/send`, {
        method: "POST",
        headers: pageHeaders(app!),
        body: JSON.stringify({ userId: 77, text, waitMs: 3000 }),
      });
    await send("/help");
    const all = await readEvents(`${base}/events?since=0&userId=77`, {}, 2);
    expect(all.length).toBe(2);
    expect(all[0]!.data.kind).toBe("user_message");
    const firstId = all[0]!.id;
    expect(all.every((e) => e.data.chatId === 77)).toBe(true);

    // Reconnecting with Last-Event-ID replays only what came after it.
    const resumed = await readEvents(`${base}/events?userId=77`, { "Last-Event-ID": String(firstId) }, 1);
    expect(resumed[0]!.id).toBeGreaterThan(firstId);
    expect(resumed[0]!.id).toBe(all[1]!.id);

    // And live events arrive on an open stream.
    const live = readEvents(`${base}/events?userId=77`, {}, 1);
    await new Promise((resolve) => setTimeout(resolve, 200));
    await send("/start");
    const [next] = await live;
    expect(next!.data.kind).toBe("user_message");

    const text = await fetch(`${base}/send`, {
      method: "POST",
      headers: pageHeaders(app!, "text/plain"),
      body: JSON.stringify({ userId: 77, text: "/start" }),
    });
    expect(text.status).toBe(415);
    const cross = await fetch(`${base}/send`, {
      method: "POST",
      headers: { "content-type": "application/json", origin: "https://evil.example" },
      body: JSON.stringify({ userId: 77, text: "/start" }),
    });
    expect(cross.status).toBe(403);
    // A DNS-rebinding page reaches the port under its own domain name (fetch cannot forge Host).
    expect(await statusWithHost(app.url, "evil.example")).toBe(403);
    // On a loopback HOST the server has loopback names only: another address is not its own either.
    const { port } = new URL(app.url);
    expect(await statusWithHost(app.url, `10.0.0.7:${port}`)).toBe(403);
    expect(await statusWithHost(app.url, `localhost:${port}`)).toBe(200);
    // Every POST names its origin, and it must be this page's.
    const noOrigin = await fetch(`${base}/send`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ userId: 77, text: "/start" }),
    });
    expect(noOrigin.status).toBe(403);
    expect(((await noOrigin.json()) as { error: string }).error).toContain("Origin");
    const otherPort = await fetch(`${base}/send`, {
      method: "POST",
      headers: { "content-type": "application/json", origin: "http://127.0.0.1:1" },
      body: JSON.stringify({ userId: 77, text: "/start" }),
    });
    expect(otherPort.status).toBe(403);
    const badUser = await fetch(`${base}/send`, {
      method: "POST",
      headers: pageHeaders(app!),
      body: JSON.stringify({ userId: "x", text: "hi" }),
    });
    expect(badUser.status).toBe(400);
  });

  it("does not exist when BOT_TOKEN is set", async () => {
    telegram = await startFakeTelegram({ token: BOT_TOKEN });
    app = await startApp({
      env: playgroundEnv({ BOT_TOKEN: telegram.token, TELEGRAM_API_ROOT: telegram.apiRoot }),
      perChatMinTimeMs: 0,
    });
    expect(app.playground).toBeNull();
    expect((await fetch(`${app.url}/play`)).status).toBe(404);
    expect((await fetch(`${app.url}/play/api/config`)).status).toBe(404);
    expect((await fetch(`${app.url}/healthz`)).status).toBe(200);
  });

  it("is refused on a non-loopback HOST unless PLAYGROUND_PUBLIC=true; then answers under its IP addresses and loopback names only", async () => {
    const refused = await startApp({ env: playgroundEnv({ HOST: "0.0.0.0" }), perChatMinTimeMs: 0 }).catch(
      (error: unknown) => error,
    );
    expect(refused).toBeInstanceOf(ConfigError);
    const [problem, ...others] = (refused as ConfigError).problems;
    expect(others).toEqual([]);
    expect(problem).toMatch(/^PLAYGROUND_PUBLIC: HOST=0\.0\.0\.0 is not a loopback address/);
    for (const words of [
      "dangerous",
      "acts as any simulated user",
      "demo API key",
      "HOST=127.0.0.1",
      "BOT_TOKEN",
      "set PLAYGROUND_PUBLIC=true",
    ])
      expect(problem).toContain(words);
    expect(
      (await startApp({ env: playgroundEnv({ HOST: "0.0.0.0", PLAYGROUND_PUBLIC: "yes" }), perChatMinTimeMs: 0 }).catch(
        (error: unknown) => error,
      )) as ConfigError,
    ).toMatchObject({ problems: ["PLAYGROUND_PUBLIC: expected true or false"] });

    app = await startApp({ env: playgroundEnv({ HOST: "0.0.0.0", PLAYGROUND_PUBLIC: "true" }), perChatMinTimeMs: 0 });
    expect(app.playground).not.toBeNull();
    const { port } = new URL(app.url);
    expect(await statusWithHost(app.url, `127.0.0.1:${port}`)).toBe(200);
    expect(await statusWithHost(app.url, `192.0.2.10:${port}`)).toBe(200);
    expect(await statusWithHost(app.url, `evil.example:${port}`)).toBe(403);
    const sent = await fetch(`${app.url}/play/api/send`, {
      method: "POST",
      headers: pageHeaders(app),
      body: JSON.stringify({ userId: 88, text: "/help" }),
    });
    expect(sent.status).toBe(200);
  });

  it("each sandbox panel action produces what the user should see: deposit and notify alerts, pause alerts from pause-rule and an unfunded fire-rule, the 502 text after fail-next sync", async () => {
    app = await startApp({ env: playgroundEnv(), perChatMinTimeMs: 0 });
    const user = playClient(app, 6060);
    const { sandbox } = app.sandbox!;
    const accountId = sandbox.demo.accountId;
    const texts = (message: MessageView) => message.text ?? "";

    let mark = await user.lastId();
    await user.say(`/connect ${app.sandbox!.demoApiKey}`);
    await user.newBotMessage(mark, (m) => texts(m).includes(app!.sandbox!.demoApiKey.slice(-4)), "the linked reply");

    mark = await user.lastId();
    const deposit = (await user.post("/sandbox/deposit", { amount: "25", currency: "TRX" })) as {
      result: { balance: { trx: string } };
    };
    expect(deposit.result.balance.trx).toBe("1025");
    const credited = await user.newBotMessage(mark, (m) => /credited/i.test(texts(m)), "the deposit alert");
    expect(texts(credited)).toContain("25 TRX");

    mark = await user.lastId();
    await user.post("/sandbox/notify", { title: "Hello <b>", body: "from the panel & co" });
    const notice = await user.newBotMessage(mark, (m) => texts(m).includes("Hello <b>"), "the notification alert");
    expect(texts(notice)).toContain("from the panel & co");

    // Two rules (one per address, so each pause alert names its own rule).
    for (const address of [ADDRESS, OTHER_ADDRESS]) {
      mark = await user.lastId();
      await user.say(`/refill ${address} 30k 65k 1h`);
      await user.newBotMessage(mark, (m) => texts(m).includes("Confirm the new rule"), "the rule preview");
      await user.press(/Confirm/, "the Confirm button");
      await waitFor(
        async () => sandbox.control.listRules(accountId).some((rule) => rule.targetAddress === address),
        "the rule",
      );
    }
    const ruleFor = (address: string) =>
      sandbox.control.listRules(accountId).find((rule) => rule.targetAddress === address)!;

    mark = await user.lastId();
    const paused = (await user.post("/sandbox/pause-rule", { ruleId: ruleFor(ADDRESS).id })) as {
      result: { rule: { status: string; pauseReason: string } };
    };
    expect(paused.result.rule).toMatchObject({ status: "paused", pauseReason: "System" });
    const pauseAlert = await user.newBotMessage(
      mark,
      (m) => texts(m).includes(`Rule ${ruleFor(ADDRESS).id.slice(0, 8)}`) && /paused/.test(texts(m)),
      "the pause alert",
    );
    expect(
      pauseAlert
        .replyMarkup!.inline_keyboard.flat()
        .map((b) => b.text)
        .join(" "),
    ).toMatch(/Top up.*Resume|Resume.*Top up/);

    // fire-rule on a funded account charges one firing and tells nobody; on an empty one it pauses the rule, which is an alert.
    const before = await user.lastId();
    const fired = (await user.post("/sandbox/fire-rule", { ruleId: ruleFor(OTHER_ADDRESS).id })) as {
      result: { fired: boolean };
    };
    expect(fired.result.fired).toBe(true);
    expect(sandbox.control.ledger(accountId).some((entry) => entry.type === "AutomationCharge")).toBe(true);
    sandbox.control.setBalance({ accountId, trx: "0" });
    const unfunded = (await user.post("/sandbox/fire-rule", { ruleId: ruleFor(OTHER_ADDRESS).id })) as {
      result: { fired: boolean; reason: string };
    };
    expect(unfunded.result).toMatchObject({ fired: false, reason: "insufficient_balance" });
    const firePause = await user.newBotMessage(
      before,
      (m) => texts(m).includes(`Rule ${ruleFor(OTHER_ADDRESS).id.slice(0, 8)}`),
      "the pause alert of the fired rule",
    );
    expect(texts(firePause)).toMatch(/paused/);
    // Nothing was said about the funded firing.
    expect((await user.botMessages()).filter((m) => m.messageId > before).map(texts)).toEqual([texts(firePause)]);

    sandbox.control.setBalance({ accountId, trx: "1000" });
    expect(
      ((await user.post("/sandbox/fail-next", { mode: "sync" })) as { result: { armed: string } }).result.armed,
    ).toBe("sync");
    mark = await user.lastId();
    await user.say(`/buy energy 65000 1h ${ADDRESS}`);
    await user.newBotMessage(
      mark,
      (m) => (m.replyMarkup?.inline_keyboard.flat() ?? []).some((b) => /Confirm/.test(b.text)),
      "the order preview",
    );
    await user.press(/Confirm/, "the Confirm button");
    const failed = await waitFor(
      async () =>
        (await user.botMessages()).find((m) => m.messageId > mark && /turned this order down at once/.test(texts(m))),
      "the 502 text",
    );
    expect(texts(failed)).toContain("nothing was charged");
    expect(sandbox.control.listOrders(accountId)).toEqual([]);
  });

  it("the panel shows the issue 56 alerts in a minute: a rental ending (with Renew), a rule's delivery and a low balance after fire-rule", async () => {
    app = await startApp({ env: playgroundEnv(), perChatMinTimeMs: 0 });
    const user = playClient(app, 5690);
    const { sandbox } = app.sandbox!;
    const accountId = sandbox.demo.accountId;
    const texts = (message: MessageView) => message.text ?? "";
    let mark = await user.lastId();
    await user.say(`/connect ${app.sandbox!.demoApiKey}`);
    await user.newBotMessage(mark, (m) => texts(m).includes(app!.sandbox!.demoApiKey.slice(-4)), "the linked reply");

    // Nothing filled yet: the panel says what to do first.
    const early = await user.request("/sandbox/rental-ends", { userId: 5690 });
    expect(early.status).toBe(409);
    mark = await user.lastId();
    await user.say(`/buy energy 65000 1h ${ADDRESS}`);
    await user.newBotMessage(mark, (m) => texts(m).includes("Confirm your order"), "the order card");
    await user.press(/Confirm/, "the Confirm button");
    await waitFor(async () => sandbox.control.listOrders(accountId).length === 1, "the order");
    mark = await user.lastId();
    await user.post("/sandbox/settle", {});
    await user.newBotMessage(mark, (m) => texts(m).includes("filled"), "the filled alert");
    mark = await user.lastId();
    const moved = (await user.post("/sandbox/rental-ends", { userId: 5690 })) as { result: { orderId: string } };
    expect(moved.result.orderId).toBe(sandbox.control.listOrders(accountId)[0]!.id);
    const ends = await user.newBotMessage(
      mark,
      (m) => texts(m).includes("Your rental ends in 10 min"),
      "the ends alert",
    );
    expect(ends.replyMarkup!.inline_keyboard.flat().map((b) => b.text)).toEqual(["🔁 Renew"]);

    // A rule, delivery alerts on; then a funded firing is told, and one that leaves the balance short says so.
    mark = await user.lastId();
    await user.say(`/renewal ${ADDRESS} 100k`);
    await user.newBotMessage(mark, (m) => texts(m).includes("Confirm the new rule"), "the rule preview");
    await user.press(/Confirm/, "the Confirm button");
    await waitFor(async () => sandbox.control.listRules(accountId).length === 1, "the rule");
    mark = await user.lastId();
    await user.say("/settings");
    await user.newBotMessage(mark, (m) => texts(m).includes("Spend guard"), "the settings");
    await user.press(/Rule deliveries/, "the deliveries switch");
    await user.newBotMessage(mark, (m) => texts(m).includes("🔔 Rule deliveries: on"), "deliveries on");
    const ruleId = sandbox.control.listRules(accountId)[0]!.id;
    sandbox.control.setBalance({ accountId, trx: "12" });
    mark = await user.lastId();
    await user.post("/sandbox/fire-rule", { ruleId });
    const delivered = await user.newBotMessage(mark, (m) => texts(m).includes("delivered"), "the delivery alert");
    expect(texts(delivered)).toContain("for 9.35 TRX");
    const low = await user.newBotMessage(mark, (m) => texts(m).includes("Low balance"), "the low-balance alert");
    expect(texts(low)).toContain("Low balance: 2.65 TRX left");
  });

  it("send-webhook has the sandbox post order.filled to this server's receiver with the user's personal token: one filled alert", async () => {
    app = await startApp({ env: playgroundEnv(), perChatMinTimeMs: 0 });
    const user = playClient(app, 7070);
    const { sandbox } = app.sandbox!;
    const accountId = sandbox.demo.accountId;

    const noOrders = await user.request("/sandbox/send-webhook", { userId: 7070 });
    expect(noOrders.status).toBe(409);
    expect(noOrders.json.error).toContain("no orders yet");

    let mark = await user.lastId();
    await user.say(`/connect ${app.sandbox!.demoApiKey}`);
    await user.newBotMessage(
      mark,
      (m) => (m.text ?? "").includes(app!.sandbox!.demoApiKey.slice(-4)),
      "the linked reply",
    );
    mark = await user.lastId();
    await user.say(`/buy energy 65000 1h ${ADDRESS}`);
    await user.newBotMessage(
      mark,
      (m) => (m.replyMarkup?.inline_keyboard.flat() ?? []).some((b) => /Confirm/.test(b.text)),
      "the order preview",
    );
    await user.press(/Confirm/, "the Confirm button");
    const order = await waitFor(async () => sandbox.control.listOrders(accountId)[0], "the order");

    const pending = await user.request("/sandbox/send-webhook", { userId: 7070 });
    expect(pending.status).toBe(409);
    expect(pending.json.error).toContain("still Created");

    // Settled behind the bot's back (no panel nudge), so the alert can only come from the webhook
    // or the follower's own schedule; the receiver's stored event shows which.
    sandbox.control.settleNow({ accountId });
    const stranger = await user.request("/sandbox/send-webhook", { userId: 8080 });
    expect(stranger.status).toBe(409);
    expect(stranger.json.error).toContain("no linked key");
    mark = await user.lastId();
    const sent = (await user.post("/sandbox/send-webhook", { userId: 7070 })) as {
      result: { orderId: string; event: string; eventId: string; delivered: boolean; tokenIssued: boolean };
    };
    expect(sent.result).toEqual({
      orderId: order.id,
      event: "order.filled",
      eventId: expect.any(String),
      delivered: true,
      tokenIssued: true,
    });
    // The receiver stored the sandbox's event (its delivery id) for this user before acknowledging it.
    const stored = await app.db.selectFrom("webhook_events").select("dedupe_key").execute();
    expect(stored).toEqual([{ dedupe_key: `7070:event:${sent.result.eventId}` }]);

    const filled = /Order [0-9a-f]{8}\S* filled/;
    const alert = await user.newBotMessage(mark, (m) => filled.test(m.text ?? ""), "the filled alert");
    expect(alert.text).toContain(order.id.slice(0, 8));
    // Sending again reuses the token the panel issued; the event is a duplicate, so still one alert.
    const again = (await user.post("/sandbox/send-webhook", { userId: 7070, orderId: order.id })) as {
      result: { tokenIssued: boolean };
    };
    expect(again.result.tokenIssued).toBe(false);
    await app.push.checkOrdersNow();
    await new Promise((resolve) => setTimeout(resolve, 1000));
    expect((await user.botMessages()).filter((m) => filled.test(m.text ?? ""))).toHaveLength(1);
  });

  it("has no sandbox panel when MARKETPLACE_URL points at another marketplace", async () => {
    const external = createSandbox();
    const server = await new Promise<ReturnType<typeof serve>>((resolve) => {
      const started = serve({ fetch: external.app.fetch, port: 0, hostname: "127.0.0.1" }, () => resolve(started));
    });
    try {
      app = await startApp({
        env: playgroundEnv({ MARKETPLACE_URL: `http://127.0.0.1:${(server.address() as AddressInfo).port}` }),
        perChatMinTimeMs: 0,
      });
      expect(app.sandbox).toBeNull();
      const user = playClient(app, 9090);
      expect((await fetch(`${app.url}/play`)).status).toBe(200);
      expect(((await (await fetch(`${app.url}/play/api/config`)).json()) as { sandbox: boolean }).sandbox).toBe(false);
      expect((await fetch(`${app.url}/play/api/sandbox`)).status).toBe(404);
      for (const action of ["deposit", "settle", "send-webhook", "webhook"]) {
        const answer = await user.request(`/sandbox/${action}`, { userId: 9090, amount: "5" });
        expect(answer.status).toBe(404);
        expect(answer.json.error).toContain("MARKETPLACE_URL");
      }
    } finally {
      await app?.stop();
      app = undefined;
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  });
});
