import { describe, expect, it } from "vitest";
import { linkKey, manageWorld, type World } from "../kit/world";

const BOT = "https://t.me/sandbox_energy_bot";
const DURATIONS_TOLD = "Please choose one of these durations: 15m, 1h, 1d.";

/** A duration the marketplace does not list is told which ones it does, typed or in a deep link. */
describe("an unlisted duration in one-line arguments", () => {
  let world: World;
  manageWorld((started) => (world = started));

  it("/quote energy 65k 2h, the same as a deep link, and /buy: the durations are listed, not how volumes are written", async () => {
    const user = world.user(8501);
    user.send("/quote energy 65k 2h");
    // Told, then asked for the duration again with its buttons (the other arguments kept).
    const asked = (await user.nextMessage()).text!;
    expect(asked.startsWith(`${DURATIONS_TOLD}\n\nFor how long?`)).toBe(true);
    world.fake.openDeepLink(user.user, `${BOT}?start=quote_energy_65k_2h`);
    expect((await user.nextMessage()).text).toContain(DURATIONS_TOLD);

    await linkKey(world, user, world.newAccount().apiKey);
    user.send("/buy energy 65k 2h");
    expect((await user.nextMessage()).text).toContain("Please choose one of these durations:");
    // Anything else unread is still named, with how the command is written.
    user.send("/quote energy 65k 1h banana");
    expect((await user.nextMessage()).text).toContain("I could not read “banana”");
  });
});
