import { afterEach, describe, expect, it } from "vitest";
import { startWorld, type World, manageWorld } from "../kit/world";
import { telegramWebhookSecret } from "#src/app";

describe("foundation: a user talks to the bot through the fake Bot API", () => {
  let world: World;
  manageWorld((started) => (world = started));

  it("answers /start in English, Russian and Chinese by the user's language", async () => {
    const en = world.user(101, { languageCode: "en" });
    en.send("/start");
    const english = await en.nextMessage();
    expect(english.text).toContain("Welcome");
    expect(
      english.replyMarkup?.inline_keyboard
        .flat()
        .map((b) => b.text)
        .join(" "),
    ).toContain("Quote");

    const ru = world.user(102, { languageCode: "ru" });
    ru.send("/start");
    expect((await ru.nextMessage()).text).toMatch(/Добро пожаловать/);

    const zh = world.user(103, { languageCode: "zh-hans" });
    zh.send("/start");
    expect((await zh.nextMessage()).text).toMatch(/欢迎/);
  });

  it("answers a group message with the private-chat note and nothing else", async () => {
    const user = world.user(104);
    const sent = world.fake.sendText(user.user, "/start", { chat: "group", groupId: -100500 });
    const deadline = Date.now() + 5000;
    while (world.fake.messages(sent.chatId).filter((m) => m.from === "bot").length === 0 && Date.now() < deadline)
      await new Promise((r) => setTimeout(r, 20));
    const replies = world.fake.messages(sent.chatId).filter((m) => m.from === "bot");
    expect(replies).toHaveLength(1);
    expect(replies[0]!.text).toContain("private chats");
    // Said once: more messages in that group within the hour get nothing at all.
    world.fake.sendText(user.user, "/buy energy 65k 1h", { chat: "group", groupId: -100500 });
    world.fake.sendText(world.user(106).user, "hello", { chat: "group", groupId: -100500 });
    await new Promise((r) => setTimeout(r, 600));
    expect(world.fake.messages(sent.chatId).filter((m) => m.from === "bot")).toHaveLength(1);
    expect(world.fake.calls.filter((c) => Number(c.params.chat_id) === sent.chatId).map((c) => c.method)).toEqual([
      "sendMessage",
    ]);
  });

  it("gives an unknown command a helpful answer", async () => {
    const user = world.user(105);
    user.send("/frobnicate");
    const reply = await user.nextMessage();
    expect(reply.text).toContain("/frobnicate");
    expect(reply.text).toContain("/help");
  });

  it("lists every command in /help and registers the command menu per language", async () => {
    const user = world.user(106);
    user.send("/help");
    const reply = await user.nextMessage();
    for (const command of ["/connect", "/quote", "/buy", "/rules", "/wallet", "/topup", "/webhook", "/cancel"])
      expect(reply.text).toContain(command);
    const deadline = Date.now() + 5000;
    while (world.fake.commands("zh").length === 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
    expect(world.fake.commands("ru").map((c) => c.command)).toContain("buy");
    expect(world.fake.commands("zh").length).toBeGreaterThan(10);
  });

  it("tells the user about a failing handler with an error id and keeps answering", async () => {
    const original = world.app.deps.db;
    const user = world.user(107);
    user.send("/help");
    await user.nextMessage();
    // Every handler now fails: the database object has lost its methods.
    world.app.deps.db = {} as never;
    user.send("/start");
    const failure = await user.nextMessage();
    expect(failure.text).toMatch(/Something went wrong.*error id/s);
    world.app.deps.db = original;
    user.send("/help");
    expect((await user.nextMessage()).text).toContain("/connect");
    expect(world.logs()).toContain("update handler failed");
  });

  it("a stop in polling mode lets an update being handled finish before the database closes: its reply goes out, nothing fails", async () => {
    const user = world.user(107);
    // The price request of this /quote is held 800 ms at the marketplace, so the stop comes mid-update.
    world.sandbox.control.injectFault({ method: "GET", pathPrefix: "/api/v1/pricing/quote", times: 1, delayMs: 800 });
    user.send("/quote energy 65k 1h");
    const deadline = Date.now() + 5_000;
    while (!world.sandboxRequests.some((request) => request.endsWith("/api/v1/pricing/quote")) && Date.now() < deadline)
      await new Promise((r) => setTimeout(r, 10));
    await world.app.stop();
    const replies = world.fake.calls.filter(
      (call) => call.method === "sendMessage" && Number(call.params.chat_id) === 107,
    );
    expect(replies).toHaveLength(1);
    expect(String(replies[0]!.params.text)).toContain("65,000");
    expect(world.logs()).not.toContain("driver has already been destroyed");
    expect(world.logs()).not.toContain("update handler failed");
  });

  it("serves /healthz, /readyz and /metrics", async () => {
    const health = await fetch(`${world.app.url}/healthz`);
    expect(health.status).toBe(200);
    const ready = await fetch(`${world.app.url}/readyz`);
    expect(ready.status).toBe(200);
    expect(await ready.json()).toMatchObject({ database: "ok" });
    const user = world.user(108);
    user.send("/help");
    await user.nextMessage();
    let metrics = "";
    const deadline = Date.now() + 3000;
    do metrics = await (await fetch(`${world.app.url}/metrics`)).text();
    while (!metrics.includes('bot_updates_handled_total{type="message"') && Date.now() < deadline);
    expect(metrics).toMatch(/bot_updates_handled_total\{type="message",outcome="ok"\} [1-9]/);
    expect(metrics).toContain("process_resident_memory_bytes");
    expect(metrics).toMatch(/http_requests_total\{route="\/healthz",status="200"\} 1/);
  });

  it("/metrics lists every metric family, counting Bot API calls by method and outcome", async () => {
    const user = world.user(110);
    user.send("/help");
    await user.nextMessage();
    const metrics = await (await fetch(`${world.app.url}/metrics`)).text();
    const families = [
      "bot_updates_handled_total",
      "marketplace_api_calls_total",
      "telegram_api_calls_total",
      "http_requests_total",
      "alerts_total",
      "process_resident_memory_bytes",
      "nodejs_heap_size_used_bytes",
      "process_cpu_seconds_total",
      "process_uptime_seconds",
      "replica_info",
    ];
    for (const family of families) expect(metrics).toMatch(new RegExp(`^# TYPE ${family} (counter|gauge)$`, "m"));
    expect(metrics).toMatch(/^telegram_api_calls_total\{method="sendMessage",outcome="ok"\} [1-9]/m);
    expect(metrics).toMatch(/^telegram_api_calls_total\{method="getUpdates",outcome="ok"\} [1-9]/m);
    expect(metrics).toMatch(/^telegram_api_calls_total\{method="getMe",outcome="ok"\} 1$/m);
  });

  it("answers /readyz with 503 while the database is unreachable, and 200 again after", async () => {
    const executor = world.app.db.getExecutor();
    const original = executor.executeQuery.bind(executor);
    // Every query fails as with a database that went away.
    executor.executeQuery = () => Promise.reject(new Error("connect ECONNREFUSED"));
    try {
      const down = await fetch(`${world.app.url}/readyz`);
      expect(down.status).toBe(503);
      expect(await down.json()).toEqual({ status: "not ready", database: "unreachable" });
    } finally {
      executor.executeQuery = original;
    }
    expect((await fetch(`${world.app.url}/readyz`)).status).toBe(200);
    expect(world.logs()).toContain("readiness check: database unreachable");
  });

  it("/cancel inside a guided flow ends it: the next text is not taken as an answer", async () => {
    const user = world.user(111);
    user.send("/quote energy");
    expect((await user.nextMessage()).text).toMatch(/How much energy\?/i);
    user.send("/cancel");
    expect((await user.nextMessage()).text).toBe("Cancelled. Nothing was changed.");
    await world.settled();
    expect(await world.app.db.selectFrom("conversations").selectAll().where("chat_id", "=", 111).execute()).toEqual([]);
    user.send("65000");
    const next = await user.nextMessage();
    expect(next.text).toContain("I didn't understand that");
    expect(next.text).not.toContain("For how long?");
  });

  it("an unknown command inside a guided flow closes it and says so; with no flow open it says only that the command is unknown", async () => {
    const user = world.user(113);
    user.send("/quote energy");
    expect((await user.nextMessage()).text).toMatch(/How much energy\?/i);
    user.send("/qoute");
    const told = (await user.nextMessage()).text;
    expect(told).toContain("I don't know the command /qoute");
    expect(told).toContain("The question I had asked is closed, and nothing was changed.");
    await world.settled();
    expect(await world.app.db.selectFrom("conversations").selectAll().where("chat_id", "=", 113).execute()).toEqual([]);
    user.send("/qoute");
    const again = (await user.nextMessage()).text;
    expect(again).toContain("I don't know the command /qoute");
    expect(again).not.toContain("The question I had asked is closed");
  });

  it("/cancel with no flow says there is nothing to cancel", async () => {
    const user = world.user(112);
    user.send("/cancel");
    expect((await user.nextMessage()).text).toBe("There is nothing to cancel.");
  });

  it("refuses a POST body over 1 MiB, declared or chunked, with 413 before any handler runs", async () => {
    const big = JSON.stringify({ update_id: 1, pad: "x".repeat(1024 * 1024) });
    const declared = await fetch(`${world.app.url}/telegram`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: big,
    });
    expect(declared.status).toBe(413);
    expect(await declared.json()).toEqual({ error: "body too large" });
    // Streamed without a Content-Length (Transfer-Encoding: chunked): counted while it arrives.
    const chunks = [big.slice(0, 600_000), big.slice(600_000)];
    const stream = new ReadableStream<Uint8Array>({
      pull(controller) {
        const next = chunks.shift();
        if (next === undefined) controller.close();
        else controller.enqueue(new TextEncoder().encode(next));
      },
    });
    const chunked = await fetch(`${world.app.url}/telegram`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: stream,
      duplex: "half",
    } as RequestInit);
    expect(chunked.status).toBe(413);
    expect(world.fake.calls.filter((c) => c.method === "sendMessage")).toHaveLength(0);
  });
});

describe("webhook mode", () => {
  let world: World;
  afterEach(async () => {
    await world.stop();
  });

  it("accepts an update on POST /telegram only with the right secret header", async () => {
    world = await startWorld({ env: { BOT_MODE: "webhook", PUBLIC_URL: "https://bot.example.com" } });
    expect(world.fake.webhook?.url).toBe("https://bot.example.com/telegram");
    const secret = telegramWebhookSecret(world.env.SECRET_KEY!);
    expect(world.fake.webhook?.secretToken).toBe(secret);
    const update = {
      update_id: 1,
      message: {
        message_id: 1,
        date: 0,
        chat: { id: 109, type: "private", first_name: "W" },
        from: { id: 109, is_bot: false, first_name: "W", language_code: "en" },
        text: "/help",
        entities: [{ type: "bot_command", offset: 0, length: 5 }],
      },
    };
    const refused = await fetch(`${world.app.url}/telegram`, {
      method: "POST",
      headers: { "content-type": "application/json", "x-telegram-bot-api-secret-token": "wrong" },
      body: JSON.stringify(update),
    });
    expect(refused.status).toBe(401);
    const missing = await fetch(`${world.app.url}/telegram`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify(update),
    });
    expect(missing.status).toBe(401);
    expect(world.fake.calls.filter((c) => c.method === "sendMessage")).toHaveLength(0);
    // With the secret, bodies that are no Telegram update as the bot reads one: 400, nothing handled.
    for (const body of [
      { update_id: 11, message: {} },
      { update_id: 12, message: { message_id: 1, date: 0, chat: {} } },
      { update_id: 13, callback_query: { id: 5 } },
      { update_id: "14" },
      [update],
    ]) {
      const bad = await fetch(`${world.app.url}/telegram`, {
        method: "POST",
        headers: { "content-type": "application/json", "x-telegram-bot-api-secret-token": secret },
        body: JSON.stringify(body),
      });
      expect(bad.status).toBe(400);
    }
    expect(world.fake.calls.filter((c) => c.method === "sendMessage")).toHaveLength(0);
    // the fake must know the chat before the bot can answer in it
    world.fake.sendText({ id: 109, firstName: "W", languageCode: "en" }, "hello");
    const accepted = await fetch(`${world.app.url}/telegram`, {
      method: "POST",
      headers: { "content-type": "application/json", "x-telegram-bot-api-secret-token": secret },
      body: JSON.stringify(update),
    });
    expect(accepted.status).toBe(200);
    const sent = world.fake.calls.filter((c) => c.method === "sendMessage");
    expect(sent.length).toBe(1);
    expect(String(sent[0]!.params.text)).toContain("/connect");
  });

  it("handles the updates of three chats arriving together in order per chat and once each, also when one is redelivered", async () => {
    world = await startWorld({ env: { BOT_MODE: "webhook", PUBLIC_URL: "https://bot.example.com" } });
    const secret = telegramWebhookSecret(world.env.SECRET_KEY!);
    const chats = [301, 302, 303];
    for (const id of chats) world.fake.sendText({ id, firstName: "W", languageCode: "en" }, "hello");
    const updates = chats.flatMap((id, c) =>
      Array.from({ length: 5 }, (_, i) => {
        const text = `/step${i}`;
        return {
          update_id: 1_000 + c * 10 + i,
          message: {
            message_id: 100 + i,
            date: 0,
            chat: { id, type: "private", first_name: "W" },
            from: { id, is_bot: false, first_name: "W", language_code: "en" },
            text,
            entities: [{ type: "bot_command", offset: 0, length: text.length }],
          },
        };
      }),
    );
    const post = (update: unknown) =>
      fetch(`${world.app.url}/telegram`, {
        method: "POST",
        headers: { "content-type": "application/json", "x-telegram-bot-api-secret-token": secret },
        body: JSON.stringify(update),
      });
    // The three chats at once, each chat's updates one after another as Telegram sends them; then a
    // redelivery of one already handled (Telegram retries when an answer was late).
    const answers = await Promise.all(
      chats.map(async (_, c) => {
        const statuses = [];
        for (const update of updates.slice(c * 5, c * 5 + 5)) statuses.push((await post(update)).status);
        return statuses;
      }),
    );
    expect(answers.flat()).toEqual(Array.from({ length: 15 }, () => 200));
    expect((await post(updates[7])).status).toBe(200);
    for (const id of chats) {
      const replies = world.fake.calls
        .filter((call) => call.method === "sendMessage" && Number(call.params.chat_id) === id)
        .map((call) => /\/(step\d)/.exec(String(call.params.text))?.[1]);
      expect(replies).toEqual(["step0", "step1", "step2", "step3", "step4"]);
    }
    const turns = await world.app.db
      .selectFrom("telegram_updates")
      .select(["update_id", "done"])
      .orderBy("update_id")
      .execute();
    expect(turns).toEqual(updates.map((update) => ({ update_id: update.update_id, done: 1 })));
  });
});
