import { describe, expect, it } from "vitest";
import { callbackAnswerText, manageWorld, type World } from "../kit/world";
import type { ChatMessage } from "#src/telegram-fake/index";

const NOT_THIS_QUESTION = "does not answer the open question";

function dataOf(message: ChatMessage, label: string): string {
  const button = (message.replyMarkup?.inline_keyboard ?? []).flat().find((b) => b.text === label);
  if (!button || !("callback_data" in button)) throw new Error(`no ${label} button`);
  return button.callback_data!;
}

/**
 * Only the buttons under the open question answer it. Questions keep their buttons in the chat,
 * so a press further up (or the second of a double tap) carries a real answer button of an
 * earlier question: it is told so and changes nothing.
 */
describe("a button under an earlier question", () => {
  let world: World;
  manageWorld((started) => (world = started));

  it("the volume question's 65,000 pressed at /watch's TRX-limit question saves no watch; the question stays open", async () => {
    const user = world.user(9101);
    user.send("/watch");
    expect((await user.nextMessage()).text).toContain("Which resource");
    user.press("Energy");
    const volumeQuestion = await user.nextMessage();
    expect(volumeQuestion.text).toContain("How much");
    user.press("65,000");
    expect((await user.nextMessage()).text).toContain("how long");
    user.press("1h");
    expect((await user.nextMessage()).text).toContain("at most how many TRX");
    const pressed = world.fake.pressButton(user.user, volumeQuestion.messageId, dataOf(volumeQuestion, "65,000"));
    expect(await callbackAnswerText(world, pressed.callbackQueryId)).toContain(NOT_THIS_QUESTION);
    await world.settled();
    expect(await world.app.db.selectFrom("price_watches").selectAll().execute()).toHaveLength(0);
    // The open question still takes its answer.
    user.send("10");
    expect((await user.nextMessage()).text).toContain("10");
    expect(await world.app.db.selectFrom("price_watches").selectAll().execute()).toHaveLength(1);
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
