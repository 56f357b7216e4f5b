import { randomBytes } from "node:crypto";
import { describe, expect, it } from "vitest";
import { startApp } from "#src/app";
import {
  ADDRESS_A,
  buttonLabels,
  callbackAnswerText,
  cardOutcome,
  linkKey,
  manageWorld,
  nextBotText,
  type World,
} from "../kit/world";

const HOUR = 60 * 60_000;
const reached = (text: string) => text.includes("the price reached your threshold");

describe("price watches: /watch, the check on the cron tick, alerts through the outbox, /watches", () => {
  let world: World;
  manageWorld((started) => (world = started), { file: true });

  /** Sets the sandbox's energy rate for 1h: 65,000 energy then costs 65,000 × sun. */
  const energyRate = (sunPerUnit: number) =>
    world.sandbox.control.setPrice({ resource: "energy", duration: "1h", sunPerUnit });
  const watchAlerts = async (telegramId: number) =>
    (
      await world.app.db
        .selectFrom("outbox")
        .select(["dedupe_key", "status"])
        .where("telegram_id", "=", telegramId)
        .where("dedupe_key", "like", "watch:%")
        .orderBy("id")
        .execute()
    ).map((row) => row.dedupe_key);
  const alertsShown = (user: ReturnType<World["user"]>) =>
    user.botMessages().filter((message) => reached(message.text ?? "")).length;
  const settle = () => new Promise((resolve) => setTimeout(resolve, 300));

  it("works without a key, fires once per crossing across a restart, rearms above and waits out the cooldown", async () => {
    const user = world.user(5101);
    world.sandboxRequests.length = 0;
    user.send("/watch energy 65k 1h 2.5");
    const card = await user.nextMessage();
    for (const part of ["Price watch", "65,000", "Energy", "1h", "4.225 TRX", "at most 2.5 TRX", "Pause", "Delete"])
      expect(card.text! + buttonLabels(card).join(" ")).toContain(part);
    // The public quote only: no key exists, none is needed.
    expect(world.sandboxRequests.every((request) => request === "GET /api/v1/pricing/quote")).toBe(true);

    expect(await world.app.push.checkPriceWatches()).toMatchObject({ targets: 1, quoted: 1, fired: 0 });
    energyRate(30);
    expect(await world.app.push.checkPriceWatches()).toMatchObject({ fired: 1 });
    const alert = await nextBotText(user, reached);
    for (const part of ["price", "65,000", "Energy", "1h", "1.95 TRX", "2.5 TRX", "UTC"])
      expect(alert.text).toContain(part);
    expect(buttonLabels(alert)).toContain("🛒 Buy now");

    // Still below: the same crossing, no second alert; nor after a restart.
    expect(await world.app.push.checkPriceWatches()).toMatchObject({ fired: 0 });
    await world.restart();
    expect(await world.app.push.checkPriceWatches()).toMatchObject({ fired: 0 });
    await settle();
    expect(alertsShown(user)).toBe(1);
    expect(await watchAlerts(5101)).toEqual([expect.stringMatching(/^watch:[A-Za-z0-9_-]{10}:1$/)]);

    // Back above rearms; below again inside the hour's cooldown stays quiet; after it, a new crossing alerts.
    energyRate(65);
    expect(await world.app.push.checkPriceWatches()).toMatchObject({ rearmed: 1, fired: 0 });
    energyRate(30);
    expect(await world.app.push.checkPriceWatches()).toMatchObject({ fired: 0 });
    world.shiftAppClock(HOUR + 1_000);
    expect(await world.app.push.checkPriceWatches()).toMatchObject({ fired: 1 });
    await nextBotText(user, reached);
    expect(await watchAlerts(5101)).toHaveLength(2);
    expect((await watchAlerts(5101))[1]).toMatch(/:2$/);
  });

  it("the cooldown is chosen on the watch's card; 'after the cooldown' alerts again while the price stays low", async () => {
    const user = world.user(5102);
    user.send("/watch energy 65000 1h 2.5 TRX");
    const card = await user.nextMessage();
    expect(card.text).toContain("Quiet after an alert: 1 h");
    user.press("15 min");
    const edited = await user.nextBotEvent();
    expect(edited.kind).toBe("edit");
    expect(edited.message.messageId).toBe(card.messageId);
    expect(edited.message.text).toContain("Quiet after an alert: 15 min");
    expect(buttonLabels(edited.message)).toContain("✅ 15 min");
    user.press(/Rearm after the cooldown/);
    expect((await user.nextBotEvent()).message.text).toContain("after the cooldown while the price stays");

    energyRate(30);
    expect(await world.app.push.checkPriceWatches()).toMatchObject({ fired: 1 });
    await nextBotText(user, reached);
    world.shiftAppClock(10 * 60_000);
    expect(await world.app.push.checkPriceWatches()).toMatchObject({ fired: 0 });
    world.shiftAppClock(6 * 60_000);
    expect(await world.app.push.checkPriceWatches()).toMatchObject({ fired: 1 });
    await nextBotText(user, reached);
    expect(await watchAlerts(5102)).toHaveLength(2);
  });

  it("Buy now opens a fresh confirmation card (a new preview, never the alert's price) and only Confirm places the order", async () => {
    const { accountId, apiKey } = world.newAccount();
    const user = world.user(5103);
    await linkKey(world, user, apiKey);
    user.send(`/watch energy 65k 1h 2.5 ${ADDRESS_A}`);
    expect((await user.nextMessage()).text).toContain(ADDRESS_A);
    energyRate(30);
    await world.app.push.checkPriceWatches();
    const alert = await nextBotText(user, reached);
    // With a key linked, the user's own total: 1.95 TRX public and the commission.
    expect(alert.text).toContain("Your order would cost 2.145 TRX in all");
    // The price moves between the alert and the tap: the card shows the new one.
    energyRate(40);
    user.press("🛒 Buy now");
    const card = await user.nextMessage();
    expect(card.text).toContain("65,000");
    expect(card.text).toContain(ADDRESS_A);
    expect(card.text).toContain("2.86 TRX");
    expect(card.text).not.toContain("2.145");
    expect(buttonLabels(card)).toContain("✅ Confirm");
    expect(world.sandbox.control.listOrders(accountId)).toHaveLength(0);
    user.press("✅ Confirm");
    expect((await cardOutcome(user)).text).toContain("Order placed");
    expect(world.sandbox.control.listOrders(accountId)).toHaveLength(1);
  });

  it("/watches lists the watches with Pause, Resume and Delete in place; ten at most; the settings switch mutes price alerts", async () => {
    const user = world.user(5104);
    user.send("/watch energy 65k 1h 2.5");
    await user.nextMessage();
    user.send("/watch bandwidth 5k 1d 1");
    await user.nextMessage();
    user.send("/watches");
    const list = await user.nextMessage();
    expect(list.text).toContain("Your price watches (2 of 10)");
    expect(list.text).toContain("5,000 Bandwidth for 1d");
    user.press("⏸ Pause 1");
    let edit = await user.nextBotEvent();
    expect(edit.kind).toBe("edit");
    expect(edit.message.messageId).toBe(list.messageId);
    expect(edit.message.text).toMatch(/1\. .*paused/);
    expect(buttonLabels(edit.message)).toContain("▶️ Resume 1");

    // A paused watch is not checked.
    energyRate(30);
    expect(await world.app.push.checkPriceWatches()).toMatchObject({ targets: 1, fired: 0 });
    user.press("▶️ Resume 1");
    edit = await user.nextBotEvent();
    expect(buttonLabels(edit.message)).toContain("⏸ Pause 1");

    // Price alerts off in /settings: the crossing waits until they are on again.
    user.send("/settings");
    await user.nextMessage();
    user.press(/Price watches/);
    expect((await user.nextBotEvent()).message.text).toMatch(/Price watches: off/);
    expect(await world.app.push.checkPriceWatches()).toMatchObject({ fired: 0 });
    user.press(/Price watches/);
    await user.nextBotEvent();
    expect(await world.app.push.checkPriceWatches()).toMatchObject({ fired: 1 });
    await nextBotText(user, reached);

    user.send("/watches");
    await user.nextMessage();
    user.press("🗑 Delete 2");
    edit = await user.nextBotEvent();
    expect(edit.message.text).toContain("deleted");
    expect(edit.message.text).toContain("(1 of 10)");
    expect(edit.message.text).not.toContain("Bandwidth");

    for (let n = 2; n <= 10; n++) {
      user.send(`/watch energy ${60 + n}k 1d 9`);
      expect((await user.nextMessage()).text).toContain("Watching");
    }
    user.send("/watch energy 80k 1d 9");
    expect((await user.nextMessage()).text).toContain("the most allowed");
  });

  it("crafted or foreign watch buttons change nothing", async () => {
    // The forged presses claim the stranger's message shows the owner's keyboard; it does not, so
    // Telegram may refuse the redraw of that message as "not modified".
    world.allowRejectedCalls();
    const owner = world.user(5110);
    owner.send("/watch energy 65k 1h 2.5");
    const card = await owner.nextMessage();
    owner.send("/watches");
    const list = await owner.nextMessage();
    const stranger = world.user(5111);
    stranger.send("/start");
    const welcome = await stranger.nextMessage();
    let forged = 0;
    /** The stranger presses `data` on a message that shows `markup` (Telegram sends the pressed message as it is). */
    const press = async (data: string, markup?: unknown) => {
      // Past the flood limit's window: this test presses far more than a person does.
      world.shiftAppClock(11_000);
      const queryId = `forged-watch-${++forged}`;
      const from = { id: 5111, is_bot: false, first_name: "User5111", language_code: "en" };
      const message = {
        message_id: welcome.messageId,
        from: { id: 123456789, is_bot: true, first_name: "Energy Sandbox" },
        chat: { id: 5111, type: "private", first_name: "User5111" },
        date: welcome.date,
        text: welcome.text,
        ...(markup ? { reply_markup: markup } : {}),
      };
      world.fake.injectUpdate({ callback_query: { id: queryId, from, message, chat_instance: "1", data } });
      return callbackAnswerText(world, queryId);
    };
    const ownerButtons = [card, list].flatMap((message) =>
      message
        .replyMarkup!.inline_keyboard.flat()
        .map((button) => ({ data: button.callback_data!, markup: message.replyMarkup })),
    );
    const ownerData = ownerButtons.map((button) => button.data);
    expect(ownerData.length).toBeGreaterThan(8);
    for (const { data, markup } of ownerButtons) {
      // Not on the pressed message: refused before any menu reads it.
      expect(await press(data)).toBe("This button is no longer valid.");
      // On it (a copy of the owner's keyboard): the stranger has no such watch, so nothing is done.
      expect(`${data} → ${await press(data, markup)}`).toMatch(
        /→ (This watch no longer exists|The watches changed meanwhile)/,
      );
    }
    const id = /wc\/[0-9a-f]+\/[0-9a-f]+\/([A-Za-z0-9_-]{10})\//.exec(ownerData.join(" "))![1]!;
    expect(await press(`wt:b:${id}`)).toBe("This watch no longer exists.");
    for (const data of ["wc/0/0/AAAAAAAAAA/h1", "wl/9/9/x/h", "wt:b:", "wc/0/0/../../../h123"])
      expect(await press(data)).toBe("This button is no longer valid.");
    owner.send("/watches");
    const after = await owner.nextMessage();
    expect(after.text).toContain("(1 of 10)");
    expect(after.text).toContain("watching");
    expect(after.text).toContain("≤ 2.5 TRX");
  });

  it("/help and the command menu list /watch and /watches in en, ru and zh", async () => {
    const described = { en: "price watch: an alert", ru: "слежение за ценой", zh: "价格监控" };
    for (const [index, language] of (["en", "ru", "zh"] as const).entries()) {
      const user = world.user(5120 + index, { languageCode: language });
      user.send("/help");
      const help = await user.nextMessage();
      expect(help.text).toMatch(new RegExp(`/watch energy 65k 1h 2\\.5 — ${described[language]}`));
      expect(help.text).toMatch(/\/watches — /);
      for (
        let i = 0;
        i < 100 &&
        !world.fake.commands(language === "en" ? "" : language).some((command) => command.command === "watches");
        i++
      )
        await settle();
      expect(world.fake.commands(language === "en" ? "" : language).map((command) => command.command)).toEqual(
        expect.arrayContaining(["watch", "watches"]),
      );
    }
  });

  it("one quote per distinct target per cron tick, whoever watches it and however many replicas tick", async () => {
    for (const id of [5105, 5106, 5107]) {
      const user = world.user(id);
      user.send("/watch energy 65k 1h 2.5");
      await user.nextMessage();
    }
    world.sandboxRequests.length = 0;
    const tick = Date.now() + 60_000;
    expect(await world.app.push.checkPriceWatches(tick)).toMatchObject({ targets: 1, quoted: 1 });
    // Another replica's cron fires for the same second: the tick is already checked.
    expect(await world.app.push.checkPriceWatches(tick)).toBeNull();
    expect(world.sandboxRequests.filter((request) => request.endsWith("/pricing/quote"))).toHaveLength(1);

    // Two checks at once (a replica whose lease ran out and its successor): each crossing is queued once.
    energyRate(30);
    const reports = await Promise.all([world.app.push.checkPriceWatches(), world.app.push.checkPriceWatches()]);
    expect(reports.reduce((sum, report) => sum + (report?.fired ?? 0), 0)).toBe(3);
    for (const id of [5105, 5106, 5107]) expect(await watchAlerts(id)).toHaveLength(1);
  });

  it("two replicas on one database checking the same tick at once: one quote for the target, one alert per watch, each delivered once", async () => {
    const ids = [5131, 5132, 5133];
    const users = ids.map((id) => world.user(id));
    for (const user of users) {
      user.send("/watch energy 65k 1h 2.5");
      await user.nextMessage();
    }
    const replica = await world.startReplica();
    world.sandboxRequests.length = 0;
    const tick = Date.now() + 120_000;
    const quiet = await Promise.all([world.app.push.checkPriceWatches(tick), replica.push.checkPriceWatches(tick)]);
    // one replica checked the tick (the other found it taken), with one quote for the three watches
    expect(quiet.filter((report) => report !== null)).toHaveLength(1);
    expect(quiet.find((report) => report !== null)).toMatchObject({ targets: 1, quoted: 1, fired: 0 });
    expect(world.sandboxRequests.filter((request) => request.endsWith("/pricing/quote"))).toHaveLength(1);

    energyRate(30);
    const crossing = await Promise.all([
      world.app.push.checkPriceWatches(tick + 60_000),
      replica.push.checkPriceWatches(tick + 60_000),
    ]);
    expect(crossing.reduce((sum, report) => sum + (report?.fired ?? 0), 0)).toBe(3);
    expect(world.sandboxRequests.filter((request) => request.endsWith("/pricing/quote"))).toHaveLength(2);
    for (const id of ids) expect(await watchAlerts(id)).toHaveLength(1);
    // both replicas' senders run: each alert still reaches its chat once
    for (const user of users) await nextBotText(user, reached);
    await settle();
    for (const user of users) expect(alertsShown(user)).toBe(1);
  });

  it("a tick whose price quote fails alerts nobody and changes nothing; the next tick checks again", async () => {
    const user = world.user(5109);
    user.send("/watch energy 65k 1h 2.5");
    await user.nextMessage();
    energyRate(30);
    world.sandbox.control.injectFault({ pathPrefix: "/api/v1/pricing/quote", status: 503, times: 50 });
    expect(await world.app.push.checkPriceWatches()).toMatchObject({ targets: 1, quoted: 0, fired: 0 });
    await settle();
    expect(alertsShown(user)).toBe(0);
    expect(await watchAlerts(5109)).toEqual([]);
    world.sandbox.control.clearFaults();
    expect(await world.app.push.checkPriceWatches()).toMatchObject({ quoted: 1, fired: 1 });
    await nextBotText(user, reached);
    expect(alertsShown(user)).toBe(1);
  });

  it("a typed answer is checked like the command's arguments; guided /watch asks what is missing", async () => {
    const user = world.user(5108);
    user.send("/watch energy 65k 1h 2,5");
    expect((await user.nextMessage()).text).toContain("could not read");
    user.send("/watch energy 1k 1h 2.5");
    expect((await user.nextMessage()).text).toContain("volume must be between 10000 and 5000000");
    user.send("/watch energy 65k 1h");
    const ask = await user.nextMessage();
    expect(ask.text).toContain("at most how many TRX");
    expect(ask.text).toContain("4.225 TRX");
    user.send("zero");
    expect((await user.nextMessage()).text).toContain("could not read that TRX amount");
    user.press(/≤ 3\.802/);
    expect((await user.nextMessage()).text).toContain("at most 3.802 TRX");

    // Nothing given: every step is asked, with buttons as shortcuts, and the answer to the last makes the watch.
    user.send("/watch");
    expect((await user.nextMessage()).text).toContain("Which resource");
    user.press("Bandwidth");
    expect((await user.nextMessage()).text).toContain("How much");
    user.send("5k");
    expect((await user.nextMessage()).text).toContain("how long");
    user.press("1d");
    expect((await user.nextMessage()).text).toContain("Now it costs 4.5 TRX");
    await world.restart();
    user.send("4");
    const card = await user.nextMessage();
    expect(card.text).toContain("5,000 Bandwidth for 1d");
    expect(card.text).toContain("at most 4 TRX");
  });

  it("in Russian, the guided /watch takes the words and numbers as that language writes them: энергия, 65к, 2,5", async () => {
    const user = world.user(5109, { languageCode: "ru" });
    user.send("/watch");
    await user.nextMessage();
    user.send("энергия");
    await user.nextMessage();
    user.send("65к");
    await user.nextMessage();
    user.send("1h");
    await user.nextMessage();
    user.send("2,5");
    await user.nextMessage();
    await world.settled();
    const watches = await world.app.db
      .selectFrom("price_watches")
      .selectAll()
      .where("telegram_id", "=", 5109)
      .execute();
    expect(watches.map((watch) => [watch.resource, watch.volume, watch.duration, watch.threshold_sun])).toEqual([
      ["energy", "65000", "1h", "2500000"],
    ]);
  });
});

describe("the playground shows it all: a watch made to fire from the panel, the inline box, deep links", () => {
  interface View {
    messageId: number;
    from: "bot" | "user";
    text?: string;
    viaBot?: { username: string };
    replyMarkup?: { inline_keyboard: Array<Array<{ text: string; callback_data?: string; url?: string }>> };
  }

  it("moves the price with the panel, alerts with Buy now, answers inline queries and sends a chosen result", async () => {
    const app = await startApp({
      env: { DATABASE_URL: ":memory:", PORT: "0", SECRET_KEY: randomBytes(32).toString("base64"), LOG_LEVEL: "silent" },
      perChatMinTimeMs: 0,
    });
    try {
      const userId = 515151;
      const base = `${app.url}/play/api`;
      const post = async (path: string, body: object) => {
        const response = await fetch(`${base}${path}`, {
          method: "POST",
          headers: { "content-type": "application/json", origin: new URL(app.url).origin },
          body: JSON.stringify(body),
        });
        const json = (await response.json()) as Record<string, unknown>;
        if (response.status !== 200) throw new Error(`${path} → ${response.status} ${JSON.stringify(json)}`);
        return json;
      };
      const messages = async () =>
        ((await (await fetch(`${base}/chat?userId=${userId}`)).json()) as { messages: View[] }).messages;
      const waitForMessage = async (test: (message: View) => boolean) => {
        for (let i = 0; i < 200; i++) {
          const found = (await messages()).find(test);
          if (found) return found;
          await new Promise((resolve) => setTimeout(resolve, 50));
        }
        throw new Error("the chat never showed the message waited for");
      };

      await post("/send", { userId, text: "/watch energy 65k 1h 2.5" });
      await waitForMessage((message) => message.from === "bot" && (message.text ?? "").includes("Price watch"));
      const state = (await (await fetch(`${base}/sandbox`)).json()) as {
        prices: Array<{ resource: string; duration: string; sunPerUnit: number }>;
      };
      expect(state.prices).toContainEqual({ resource: "energy", duration: "1h", sunPerUnit: 65, overridden: false });

      const moved = (await post("/sandbox/set-price", { resource: "energy", duration: "1h", sunPerUnit: 30 })) as {
        result: { rate: { sunPerUnit: number }; watches: { fired: number } };
      };
      expect(moved.result.rate.sunPerUnit).toBe(30);
      expect(moved.result.watches.fired).toBe(1);
      const alert = await waitForMessage((message) => reached(message.text ?? ""));
      expect(alert.text).toContain("1.95 TRX");
      expect(alert.replyMarkup!.inline_keyboard.flat().map((button) => button.text)).toContain("🛒 Buy now");

      const inline = (await post("/inline", { userId, query: "65k 1h" })) as {
        inlineQueryId: string;
        answer: { results: Array<{ id: string; title: string }>; cacheTime: number };
      };
      expect(inline.answer.results.map((result) => result.title)).toEqual(["65,000 Energy for 1h: 1.95 TRX"]);
      const chosen = (await post("/inline/choose", {
        userId,
        inlineQueryId: inline.inlineQueryId,
        resultId: inline.answer.results[0]!.id,
      })) as { message: View };
      expect(chosen.message.viaBot?.username).toBeTruthy();
      const link = chosen.message.replyMarkup!.inline_keyboard[0]![0]!.url!;
      await post("/open-link", { userId, url: link });
      // No key linked in this chat: /buy says how to link one.
      await waitForMessage(
        (message) =>
          message.from === "bot" && /connect/i.test(message.text ?? "") && message.messageId > chosen.message.messageId,
      );
      await post("/sandbox/set-price", { resource: "energy", duration: "1h", sunPerUnit: null });
      expect(((await (await fetch(`${base}/sandbox`)).json()) as typeof state).prices).toContainEqual({
        resource: "energy",
        duration: "1h",
        sunPerUnit: 65,
        overridden: false,
      });
    } finally {
      await app.stop();
    }
  });
});
