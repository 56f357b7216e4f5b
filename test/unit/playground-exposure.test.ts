import { describe, expect, it } from "vitest";
import { parseConfig } from "#src/config";
import { hostAllowed } from "#src/playground/guard";

const BOT_TOKEN = "123456:ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghij";

describe("the playground is exposed only on purpose", () => {
  it("refuses a playground start on a non-loopback HOST without PLAYGROUND_PUBLIC=true, saying why and how to allow it", () => {
    for (const host of ["0.0.0.0", "::", "192.168.1.5", "bot.example.com"]) {
      const result = parseConfig({ HOST: host });
      expect(result.ok).toBe(false);
      if (result.ok) continue;
      expect(result.problems).toHaveLength(1);
      expect(result.problems[0]).toMatch(
        new RegExp(
          `^PLAYGROUND_PUBLIC: HOST=${host.replace(/\./g, "\\.")} is not a loopback address and BOT_TOKEN is unset`,
        ),
      );
      for (const words of [
        "dangerous",
        "acts as any simulated user",
        "demo API key",
        "HOST=127.0.0.1",
        "set BOT_TOKEN",
        "set PLAYGROUND_PUBLIC=true",
      ])
        expect(result.problems[0]).toContain(words);
      expect(parseConfig({ HOST: host, PLAYGROUND_PUBLIC: "false" }).ok).toBe(false);
      expect(parseConfig({ HOST: host, PLAYGROUND_PUBLIC: "" }).ok).toBe(false);
    }
  });

  it("allows the start when the playground stays on loopback, is asked for in so many words, or does not exist (BOT_TOKEN)", () => {
    for (const host of [undefined, "", "127.0.0.1", "localhost", "::1"])
      expect(parseConfig({ HOST: host }).ok).toBe(true);
    const exposed = parseConfig({ HOST: "0.0.0.0", PLAYGROUND_PUBLIC: "true" });
    expect(exposed.ok && exposed.config.PLAYGROUND_PUBLIC).toBe(true);
    expect(parseConfig({ HOST: "0.0.0.0", PLAYGROUND_PUBLIC: " TRUE " }).ok).toBe(true);
    expect(parseConfig({ HOST: "0.0.0.0", BOT_TOKEN }).ok).toBe(true);
    const defaults = parseConfig({});
    expect(defaults.ok && defaults.config.PLAYGROUND_PUBLIC).toBe(false);
    const bad = parseConfig({ PLAYGROUND_PUBLIC: "yes" });
    expect(bad.ok ? [] : bad.problems).toEqual(["PLAYGROUND_PUBLIC: expected true or false"]);
  });

  it("answers only a Host that names the server: loopback names on a loopback HOST, the HOST itself, IP addresses on every address, PUBLIC_URL's host", () => {
    const loopback = { host: "127.0.0.1" };
    for (const header of ["127.0.0.1:8080", "localhost:8080", "LOCALHOST", "[::1]:8080", "127.0.0.2"])
      expect(hostAllowed(header, loopback)).toBe(true);
    for (const header of ["evil.example", "10.0.0.7:8080", "[fe80::1]:8080", "app.localhost", "", "bad host"])
      expect(hostAllowed(header, loopback)).toBe(false);

    const everywhere = { host: "0.0.0.0" };
    for (const header of ["127.0.0.1:8080", "localhost", "192.168.1.5:8080", "[fe80::1]:9000"])
      expect(hostAllowed(header, everywhere)).toBe(true);
    for (const header of ["evil.example:8080", "192.168.1.5.nip.io"])
      expect(hostAllowed(header, everywhere)).toBe(false);

    const lan = { host: "192.168.1.5" };
    expect(hostAllowed("192.168.1.5:8080", lan)).toBe(true);
    for (const header of ["192.168.1.6:8080", "localhost:8080", "127.0.0.1:8080"])
      expect(hostAllowed(header, lan)).toBe(false);
    expect(hostAllowed("[fe80::1]:8080", { host: "fe80::1" })).toBe(true);

    const published = { host: "0.0.0.0", publicUrl: "https://play.example.com" };
    expect(hostAllowed("play.example.com", published)).toBe(true);
    expect(hostAllowed("other.example.com", published)).toBe(false);
  });
});
