import { describe, expect, it, vi } from "vitest";
import { callbackAnswerText, manageWorld, type World } from "../kit/world";
import type * as QuoteFeature from "../../src/bot/features/quote";

/**
 * Counts how often the guided /quote runs: @grammyjs/conversations runs a flow's function again
 * (a replay) for every update the flow is given, so the count is the updates it was given.
 */
const quoteRuns = vi.hoisted(() => ({ count: 0 }));
vi.mock("../../src/bot/features/quote", async (importOriginal) => {
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

  it("a sticker and a forged answer button during /quote's first question do not run the flow; the typed answer does, once", async () => {
    const user = world.user(4101);
    const question = user.send("/quote");
    expect((await user.nextMessage()).text).toContain("Which resource");
    await world.settled();
    const afterEntering = quoteRuns.count;
    expect(afterEntering).toBeGreaterThan(0);

    const { id, firstName } = user.user;
    const from = { id, is_bot: false, first_name: firstName, language_code: "en" };
    const chat = { id, type: "private" as const, first_name: firstName };
    world.fake.injectUpdate({ message: { message_id: question.messageId + 100, from, chat, date: Math.floor(Date.now() / 1000), sticker: { file_id: "sticker-1", file_unique_id: "s1", type: "regular", width: 512, height: 512, is_animated: false, is_video: false } } });
    // The rest of the bot answers it as any message it has no use for.
    expect((await user.nextMessage()).text).toContain("didn't understand");
    await world.settled();
    // A button of the question's kind (an answer) whose data is not on the pressed message.
    const open = world.fake.messages(id).filter((message) => message.from === "bot").at(-1)!;
    world.fake.injectUpdate({
      callback_query: { id: "forged-answer", from, chat_instance: "1", data: "a:made-up", message: { message_id: open.messageId, from: { id: 123456789, is_bot: true, first_name: "Bot" }, chat, date: open.date, text: open.text, reply_markup: open.replyMarkup } },
    });
    // Told that the button is not the open question's (the question is not closed).
    expect(await callbackAnswerText(world, "forged-answer")).toBe("This button does not answer the open question. Use the buttons under the last question, or type your answer.");
    await world.settled();
    expect(quoteRuns.count).toBe(afterEntering);

    user.send("energy");
    expect((await user.nextMessage()).text).toContain("How much Energy");
    await world.settled();
    expect(quoteRuns.count).toBe(afterEntering + 1);
    const step = await world.app.db.selectFrom("conversations").select("step").where("chat_id", "=", id).executeTakeFirst();
    expect(step?.step).toBe("quote/volume");

    // Once the flow has ended (/cancel), the same press is told the question is closed.
    user.send("/cancel");
    await user.nextMessage();
    await world.settled();
    world.fake.injectUpdate({
      callback_query: { id: "closed-answer", from, chat_instance: "1", data: "a:made-up", message: { message_id: open.messageId, from: { id: 123456789, is_bot: true, first_name: "Bot" }, chat, date: open.date, text: open.text, reply_markup: open.replyMarkup } },
    });
    expect(await callbackAnswerText(world, "closed-answer")).toBe("This question is closed. Start again from the command.");
  });
});
