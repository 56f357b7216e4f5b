import { describe, expect, it } from "vitest";
import { manageWorld, type World } from "../kit/world";

/** /help teaches each command's shortest useful form, and a typo close to one command is pointed at it. */
describe("help that teaches", () => {
  let world: World;
  manageWorld((started) => (world = started));

  it("/help gives each command that takes arguments an example, and says arguments are optional", async () => {
    const user = world.user(7401);
    user.send("/help");
    const help = await user.nextMessage();
    for (const example of [
      "/quote energy 65k 1h",
      "/buy energy 65k 1h T…",
      "/watch energy 65k 1h 2.5",
      "/refill T… 30k 65k 1h",
      "/renewal T… 65k",
      "/connect <API key>",
    ])
      expect(help.text).toContain(example);
    expect(help.text).toContain("Arguments are optional");
    // The command itself stays outside the code span (tappable as a command); only its example is code.
    const codeSpans = (help.entities ?? [])
      .filter((entity) => entity.type === "code")
      .map((entity) => help.text!.slice(entity.offset, entity.offset + entity.length));
    expect(codeSpans).toEqual(expect.arrayContaining(["energy 65k 1h", "energy 65k 1h T…", "<API key>"]));
    expect(codeSpans.some((span) => span.startsWith("/"))).toBe(false);
    expect(help.text!.length).toBeLessThanOrEqual(4096);
  });

  it("a typo one command is close to gets “did you mean”; one close to none, or to two alike, does not", async () => {
    const user = world.user(7402);
    for (const [typed, suggested] of [
      ["/qoute", "/quote"],
      ["/walet", "/wallet"],
      ["/setings", "/settings"],
      ["/rulse", "/rules"],
    ] as const) {
      user.send(typed);
      const reply = await user.nextMessage();
      expect(reply.text).toContain(`I don't know the command ${typed}`);
      expect(reply.text).toContain(`Did you mean ${suggested}?`);
    }
    user.send("/xyzzy");
    expect((await user.nextMessage()).text).not.toContain("Did you mean");
    // "/watche" is one edit from both /watch and /watches: no single suggestion.
    user.send("/watche");
    expect((await user.nextMessage()).text).not.toContain("Did you mean");
  });

  it("speaks the user's language", async () => {
    const user = world.user(7403, { languageCode: "ru" });
    user.send("/qoute");
    expect((await user.nextMessage()).text).toContain("Вы имели в виду /quote?");
    user.send("/help");
    expect((await user.nextMessage()).text).toContain("/connect <API-ключ>");
  });
});
