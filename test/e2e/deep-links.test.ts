import { describe, expect, it } from "vitest";
import type { ChatMessage } from "#src/telegram-fake/index";
import { ADDRESS_A, buttonLabels, linkKey, manageWorld, type World } from "../kit/world";

const BOT = "https://t.me/sandbox_energy_bot";
const TYPO = "TNPeeaaFB7K9cmo4uQpcU32zGK8G1NYqeM";

/** The deep link behind a message's "Share" link (Telegram's share page carries it as `url`). */
function sharedLink(message: ChatMessage): string {
  const share = message.entities?.find((entity) => entity.url?.startsWith("https://t.me/share/url?"));
  expect(share, `no Share link in: ${message.text}`).toBeDefined();
  return new URL(share!.url!).searchParams.get("url")!;
}

describe("deep links t.me/<bot>?start=<payload>", () => {
  let world: World;
  manageWorld((started) => (world = started));

  it("buy_… with every field goes straight to the confirmation card, as the one-line /buy does", async () => {
    const { apiKey } = world.newAccount();
    const user = world.user(7101);
    await linkKey(world, user, apiKey);
    world.fake.openDeepLink(user.user, `${BOT}?start=buy_energy_65k_1h_${ADDRESS_A}`);
    const card = await user.nextMessage();
    for (const part of ["65,000", "1h", ADDRESS_A, "Total"]) expect(card.text).toContain(part);
    expect(buttonLabels(card)).toContain("✅ Confirm");
  });

  it("buy_… without the address asks for it; without a key says how to link one", async () => {
    const user = world.user(7102);
    world.fake.openDeepLink(user.user, `${BOT}?start=buy_energy_65k_1h`);
    expect((await user.nextMessage()).text).toMatch(/connect/i);
    const { apiKey } = world.newAccount();
    await linkKey(world, user, apiKey);
    world.fake.openDeepLink(user.user, `tg://resolve?domain=sandbox_energy_bot&start=buy_energy_65k_1h`);
    expect((await user.nextMessage()).text).toContain("Which address");
    user.send(ADDRESS_A);
    expect((await user.nextMessage()).text).toContain(ADDRESS_A);
  });

  it("quote_… answers the price, and its Share link opens the same quote", async () => {
    const user = world.user(7103);
    world.fake.openDeepLink(user.user, `${BOT}?start=quote_bandwidth_5k_1d`);
    const quote = await user.nextMessage();
    expect(quote.text).toContain("5,000 Bandwidth for 1d");
    expect(quote.text).toContain("4.5 TRX");
    const link = sharedLink(quote);
    expect(link).toBe(`${BOT}?start=quote_bandwidth_5k_1d`);
    const friend = world.user(7104);
    world.fake.openDeepLink(friend.user, link);
    expect((await friend.nextMessage()).text).toContain("5,000 Bandwidth for 1d");
  });

  it("watch_… makes the watch once confirmed; an order card's Share link opens /buy filled in for someone else", async () => {
    const user = world.user(7105);
    world.fake.openDeepLink(user.user, `${BOT}?start=watch_energy_65k_1h_2p5`);
    expect((await user.nextMessage()).text).toContain("A link asks to save this price watch");
    user.press("✅ Confirm");
    const card = await user.nextMessage();
    expect(card.text).toContain("Price watch");
    expect(card.text).toContain("at most 2.5 TRX");

    const { apiKey } = world.newAccount();
    await linkKey(world, user, apiKey);
    user.send(`/buy energy 131k 1d ${ADDRESS_A}`);
    const order = await user.nextMessage();
    const link = sharedLink(order);
    expect(link).toBe(`${BOT}?start=buy_energy_131k_1d_${ADDRESS_A}`);
    const friend = world.user(7106);
    await linkKey(world, friend, world.newAccount().apiKey);
    world.fake.openDeepLink(friend.user, link);
    const friendCard = await friend.nextMessage();
    expect(friendCard.text).toContain("131,000");
    expect(friendCard.text).toContain(ADDRESS_A);
  });

  it("a link whose values fail the command's checks gets the command's own explanation", async () => {
    const user = world.user(7107);
    world.fake.openDeepLink(user.user, `${BOT}?start=quote_energy_1k_1h`);
    expect((await user.nextMessage()).text).toContain("volume must be between");
    // One value out of the offered ones: said, and that one value asked again (the others kept).
    world.fake.openDeepLink(user.user, `${BOT}?start=watch_energy_65k_2h_1`);
    const asked = await user.nextMessage();
    expect(asked.text).toContain("Please choose one of these durations");
    expect(asked.text).toContain("For how long?");
  });

  it("a bad payload gets a clear message and the plain /start, and nothing is opened", async () => {
    const user = world.user(7108);
    for (const payload of [
      "sell_energy_65k",
      `buy_energy_65k_1h_${TYPO}`,
      "buy_energy_65k_1h_x_y_z",
      "constructor",
      "buy energy 65k",
      "x".repeat(80),
    ]) {
      world.sandboxRequests.length = 0;
      user.send(`/start ${payload}`);
      expect((await user.nextMessage()).text).toContain("That link could not be read");
      const start = await user.nextMessage();
      expect(start.text).toContain("Welcome");
      expect(world.sandboxRequests).toEqual([]);
    }
    // The plain /start is unchanged.
    user.send("/start");
    expect((await user.nextMessage()).text).toContain("Welcome");
  });
});
