import { describe, expect, it } from "vitest";
import { ADDRESS_A, buttonLabels, linkedUser, manageWorld, nextBotText, type World } from "../kit/world";

/**
 * A one-line /buy or /quote with one wrong argument keeps the good ones and asks for that one
 * value again, with its buttons, as the guided step does: the answer goes on to the card.
 */
describe("a one-line command with one wrong argument", () => {
  let world: World;
  manageWorld((started) => (world = started));

  it("/buy with a duration the marketplace does not list asks for the duration with its buttons; 1d then gives the card with the rest kept", async () => {
    const { user } = await linkedUser(world, 5801);
    user.send(`/buy energy 5m 30d ${ADDRESS_A}`);
    const ask = await user.nextMessage();
    expect(ask.text).toContain("Please choose one of these durations");
    expect(ask.text).toContain("For how long?");
    expect(buttonLabels(ask)).toEqual(expect.arrayContaining(["15m", "1h", "1d"]));
    user.send("1d");
    const card = await nextBotText(user, (text) => text.includes("Total"));
    for (const word of ["Energy", "5,000,000", ADDRESS_A]) expect(card.text).toContain(word);
    expect(buttonLabels(card)).toContain("✅ Confirm");
  });

  it("/buy with a volume out of bounds says the bounds and asks for the volume with its presets; the preset then gives the card", async () => {
    const { user } = await linkedUser(world, 5802);
    user.send(`/buy energy 5 1h ${ADDRESS_A}`);
    const ask = await user.nextMessage();
    expect(ask.text).toContain("That volume is out of bounds");
    expect(ask.text).toContain("How much Energy?");
    expect(buttonLabels(ask)).toEqual(expect.arrayContaining(["65,000", "131,000"]));
    user.press("131,000");
    const card = await nextBotText(user, (text) => text.includes("Total"));
    for (const word of ["131,000", "1h", ADDRESS_A]) expect(card.text).toContain(word);
  });

  it("/quote with a duration not listed asks for it with its buttons; pressing one gives the quote", async () => {
    const user = world.user(5803);
    user.send("/quote energy 65k 30d");
    const ask = await user.nextMessage();
    expect(ask.text).toContain("Please choose one of these durations");
    expect(buttonLabels(ask)).toEqual(["15m", "1h", "1d"]);
    user.press("1h");
    const quote = await nextBotText(user, (text) => text.includes("Price quote"));
    expect(quote.text).toContain("65,000");
  });

  it("/watch with a duration not listed asks for it; the limit given is kept and the watch saved", async () => {
    const user = world.user(5805);
    user.send("/watch energy 65k 30d 2.5");
    const ask = await user.nextMessage();
    expect(ask.text).toContain("Please choose one of these durations");
    expect(buttonLabels(ask)).toEqual(["15m", "1h", "1d"]);
    user.press("1h");
    const saved = await nextBotText(user, (text) => text.includes("2.5 TRX"));
    expect(saved.text).toContain("65,000");
  });

  it("two wrong arguments are told as before, with nothing asked", async () => {
    const user = world.user(5804);
    user.send("/quote energy 65k 30d 2w");
    const reply = await user.nextMessage();
    expect(reply.text).toContain("Please choose one of these durations");
    expect(buttonLabels(reply)).toEqual([]);
  });
});
