import { describe, expect, it } from "vitest";
import {
  ADDRESS_A,
  ADDRESS_B,
  ADDRESS_C,
  buttonLabels,
  linkKey,
  manageWorld,
  nextBotText,
  type World,
} from "../kit/world";

const BOT = "https://t.me/sandbox_energy_bot";
const NOTE = "from a link: check this address";

/**
 * A deep link may carry anyone's address (a stranger posts `buy_…_<their address>` in a group):
 * the buy card says where an address it has never seen from this user came from, just above
 * Confirm, and a watch_ link asks before it saves a watch.
 */
describe("addresses that come from a deep link", () => {
  let world: World;
  manageWorld((started) => (world = started));

  const watchesOf = (id: number) =>
    world.app.db
      .selectFrom("price_watches")
      .select(["address", "threshold_sun"])
      .where("telegram_id", "=", id)
      .execute();

  async function linked(id: number) {
    const user = world.user(id);
    await linkKey(world, user, world.newAccount().apiKey);
    return user;
  }

  it("a buy link with an address the user never used: the card says so above Confirm, also after Refresh; typed, it does not", async () => {
    const user = await linked(7401);
    world.fake.openDeepLink(user.user, `${BOT}?start=buy_energy_65k_1h_${ADDRESS_B}`);
    const card = await nextBotText(user, (text) => text.includes("Total"));
    expect(card.text).toContain(ADDRESS_B);
    expect(card.text!.trim().split("\n").at(-1)).toContain(NOTE);
    expect(buttonLabels(card)).toContain("✅ Confirm");

    // The note stays on the card's fresh preview (it is kept with the card).
    await world.app.db
      .updateTable("pending_actions")
      .set({ created_at: Date.now() - 6 * 60_000 })
      .execute();
    user.press("✅ Confirm");
    await nextBotText(user, (text) => text.includes("5 minutes"));
    user.press(/Refresh/);
    const fresh = await nextBotText(user, (text) => text.includes("Total"));
    expect(fresh.text).toContain(NOTE);

    user.send(`/buy energy 65k 1h ${ADDRESS_B}`);
    const typed = await nextBotText(user, (text) => text.includes("Total"));
    expect(typed.text).not.toContain(NOTE);
  });

  it("a buy link with an address from the user's recent addresses: no note; with another address: the note", async () => {
    const user = await linked(7402);
    user.send(`/buy energy 65k 1h ${ADDRESS_A}`);
    await nextBotText(user, (text) => text.includes("Total"));
    user.press("✅ Confirm");
    await nextBotText(user, (text) => text.includes("Order placed"));
    world.fake.openDeepLink(user.user, `${BOT}?start=buy_energy_65k_1h_${ADDRESS_A}`);
    const card = await nextBotText(user, (text) => text.includes("Total"));
    expect(card.text).toContain(ADDRESS_A);
    expect(card.text).not.toContain(NOTE);
    // The same user, the same kind of link, an address they never used: the note.
    world.fake.openDeepLink(user.user, `${BOT}?start=buy_energy_65k_1h_${ADDRESS_C}`);
    expect((await nextBotText(user, (text) => text.includes("Total"))).text).toContain(NOTE);
  });

  it("a watch link asks first: nothing is saved until Confirm; Cancel saves nothing; Confirm saves it with the link's address", async () => {
    const user = world.user(7403);
    world.fake.openDeepLink(user.user, `${BOT}?start=watch_energy_65k_1h_2p5_${ADDRESS_B}`);
    const question = await user.nextMessage();
    for (const part of [
      "A link asks to save this price watch",
      "65,000",
      "1h",
      "at most 2.5 TRX",
      ADDRESS_B,
      NOTE,
      "Nothing is saved until you tap Confirm",
    ])
      expect(question.text).toContain(part);
    expect(buttonLabels(question)).toEqual(["✅ Confirm", "✖️ Cancel"]);
    await world.settled();
    expect(await watchesOf(7403)).toEqual([]);

    user.press("✖️ Cancel");
    const cancelled = await user.nextBotEvent();
    expect(cancelled.message.messageId).toBe(question.messageId);
    expect(cancelled.message.text).toContain("No watch was saved");
    expect(buttonLabels(cancelled.message)).toEqual([]);
    await world.settled();
    expect(await watchesOf(7403)).toEqual([]);

    world.fake.openDeepLink(user.user, `${BOT}?start=watch_energy_65k_1h_2p5_${ADDRESS_B}`);
    const again = await user.nextMessage();
    expect(again.text).toContain("A link asks to save this price watch");
    user.press("✅ Confirm");
    const card = await nextBotText(user, (text) => text.includes("Price watch"));
    expect(card.text).toContain(ADDRESS_B);
    expect(card.text).toContain("at most 2.5 TRX");
    expect(
      world.fake
        .messages(7403)
        .find((message) => message.messageId === again.messageId)
        ?.replyMarkup?.inline_keyboard.flat() ?? [],
    ).toEqual([]);
    const saved = await watchesOf(7403);
    expect(saved).toHaveLength(1);
    expect(saved[0]!.address).toBe(ADDRESS_B);
  });

  it("a watch link without an address asks too, with no address note; the typed /watch saves at once", async () => {
    const user = world.user(7404);
    world.fake.openDeepLink(user.user, `${BOT}?start=watch_energy_65k_1h_3`);
    const question = await user.nextMessage();
    expect(question.text).toContain("A link asks to save this price watch");
    expect(question.text).not.toContain(NOTE);
    await world.settled();
    expect(await watchesOf(7404)).toEqual([]);
    user.send("/watch energy 65k 1h 3");
    expect((await user.nextMessage()).text).toContain("Price watch");
    expect(await watchesOf(7404)).toHaveLength(1);
  });
});
