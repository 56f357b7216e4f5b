import { describe, expect, it } from "vitest";
import { callbackAnswerText, linkKey, manageWorld, type World } from "../kit/world";
import type { ChatMessage } from "#src/telegram-fake/index";
import { findCredential } from "#src/db/repos/credentials";

const GENERIC_ERROR = "Something went wrong on our side";

function dataOf(message: ChatMessage, label: RegExp): string {
  const button = (message.replyMarkup?.inline_keyboard ?? []).flat().find((b) => label.test(b.text));
  if (!button || !("callback_data" in button)) throw new Error(`no ${String(label)} button`);
  return button.callback_data!;
}

/** Presses the button twice before the bot handles the first (both answered), then waits until the bot is idle. */
async function doubleTap(
  world: World,
  user: ReturnType<World["user"]>,
  message: ChatMessage,
  label: RegExp,
): Promise<void> {
  const data = dataOf(message, label);
  const first = world.fake.pressButton(user.user, message.messageId, data);
  const second = world.fake.pressButton(user.user, message.messageId, data);
  await callbackAnswerText(world, first.callbackQueryId);
  await callbackAnswerText(world, second.callbackQueryId);
  await world.settled();
}

/**
 * Two presses of one button before the first is handled (a double tap): both carry the message as
 * it was before the first edit, so the second edit shows nothing new. Telegram refuses such an
 * edit ("message is not modified"); the press is done all the same, and the user sees no error.
 */
describe("a double tap", () => {
  let world: World;
  // The second tap's edit reaches Telegram and is refused, as it would be; each test checks that refusal is the only one.
  manageWorld((started) => (world = started), { allowRejectedCalls: true });

  for (const [label, shows] of [
    [/Confirm/, "Your key and stored data are de"],
    [/Cancel/, "Nothing was changed"],
  ] as const) {
    it(`on /disconnect's ${String(label)}: both presses answered, the message edited once, no error said`, async () => {
      const userId = label.source === "Confirm" ? 9501 : 9502;
      const user = world.user(userId);
      await linkKey(world, user, world.newAccount().apiKey);
      user.send("/disconnect");
      const ask = await user.nextMessage();
      await doubleTap(world, user, ask, label);
      // An error reply, were there one, is sent after the update's handler has failed.
      await new Promise((resolve) => setTimeout(resolve, 500));
      expect(user.botMessages().filter((message) => message.messageId > ask.messageId)).toEqual([]);
      expect(user.botMessages().some((message) => (message.text ?? "").includes(GENERIC_ERROR))).toBe(false);
      expect(world.fake.messages(userId).find((message) => message.messageId === ask.messageId)?.text).toMatch(
        new RegExp(shows, "i"),
      );
      // Confirm's second press finds the key it named already forgotten: it is told the button is no longer valid, and nothing is edited.
      const refused =
        label.source === "Confirm"
          ? []
          : [
              "editMessageText: Bad Request: message is not modified: specified new message content and reply markup are exactly the same as a current content and reply markup of the message",
            ];
      expect(world.fake.rejectedCalls().map((call) => `${call.method}: ${call.description}`)).toEqual(refused);
      expect(Boolean(await findCredential(world.app.db, userId))).toBe(label.source !== "Confirm");
    });
  }
});

/** With the guard as deployed: the second press of a double tap is answered and goes no further. */
describe("a double tap, with double taps dropped as deployed", () => {
  let world: World;
  manageWorld((started) => (world = started), { doubleTapMs: 600 });

  it("on the main menu's Buy asks which resource once", async () => {
    const user = world.user(9601);
    await linkKey(world, user, world.newAccount().apiKey);
    user.send("/start");
    const menu = await user.nextMessage();
    await doubleTap(world, user, menu, /Buy/);
    expect(user.botMessages().filter((message) => (message.text ?? "").includes("Which resource"))).toHaveLength(1);
  });

  it("on /wallet's Top up sends the deposit address once", async () => {
    const user = world.user(9603);
    await linkKey(world, user, world.newAccount().apiKey);
    user.send("/wallet");
    const wallet = await user.nextMessage();
    await doubleTap(world, user, wallet, /Top up/);
    expect(
      user
        .botMessages()
        .filter(
          (message) => message.messageId > wallet.messageId && (message.text ?? "").includes("Top up your balance"),
        ),
    ).toHaveLength(1);
  });

  it("a press of the same button after the window is a new press and runs", async () => {
    const user = world.user(9602);
    await linkKey(world, user, world.newAccount().apiKey);
    user.send("/wallet");
    const wallet = await user.nextMessage();
    const data = dataOf(wallet, /Top up/);
    await callbackAnswerText(world, world.fake.pressButton(user.user, wallet.messageId, data).callbackQueryId);
    await world.settled();
    await new Promise((resolve) => setTimeout(resolve, 700));
    await callbackAnswerText(world, world.fake.pressButton(user.user, wallet.messageId, data).callbackQueryId);
    await world.settled();
    expect(
      user
        .botMessages()
        .filter(
          (message) => message.messageId > wallet.messageId && (message.text ?? "").includes("Top up your balance"),
        ),
    ).toHaveLength(2);
  });
});
