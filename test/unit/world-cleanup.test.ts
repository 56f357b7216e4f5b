import { existsSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { startWorld } from "../kit/world";

describe("the test world's temporary folder", () => {
  it("holds the SQLite file while the world runs and is removed when it stops", async () => {
    const world = await startWorld({ file: true, sqlite: true });
    const user = world.user(4_100_001);
    user.send("/start");
    await user.nextBotEvent();
    await world.settled();
    expect(existsSync(join(world.dir, "bot.db"))).toBe(true);
    await world.stop();
    expect(existsSync(world.dir)).toBe(false);
  });
});
