import { describe, expect, it } from "vitest";
import { buttonLabels, callbackAnswerText, linkedUser, manageWorld, type World } from "../kit/world";
import type { ChatMessage } from "#src/telegram-fake/index";
import { STEP_TTL_MS } from "#src/bot/guided/steps";

const NOT_THIS_QUESTION = "does not answer the open question";

function dataOf(message: ChatMessage, label: string): string {
  const button = (message.replyMarkup?.inline_keyboard ?? []).flat().find((b) => b.text === label);
  if (!button || !("callback_data" in button)) throw new Error(`no ${label} button`);
  return button.callback_data!;
}

/**
 * The question in `question` shows no buttons any more, and Telegram was asked for exactly that:
 * one edit with none, of its reply markup or (an order question answered) of its text, which then
 * shows the answer chosen (once the bot's update is done).
 */
async function expectButtonsRemoved(world: World, question: ChatMessage): Promise<void> {
  await world.settled();
  const edits = world.fake.calls.filter(
    (call) =>
      ["editMessageReplyMarkup", "editMessageText"].includes(call.method) &&
      Number(call.params.chat_id) === question.chatId &&
      Number(call.params.message_id) === question.messageId,
  );
  expect(
    edits.map((call) => ({
      ok: call.ok,
      keyboard: (call.params.reply_markup as { inline_keyboard?: unknown[] } | undefined)?.inline_keyboard ?? [],
    })),
  ).toEqual([{ ok: true, keyboard: [] }]);
  const now = world.fake.messages(question.chatId).find((message) => message.messageId === question.messageId)!;
  expect(buttonLabels(now)).toEqual([]);
}

/** A press of `label` on a copy of `question` the client still showed (it races the removal): Telegram sends the message as it is now. */
function staleClientPress(world: World, userId: number, question: ChatMessage, label: string, id: string): void {
  const now = world.fake.messages(question.chatId).find((message) => message.messageId === question.messageId)!;
  const chat = { id: question.chatId, type: "private" as const, first_name: `User${userId}` };
  world.fake.injectUpdate({
    callback_query: {
      id,
      from: { id: userId, is_bot: false, first_name: `User${userId}`, language_code: "en" },
      chat_instance: "1",
      data: dataOf(question, label),
      message: {
        message_id: now.messageId,
        from: { id: 123456789, is_bot: true, first_name: "Bot" },
        chat,
        date: now.date,
        text: now.text,
        ...(now.replyMarkup ? { reply_markup: now.replyMarkup } : {}),
      },
    },
  });
}

/**
 * Only the buttons under the open question answer it, and only the open question shows buttons:
 * once answered or closed, a question's buttons are removed (an edit of its reply markup). A press
 * that races the removal, or the second of a double tap, carries a real answer button of an
 * earlier question: it is told so and changes nothing.
 */
describe("a button under an earlier question", () => {
  let world: World;
  manageWorld((started) => (world = started));

  it("each answered question loses its buttons (pressed or typed); a press racing the removal saves no watch and the open question stays open", async () => {
    const user = world.user(9101);
    user.send("/watch");
    const resourceQuestion = await user.nextMessage();
    expect(resourceQuestion.text).toContain("Which resource");
    user.press("Energy");
    const volumeQuestion = await user.nextMessage();
    expect(volumeQuestion.text).toContain("How much");
    await expectButtonsRemoved(world, resourceQuestion);
    user.press("65,000");
    const durationQuestion = await user.nextMessage();
    expect(durationQuestion.text).toContain("how long");
    await expectButtonsRemoved(world, volumeQuestion);
    user.press("1h");
    const priceQuestion = await user.nextMessage();
    expect(priceQuestion.text).toContain("at most how many TRX");
    await expectButtonsRemoved(world, durationQuestion);
    expect(buttonLabels(priceQuestion).some((label) => label.startsWith("≤"))).toBe(true);
    staleClientPress(world, 9101, volumeQuestion, "65,000", "stale-volume");
    expect(await callbackAnswerText(world, "stale-volume")).toContain(NOT_THIS_QUESTION);
    await world.settled();
    expect(await world.app.db.selectFrom("price_watches").selectAll().execute()).toHaveLength(0);
    // The open question still takes its answer, typed: its presets go too.
    user.send("10");
    expect((await user.nextMessage()).text).toContain("10");
    expect(await world.app.db.selectFrom("price_watches").selectAll().execute()).toHaveLength(1);
    await expectButtonsRemoved(world, priceQuestion);
  });

  it("a question closed by a command loses its buttons: a first question left by /buy, a flow's question left by /cancel", async () => {
    const { user } = await linkedUser(world, 9103);
    user.send("/quote");
    const quoteQuestion = await user.nextMessage();
    expect(quoteQuestion.text).toContain("Which resource");
    user.send("/buy");
    const buyQuestion = await user.nextMessage();
    expect(buyQuestion.text).toContain("Which resource");
    await expectButtonsRemoved(world, quoteQuestion);
    // Typed, the answer removes the buttons as a press does.
    user.send("energy");
    const volumeQuestion = await user.nextMessage();
    expect(volumeQuestion.text).toContain("How much");
    await expectButtonsRemoved(world, buyQuestion);
    user.send("/cancel");
    expect((await user.nextMessage()).text).toContain("Cancelled");
    await expectButtonsRemoved(world, volumeQuestion);
  });

  it("a question closed by a main-menu tap, or answered after it expired, loses its buttons", async () => {
    const user = world.user(9105);
    user.send("/start");
    const menu = await user.nextMessage();
    user.send("/watch");
    const watchQuestion = await user.nextMessage();
    expect(watchQuestion.text).toContain("Which resource");
    user.press("💱 Quote");
    const quoteQuestion = await user.nextMessage();
    expect(quoteQuestion.text).toContain("Which resource");
    expect(menu.messageId).toBeLessThan(watchQuestion.messageId);
    await expectButtonsRemoved(world, watchQuestion);
    user.press("Energy");
    const volumeQuestion = await user.nextMessage();
    await expectButtonsRemoved(world, quoteQuestion);
    world.shiftAppClock(STEP_TTL_MS + 1_000);
    user.press("65,000");
    expect((await user.nextMessage()).text).toContain("This question has expired");
    await expectButtonsRemoved(world, volumeQuestion);
  });

  it("a refused answer leaves the buttons in place: the question is still open", async () => {
    const user = world.user(9104);
    user.send("/quote energy");
    const volumeQuestion = await user.nextMessage();
    expect(volumeQuestion.text).toContain("How much");
    user.send("lots");
    await user.nextMessage();
    await world.settled();
    expect(world.fake.calls.filter((call) => call.method === "editMessageReplyMarkup")).toEqual([]);
    user.press("65,000");
    expect((await user.nextMessage()).text).toContain("how long");
    await expectButtonsRemoved(world, volumeQuestion);
  });

  it("a double tap on /quote's Energy answers the resource question once; the second press is told it answers nothing", async () => {
    const user = world.user(9102);
    user.send("/quote");
    const resourceQuestion = await user.nextMessage();
    const data = dataOf(resourceQuestion, "Energy");
    const first = world.fake.pressButton(user.user, resourceQuestion.messageId, data);
    const second = world.fake.pressButton(user.user, resourceQuestion.messageId, data);
    expect((await user.nextMessage()).text).toContain("How much");
    await callbackAnswerText(world, first.callbackQueryId);
    expect(await callbackAnswerText(world, second.callbackQueryId)).toContain(NOT_THIS_QUESTION);
    await world.settled();
    expect(user.botMessages().filter((message) => message.messageId > resourceQuestion.messageId)).toHaveLength(1);
  });
});

/** The question's message is stored with the flow, so a restart between asking and closing still removes its buttons. */
describe("old question buttons across a restart", () => {
  let world: World;
  manageWorld((started) => (world = started), { file: true });

  it("a flow's question answered, and another closed, after restarts; a first question closed after one", async () => {
    const user = world.user(9111);
    user.send("/watch energy");
    const volumeQuestion = await user.nextMessage();
    expect(volumeQuestion.text).toContain("How much");
    await world.restart();
    user.send("65k");
    const durationQuestion = await user.nextMessage();
    expect(durationQuestion.text).toContain("how long");
    await expectButtonsRemoved(world, volumeQuestion);
    await world.restart();
    user.send("/cancel");
    expect((await user.nextMessage()).text).toContain("Cancelled");
    await expectButtonsRemoved(world, durationQuestion);

    user.send("/quote");
    const resourceQuestion = await user.nextMessage();
    await world.restart();
    user.send("/cancel");
    expect((await user.nextMessage()).text).toContain("Cancelled");
    await expectButtonsRemoved(world, resourceQuestion);
  });
});
