import { describe, expect, it } from "vitest";
import { type World, manageWorld } from "../kit/world";

describe("abuse limits", () => {
  let world: World;
  manageWorld((started) => (world = started));

  it("a flood of updates gets one polite warning, then is dropped", async () => {
    const user = world.user(601);
    for (let i = 0; i < 30; i++) user.send("/help");
    const deadline = Date.now() + 8000;
    const texts = () => world.fake.messages(601).filter((m) => m.from === "bot").map((m) => m.text ?? "");
    while (texts().length < 21 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 25));
    await new Promise((r) => setTimeout(r, 300));
    expect(texts().filter((t) => t.includes("too fast"))).toHaveLength(1);
    expect(texts().filter((t) => t.includes("Commands"))).toHaveLength(20);
  });

  it("caps how often /connect can be tried per hour", async () => {
    const user = world.user(602);
    for (let i = 0; i < 10; i++) {
      user.send(`/connect sk_wrong_key_number_${i}`);
      expect((await user.nextMessage()).text).toContain("did not accept");
      await new Promise((r) => setTimeout(r, 550));
    }
    user.send("/connect sk_wrong_key_number_11");
    expect((await user.nextMessage()).text).toContain("Too many attempts");
  }, 20_000);
});
