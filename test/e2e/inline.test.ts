import { describe, expect, it } from "vitest";
import type { FakeTelegram, InlineAnswer } from "#src/telegram-fake/index";
import { ALICE, apiError, world as fakeWorld } from "../telegram-fake/grammy-helpers";
import { ADDRESS_A, buttonLabels, linkKey, manageWorld, startWorld, type World } from "../kit/world";

/** The bot's answer to an inline query, once it gave one. */
async function answerTo(fake: FakeTelegram, inlineQueryId: string, timeoutMs = 8000): Promise<InlineAnswer> {
  for (
    const started = Date.now();
    Date.now() - started < timeoutMs;
    await new Promise((resolve) => setTimeout(resolve, 20))
  ) {
    const answer = fake.inlineAnswer(inlineQueryId);
    if (answer) return answer;
  }
  throw new Error(`inline query ${inlineQueryId} was not answered within ${timeoutMs} ms`);
}

const inlineCalls = (fake: FakeTelegram) => fake.calls.filter((call) => call.method === "answerInlineQuery");

describe("inline mode: live quotes in any chat, with a link into the bot", () => {
  let world: World;
  manageWorld((started) => (world = started));

  it("answers '65k 1h' and 'bandwidth 5k 1d' with the live public price within Telegram's limits, never with the user's key", async () => {
    const { apiKey } = world.newAccount();
    const user = world.user(6101);
    await linkKey(world, user, apiKey);
    world.sandboxRequests.length = 0;

    const { inlineQueryId } = world.fake.sendInlineQuery(user.user, "65k 1h", { chatType: "group" });
    const answer = await answerTo(world.fake, inlineQueryId);
    expect(answer.results).toHaveLength(1);
    const [result] = answer.results;
    expect(result!.title).toBe("65,000 Energy for 1h: 4.225 TRX");
    expect(result!.description).toContain("65 sun per unit");
    expect(result!.message.text).toContain("Price: 4.225 TRX");
    expect(answer.cacheTime).toBeGreaterThan(0);
    expect(answer.cacheTime).toBeLessThanOrEqual(30);
    const button = result!.replyMarkup!.inline_keyboard[0]![0]!;
    expect(button.text).toBe("⚡ Buy in the bot");
    expect(button.url).toBe("https://t.me/sandbox_energy_bot?start=buy_energy_65k_1h");
    // Only the public quote: an inline answer may be seen by anyone in the chat.
    expect(world.sandboxRequests).toEqual(["GET /api/v1/pricing/quote"]);

    const bandwidth = await answerTo(
      world.fake,
      world.fake.sendInlineQuery(user.user, "bandwidth 5k 1d").inlineQueryId,
    );
    expect(bandwidth.results.map((each) => each.title)).toEqual(["5,000 Bandwidth for 1d: 4.5 TRX"]);

    // A volume alone: one result per duration; the price cache spares the marketplace a second 1h quote.
    world.sandboxRequests.length = 0;
    const perDuration = await answerTo(world.fake, world.fake.sendInlineQuery(user.user, "65k").inlineQueryId);
    expect(perDuration.results.map((each) => each.title)).toEqual([
      "65,000 Energy for 15m: 3.575 TRX",
      "65,000 Energy for 1h: 4.225 TRX",
      "65,000 Energy for 1d: 5.525 TRX",
    ]);
    expect(world.sandboxRequests).toHaveLength(2);

    const presets = await answerTo(world.fake, world.fake.sendInlineQuery(user.user, "").inlineQueryId);
    expect(presets.results.length).toBeGreaterThanOrEqual(4);
    expect(presets.results.length).toBeLessThanOrEqual(50);
    expect(new Set(presets.results.map((each) => each.id)).size).toBe(presets.results.length);
    expect(presets.results.some((each) => each.title.startsWith("131,000 Energy"))).toBe(true);
    expect(inlineCalls(world.fake).every((call) => call.ok)).toBe(true);
  });

  it("a query it cannot read, or cannot price, gets no results and a button into the bot", async () => {
    const user = world.user(6102);
    const unread = await answerTo(world.fake, world.fake.sendInlineQuery(user.user, "cheap please").inlineQueryId);
    expect(unread.results).toEqual([]);
    expect(unread.button).toEqual({ text: "Type a volume and a duration, e.g. 65k 1h", startParameter: "quote" });
    const unpriced = await answerTo(world.fake, world.fake.sendInlineQuery(user.user, "energy 1k 1h").inlineQueryId);
    expect(unpriced.results).toEqual([]);
    expect(unpriced.button?.startParameter).toBe("quote");
    world.fake.openDeepLink(user.user, `https://t.me/sandbox_energy_bot?start=${unpriced.button!.startParameter}`);
    expect((await user.nextMessage()).text).toContain("Which resource");
  });

  it("a chosen result is sent into the chat as Telegram shows it, and its link opens /buy filled in", async () => {
    const { apiKey } = world.newAccount();
    const user = world.user(6103, { languageCode: "ru" });
    await linkKey(world, user, apiKey);
    const { inlineQueryId } = world.fake.sendInlineQuery(user.user, "65k 1h");
    const answer = await answerTo(world.fake, inlineQueryId);
    expect(answer.results[0]!.title).toContain("65\u00a0000 энергии на 1 ч");
    const sent = world.fake.chooseInlineResult(user.user, inlineQueryId, answer.results[0]!.id);
    expect(sent.from).toBe("user");
    expect(sent.viaBot?.username).toBe("sandbox_energy_bot");
    expect(sent.text).toMatch(/4,225 TRX/);
    expect(buttonLabels(sent)).toEqual(["⚡ Купить в боте"]);
    // The bot does not answer its own result.
    await expect(user.nextBotEvent({ timeoutMs: 600 })).rejects.toThrow(/No bot message/);

    world.fake.openDeepLink(user.user, sent.replyMarkup!.inline_keyboard[0]![0]!.url!);
    expect((await user.nextMessage()).text).toContain("адрес");
    user.send(ADDRESS_A);
    const card = await user.nextMessage();
    expect(card.text).toMatch(/65\s000/);
    expect(card.text).toContain(ADDRESS_A);
  });

  it("the bot logs how to turn inline mode on when getMe says it is off", async () => {
    expect(world.logs()).not.toContain("/setinline");
    world.fake.setInlineMode(false);
    await world.restart();
    expect(world.logs()).toContain("/setinline");
    expect(() => world.fake.sendInlineQuery(world.user(6104).user, "65k 1h")).toThrow(/inline mode is off/);
  });
});

describe("the fake Telegram's inline queries keep Telegram's rules", () => {
  const result = (id: string) => ({
    type: "article" as const,
    id,
    title: `Result ${id}`,
    input_message_content: { message_text: `<b>${id}</b>`, parse_mode: "HTML" as const },
  });

  it("refuses more than 50 results, duplicate or overlong ids, bad messages and a second answer", async () => {
    const { fake, bot } = await fakeWorld();
    const ask = () => fake.sendInlineQuery(ALICE, "65k").inlineQueryId;
    const many = Array.from({ length: 51 }, (_, index) => result(String(index)));
    expect((await apiError(bot.api.answerInlineQuery(ask(), many))).description).toBe("Bad Request: RESULTS_TOO_MUCH");
    expect((await apiError(bot.api.answerInlineQuery(ask(), [result("a"), result("a")]))).description).toBe(
      "Bad Request: RESULT_ID_DUPLICATE",
    );
    expect((await apiError(bot.api.answerInlineQuery(ask(), [result("x".repeat(65))]))).description).toBe(
      "Bad Request: RESULT_ID_INVALID",
    );
    expect(
      (
        await apiError(
          bot.api.answerInlineQuery(ask(), [
            { ...result("b"), input_message_content: { message_text: "<b>x", parse_mode: "HTML" } },
          ]),
        )
      ).description,
    ).toMatch(/can't parse entities/);
    expect(
      (
        await apiError(
          bot.api.answerInlineQuery(ask(), [result("c")], { button: { text: "Open", start_parameter: "buy energy" } }),
        )
      ).description,
    ).toBe("Bad Request: START_PARAM_INVALID");
    const id = ask();
    expect(await bot.api.answerInlineQuery(id, many.slice(0, 50), { cache_time: 5 })).toBe(true);
    expect(fake.inlineAnswer(id)?.results).toHaveLength(50);
    expect(fake.inlineAnswer(id)?.cacheTime).toBe(5);
    expect((await apiError(bot.api.answerInlineQuery(id, [result("d")]))).description).toBe(
      "Bad Request: query is too old and response timeout expired or query ID is invalid",
    );
  });

  it("refuses an answer later than 10 s after the query", async () => {
    let clock = Date.now();
    const { fake, bot } = await fakeWorld({ now: () => clock });
    const { inlineQueryId } = fake.sendInlineQuery(ALICE, "65k 1h");
    clock += 10_001;
    expect((await apiError(bot.api.answerInlineQuery(inlineQueryId, [result("a")]))).description).toBe(
      "Bad Request: query is too old and response timeout expired or query ID is invalid",
    );
  });
});

describe("inline mode over a bot started with it off", () => {
  it("a fresh start says nothing about /setinline when it is on", async () => {
    const world = await startWorld();
    try {
      expect(world.logs()).not.toContain("/setinline");
    } finally {
      await world.stop();
    }
  });
});
