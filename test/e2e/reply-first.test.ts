import { describe, expect, it } from "vitest";
import { manageWorld, type World } from "../kit/world";

/** The calls that reached the fake Telegram for `chatId` after call number `afterSeq`, typing and press answers left out. */
function chatCallsAfter(world: World, chatId: number, afterSeq: number) {
  return world.fake.calls.filter(
    (call) => call.seq > afterSeq && Number(call.params.chat_id) === chatId && call.method !== "sendChatAction",
  );
}

/**
 * The reply a user waits for goes out before work the user is not waiting for. A private chat's
 * calls start at least 250 ms apart (as deployed here), so a closed question's buttons removed
 * before the reply held the reply back a quarter of a second (the bench's p99 at 200 updates/s
 * went from about 2 ms to 250 ms). The removal now takes the chat's next turn, after the reply,
 * and the two calls still keep the chat's pace.
 */
describe("the reply before the work behind it", () => {
  let world: World;
  manageWorld((started) => (world = started), { chatPaceMs: 250 });

  it("an answered question's next question is sent first, its buttons replaced by the answer in the chat's next turn", async () => {
    const user = world.user(9301);
    user.send("/watch");
    const resourceQuestion = await user.nextMessage();
    await world.settled();
    // Past the chat's spacing, so the press's first call may go at once.
    await new Promise((resolve) => setTimeout(resolve, 300));
    const before = world.fake.calls.at(-1)!.seq;
    user.press("Energy");
    expect((await user.nextMessage()).text).toContain("How much");
    await world.settled();
    const calls = chatCallsAfter(world, resourceQuestion.chatId, before);
    // The answered question's buttons give way to the answer chosen.
    expect(calls.map((call) => call.method)).toEqual(["sendMessage", "editMessageText"]);
    expect(Number(calls[1]!.params.message_id)).toBe(resourceQuestion.messageId);
    expect(calls[1]!.params.text).toBe("Which resource? — <b>Energy</b>");
    // The throttler starts the two calls 250 ms apart; the fake stamps each when it answers, and on a
    // loaded machine the first answer can come a little after its start (236 ms apart was seen).
    expect(calls[1]!.at - calls[0]!.at).toBeGreaterThanOrEqual(200);
  });

  it("a menu button pressed while a question is open: the new flow's question first, the old question's buttons after", async () => {
    const user = world.user(9302);
    user.send("/start");
    await user.nextMessage();
    user.send("/quote");
    const resourceQuestion = await user.nextMessage();
    expect(resourceQuestion.replyMarkup?.inline_keyboard.length ?? 0).toBeGreaterThan(0);
    await world.settled();
    await new Promise((resolve) => setTimeout(resolve, 300));
    const before = world.fake.calls.at(-1)!.seq;
    user.send("/watch");
    expect((await user.nextMessage()).text).toContain("Which resource");
    await world.settled();
    const calls = chatCallsAfter(world, resourceQuestion.chatId, before);
    expect(calls.map((call) => call.method)).toEqual(["sendMessage", "editMessageReplyMarkup"]);
    expect(Number(calls[1]!.params.message_id)).toBe(resourceQuestion.messageId);
  });
});
