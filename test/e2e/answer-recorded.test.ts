import { describe, expect, it } from "vitest";
import { buttonLabels, linkedUser, manageWorld, ADDRESS_A, type World } from "../kit/world";

/**
 * An answered guided question keeps the answer chosen: its message becomes the question and the
 * answer ("Which resource? — Energy"), without buttons, after the next question is sent.
 */
describe("an answered guided question", () => {
  let world: World;
  manageWorld((started) => (world = started));

  it("shows the button pressed or the value typed in place of its buttons", async () => {
    const { user } = await linkedUser(world, 5901);
    user.send("/buy");
    const resource = await user.nextMessage();
    user.press("Energy");
    const volume = await user.nextMessage();
    expect(volume.text).toContain("How much Energy?");
    await world.settled();
    const recorded = world.fake.messages(5901).find((message) => message.messageId === resource.messageId)!;
    expect(recorded.text).toBe("Which resource? — Energy");
    expect(buttonLabels(recorded)).toEqual([]);

    user.send("131k");
    expect((await user.nextMessage()).text).toContain("For how long?");
    await world.settled();
    expect(world.fake.messages(5901).find((message) => message.messageId === volume.messageId)!.text).toBe(
      "How much Energy? — 131k",
    );
    user.press("1h");
    await user.nextMessage();
    user.send(ADDRESS_A);
    await user.nextMessage();
    await world.settled();
    expect(
      world.fake
        .messages(5901)
        .filter((message) => message.from === "bot")
        .map((message) => message.text?.split("\n")[0]),
    ).toContain("For how long? — 1h");
  });
});
