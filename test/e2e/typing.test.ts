import { describe, expect, it } from "vitest";
import { manageWorld, type World } from "../kit/world";

/**
 * "typing…" belongs to the update being worked on: an update waiting behind its chat's previous
 * one shows nothing of its own until its turn comes, and then shows it while its own slow work runs.
 */
describe("typing while slow, one update of a chat at a time", () => {
  let world: World;
  manageWorld((started) => (world = started), { typing: { afterMs: 150, everyMs: 4_500 } });

  it("three quick /quote with a slow marketplace: typing, price, typing, price, typing, price", async () => {
    world.sandbox.control.injectFault({ pathPrefix: "/api/v1/pricing/quote", delayMs: 800, times: 3 });
    const user = world.user(7301);
    user.send("/quote energy 65k 1h");
    user.send("/quote energy 65k 1h");
    user.send("/quote energy 65k 1h");
    for (let reply = 0; reply < 3; reply++) expect((await user.nextMessage()).text).toContain("65,000");
    const calls = world.fake.calls
      .filter(
        (call) =>
          call.ok &&
          Number(call.params.chat_id) === 7301 &&
          (call.method === "sendChatAction" || call.method === "sendMessage"),
      )
      .sort((a, b) => a.seq - b.seq)
      .map((call) => (call.method === "sendChatAction" ? String(call.params.action) : "price"));
    // Each update said "typing…" once its own quote was slow, never while it waited for its turn.
    expect(calls).toEqual(["typing", "price", "typing", "price", "typing", "price"]);
  });
});

describe("typing while slow, said again every everyMs", () => {
  let world: World;
  manageWorld((started) => (world = started), { typing: { afterMs: 100, everyMs: 400 } });

  it("a quote that takes a second says typing… at its first quiet spell and then every 400 ms, not after each chat action", async () => {
    world.sandbox.control.injectFault({ pathPrefix: "/api/v1/pricing/quote", delayMs: 1_000, times: 1 });
    const user = world.user(7302);
    const sentAt = Date.now();
    user.send("/quote energy 65k 1h");
    expect((await user.nextMessage()).text).toContain("65,000");
    const elapsed = Date.now() - sentAt;
    const typings = world.fake.calls.filter(
      (call) => call.ok && call.method === "sendChatAction" && Number(call.params.chat_id) === 7302,
    );
    // At 100 ms, then every 400 ms while the quote runs: at least twice in its second, and never
    // more than the time allows (a chat action restarting the quiet spell said it every 100 ms).
    expect(typings.length).toBeGreaterThanOrEqual(2);
    expect(typings.length).toBeLessThanOrEqual(1 + Math.floor((elapsed - 100) / 400));
  });
});
