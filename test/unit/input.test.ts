import { describe, expect, it } from "vitest";
import { parseVolume, parseDuration, parseResource, checkBounds } from "../../src/input/volume";
import { checkTronAddress } from "../../src/input/address";

describe("volume parsing", () => {
  it.each([
    ["65000", 65000n],
    ["65,000", 65000n],
    ["65 000", 65000n],
    ["65k", 65000n],
    ["65K", 65000n],
    ["131K", 131000n],
    ["1.5m", 1500000n],
    ["1.5M", 1500000n],
    ["2,000,000", 2000000n],
    [" 42 ", 42n],
    ["1.25k", 1250n],
  ])("reads %j as %s", (input, expected) => {
    expect(parseVolume(input)).toEqual({ ok: true, volume: expected });
  });

  it.each([
    ["0", "zero"],
    ["0k", "zero"],
    ["-5", "negative"],
    ["-65k", "negative"],
    ["1.5", "fraction"],
    ["1.0005k", "fraction"],
    ["", "format"],
    ["abc", "format"],
    ["65,00", "format"],
    ["1e6", "format"],
    ["65kk", "format"],
    ["0x10", "format"],
    ["65 00", "format"],
  ])("rejects %j (%s)", (input, reason) => {
    expect(parseVolume(input)).toEqual({ ok: false, reason });
  });

  it("never throws on arbitrary strings (property)", () => {
    const alphabet = "0123456789kKmM.,- \u00a0eE+x/\\<>&漢😀";
    let seed = 12345;
    const random = () => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return seed / 2 ** 31;
    };
    for (let i = 0; i < 5000; i++) {
      const length = Math.floor(random() * 20);
      let text = "";
      for (let j = 0; j < length; j++) text += alphabet[Math.floor(random() * alphabet.length)];
      const result = parseVolume(text);
      expect(typeof result.ok).toBe("boolean");
      if (result.ok) expect(result.volume > 0n).toBe(true);
    }
  });

  it("checks bounds", () => {
    expect(checkBounds(5n, 10n, 100n)).toBe("below");
    expect(checkBounds(500n, 10n, 100n)).toBe("above");
    expect(checkBounds(50n, 10n, 100n)).toBeNull();
  });
});

describe("durations and resources", () => {
  it.each([
    ["1h", ["15m", "1h", "1d"], "1h"],
    ["1H", ["15m", "1h", "1d"], "1h"],
    [" 15M ", ["15m", "1h"], "15m"],
    ["3d", ["15m", "1h", "1d"], null],
    ["", ["1h"], null],
  ])("duration %j of %j → %j", (input, allowed, expected) => {
    expect(parseDuration(input, allowed)).toBe(expected);
  });

  it("resources", () => {
    expect(parseResource("Energy")).toBe("energy");
    expect(parseResource("BANDWIDTH")).toBe("bandwidth");
    expect(parseResource("water")).toBeNull();
  });
});

describe("TRON address check", () => {
  it.each(["TNPeeaaFB7K9cmo4uQpcU32zGK8G1NYqeL", "TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t", "TLa2f6VPqDgRE67v1736s7bJ8Ray5wYjU7"])("accepts %s", (address) => {
    expect(checkTronAddress(address)).toEqual({ ok: true, address });
  });

  it.each([
    ["TNPeeaaFB7K9cmo4uQpcU32zGK8G1NYqeM", "checksum"],
    ["TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6T", "checksum"],
    ["TNPeeaaFB7K9cmo4uQpcU32zGK8G1NYqe", "format"],
    ["0x71C7656EC7ab88b098defB751B7401B5f6d8976F", "format"],
    ["TNPeeaaFB7K9cmo4uQpcU32zGK8G1NYqe0", "format"],
    ["1BoatSLRHtKNngkdXEeobR76b53LETtpyT", "format"],
    ["", "format"],
  ])("rejects %s (%s)", (address, reason) => {
    expect(checkTronAddress(address)).toEqual({ ok: false, reason });
  });
});
