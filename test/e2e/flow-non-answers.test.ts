import { describe, expect, it, vi } from "vitest";
import { callbackAnswerText, manageWorld, openStep, type World } from "../kit/world";
import type * as QuoteFeature from "#src/bot/features/quote/index";

/**
 * Counts how often the guided /quote runs: @grammyjs/conversations runs a flow's function again
 * (a replay) for every update the flow is given, so the count is the updates it was given.
 */
const quoteRuns = vi.hoisted(() => ({ count: 0 }));
vi.mock("#src/bot/features/quote/index", async (importOriginal) => {
  const original = await importOriginal<typeof QuoteFeature>();
  return {
    ...original,
    quoteConversation: (...args: Parameters<typeof original.quoteConversation>) => {
      quoteRuns.count += 1;
      return original.quoteConversation(...args);
    },
  };
});

/**
 * An open question takes only answers (typed text, its own buttons). Anything else in the chat
 * meanwhile goes on to the rest of the bot without the flow being run for it, and the question
 * stays open at the same step.
 */
describe("a guided flow is given only the updates that can answer it", () => {
  let world: World;
  manageWorld((started) => (world = started));

  it("a sticker and a forged answer button at either question of /quote do not run the flow; each typed answer does, once", async () => {
    const user = world.user(4101);
    const before = quoteRuns.count;
    const question = user.send("/quote");
    expect((await user.nextMessage()).text).toContain("Which resource");
    await world.settled();
    // The first question is asked before the flow is entered: the flow has not run yet.
    expect(quoteRuns.count).toBe(before);

    const { id, firstName } = user.user;
    const from = { id, is_bot: false, first_name: firstName, language_code: "en" };
    const chat = { id, type: "private" as const, first_name: firstName };
    let sticker = 0;
    /** A sticker, then an answer button whose data is not on the open question's message: neither is an answer. */
    async function nonAnswers() {
      sticker += 1;
      world.fake.injectUpdate({
        message: {
          message_id: question.messageId + 100 + sticker,
          from,
          chat,
          date: Math.floor(Date.now() / 1000),
          sticker: {
            file_id: `sticker-${sticker}`,
            file_unique_id: `s${sticker}`,
            type: "regular",
            width: 512,
            height: 512,
            is_animated: false,
            is_video: false,
          },
        },
      });
      // The rest of the bot answers it as any message it has no use for.
      expect((await user.nextMessage()).text).toContain("didn't understand");
      await world.settled();
      const open = world.fake
        .messages(id)
        .filter((message) => message.from === "bot" && message.text?.includes("?") === true)
        .at(-1)!;
      world.fake.injectUpdate({
        callback_query: {
          id: `forged-answer-${sticker}`,
          from,
          chat_instance: "1",
          data: "a:made-up",
          message: {
            message_id: open.messageId,
            from: { id: 123456789, is_bot: true, first_name: "Bot" },
            chat,
            date: open.date,
            text: open.text,
            reply_markup: open.replyMarkup,
          },
        },
      });
      // Told that the button is not the open question's (the question is not closed).
      expect(await callbackAnswerText(world, `forged-answer-${sticker}`)).toBe(
        "This button does not answer the open question. Use the buttons under the last question, or type your answer.",
      );
      await world.settled();
      return open;
    }

    const open = await nonAnswers();
    expect(quoteRuns.count).toBe(before);
    expect(await openStep(world, id)).toBe("quote/resource");

    // The answer enters the flow, which takes it: one run.
    user.send("energy");
    expect((await user.nextMessage()).text).toContain("How much Energy");
    await world.settled();
    expect(quoteRuns.count).toBe(before + 1);
    expect(await openStep(world, id)).toBe("quote/volume");

    // The same inside the flow: neither runs it; the typed answer replays it once.
    await nonAnswers();
    expect(quoteRuns.count).toBe(before + 1);
    user.send("65k");
    expect((await user.nextMessage()).text).toContain("For how long");
    await world.settled();
    expect(quoteRuns.count).toBe(before + 2);
    expect(await openStep(world, id)).toBe("quote/duration");

    // Once the flow has ended (/cancel), the same press is told the question is closed.
    user.send("/cancel");
    await user.nextMessage();
    await world.settled();
    world.fake.injectUpdate({
      callback_query: {
        id: "closed-answer",
        from,
        chat_instance: "1",
        data: "a:made-up",
        message: {
          message_id: open.messageId,
          from: { id: 123456789, is_bot: true, first_name: "Bot" },
          chat,
          date: open.date,
          text: open.text,
          reply_markup: open.replyMarkup,
        },
      },
    });
    expect(await callbackAnswerText(world, "closed-answer")).toBe(
      "This question is closed. Start again from the command.",
    );
  });
  it("a refused answer to the first question is explained; the question stays open at its step, inside the flow now", async () => {
    const user = world.user(4102);
    user.send("/quote energy");
    expect((await user.nextMessage()).text).toContain("How much Energy");
    expect(await openStep(world, 4102)).toBe("quote/volume");
    user.send("lots");
    const refused = await user.nextMessage();
    expect(refused.text).not.toContain("How much Energy");
    // The flow was entered (its state replaced the first question) and waits at the same step.
    expect(await openStep(world, 4102)).toBe("quote/volume");
    expect(await world.app.db.selectFrom("flows").selectAll().where("telegram_id", "=", 4102).execute()).toHaveLength(
      0,
    );
    user.send("65k");
    expect((await user.nextMessage()).text).toContain("For how long");
    expect(await openStep(world, 4102)).toBe("quote/duration");
  });
});
