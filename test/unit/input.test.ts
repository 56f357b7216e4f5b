import { describe, expect, it } from "vitest";
import { parseVolume, parseDuration, parseResource, checkBounds } from "#src/input/volume";
import { parseTrxLimit } from "#src/input/trx-limit";
import { checkTronAddress } from "#src/input/address";
import { splitArguments } from "#src/input/arguments";
import {
  draftFromArguments,
  limitsFromOptions,
  recheckForResource,
  validateField,
  type OrderDraft,
} from "#src/bot/features/order-params/index";
import { readLabel } from "#src/bot/features/addresses/index";
import type { BotContext } from "#src/bot/context";
import type { OrderOptions } from "#src/marketplace/index";

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

  it.each([
    [9n, "below"],
    [10n, null],
    [11n, null],
    [99n, null],
    [100n, null],
    [101n, "above"],
    [-1n, "below"],
  ] as const)("checks %s against 10–100 → %s", (volume, expected) => {
    expect(checkBounds(volume, 10n, 100n)).toBe(expected);
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

  it("resources in the shipped languages, as their buttons name them", () => {
    expect(parseResource("Энергия")).toBe("energy");
    expect(parseResource("энергию")).toBe("energy");
    expect(parseResource("Пропускная  способность")).toBe("bandwidth");
    expect(parseResource("能量")).toBe("energy");
    expect(parseResource("带宽")).toBe("bandwidth");
    expect(parseResource("вода")).toBeNull();
    expect(parseResource("constructor")).toBeNull();
  });

  it("volumes with the Cyrillic thousand and million", () => {
    expect(parseVolume("30к")).toEqual({ ok: true, volume: 30_000n });
    expect(parseVolume("1.5М")).toEqual({ ok: true, volume: 1_500_000n });
    expect(parseVolume("30кк")).toEqual({ ok: false, reason: "format" });
  });

  it("a TRX limit with a decimal comma only where the language writes one", () => {
    expect(parseTrxLimit("4,275", { decimalComma: true })).toEqual({ ok: true, sun: 4_275_000n });
    expect(parseTrxLimit("4,275 TRX", { decimalComma: true })).toEqual({ ok: true, sun: 4_275_000n });
    expect(parseTrxLimit("4,275")).toEqual({ ok: false, reason: "format" });
    expect(parseTrxLimit("1,234,5", { decimalComma: true })).toEqual({ ok: false, reason: "format" });
    expect(parseTrxLimit("4.275", { decimalComma: true })).toEqual({ ok: true, sun: 4_275_000n });
  });
});

describe("TRON address check", () => {
  it.each([
    "TNPeeaaFB7K9cmo4uQpcU32zGK8G1NYqeL",
    "TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t",
    "TLa2f6VPqDgRE67v1736s7bJ8Ray5wYjU7",
  ])("accepts %s", (address) => {
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

describe("one-line arguments", () => {
  it.each([
    ["energy 65 000 1h", ["energy", "65 000", "1h"]],
    ["65 000 000 energy", ["65 000 000", "energy"]],
    ["1 500 000", ["1 500 000"]],
    ["  energy   65000  ", ["energy", "65000"]],
    ["65 00 1h", ["65", "00", "1h"]],
    ["1000 000", ["1000", "000"]],
    ["65 0000", ["65", "0000"]],
    ["65 000k", ["65", "000k"]],
    ["", []],
  ])("splits %j into %j", (text, expected) => {
    expect(splitArguments(text)).toEqual(expected);
  });
});

/** Options as the marketplace may send them: every int64 as a decimal string. */
const OPTIONS: OrderOptions = {
  resources: [
    { resource: "energy", durations: ["15m", "1h", "1d"], unit: "65000", minVolume: "10000", maxVolume: "5000000" },
    { resource: "Bandwidth", durations: ["1h", "1d"], unit: "350", minVolume: "1000", maxVolume: "1000000" },
  ],
  activationMaxTrx: "1.1",
};
const limits = limitsFromOptions(OPTIONS);
/** validateField only needs the translator: the key and its variables are enough to assert on. */
const ctx = {
  tr: (key: string, vars?: Record<string, string>) => `${key}${vars ? JSON.stringify(vars) : ""}`,
} as unknown as BotContext;

describe("order limits from the options endpoint", () => {
  it("reads int64 strings exactly, matching resources case-insensitively", () => {
    expect(limits.bounds("energy")).toEqual({ min: 10000n, max: 5000000n });
    expect(limits.bounds("bandwidth")).toEqual({ min: 1000n, max: 1000000n });
    expect(limits.durations("bandwidth")).toEqual(["1h", "1d"]);
    const huge = limitsFromOptions({
      ...OPTIONS,
      resources: [{ ...OPTIONS.resources[0]!, maxVolume: "9007199254740993" }],
    });
    expect(huge.bounds("energy")!.max).toBe(9007199254740993n);
  });

  it("without options (no key) offers the quote's durations and no bounds", () => {
    const keyless = limitsFromOptions(null);
    expect(keyless.durations("energy")).toEqual(["15m", "1h", "1d"]);
    expect(keyless.bounds("energy")).toBeNull();
  });

  it.each([
    ["energy", "10000", "10000"],
    ["energy", "10 000", "10000"],
    ["energy", "9999", null],
    ["energy", "5m", "5000000"],
    ["energy", "5,000,001", null],
    ["bandwidth", "1000", "1000"],
    ["bandwidth", "999", null],
    ["bandwidth", "1m", "1000000"],
    ["bandwidth", "1000001", null],
    [undefined, "5m", "5000000"],
    [undefined, "1000", "1000"],
    [undefined, "999", null],
    [undefined, "5000001", null],
  ])("volume for %s: %j → %j", (resource, input, expected) => {
    const check = validateField(ctx, "volume", input, { resource }, limits);
    if (expected === null) {
      expect(check.ok).toBe(false);
      expect(!check.ok && check.message).toMatch(/^input-volume-bounds/);
    } else expect(check).toEqual({ ok: true, value: expected });
  });

  it("a volume or duration given before the resource is re-checked against the chosen one", () => {
    const tooBig = recheckForResource(ctx, { resource: "bandwidth", volume: "2000000", duration: "1h" }, limits);
    expect(tooBig.draft).toEqual({ resource: "bandwidth", duration: "1h" });
    expect(tooBig.problem).toBe('input-volume-bounds{"min":"1,000","max":"1,000,000"}');
    const shortDuration = recheckForResource(ctx, { resource: "bandwidth", volume: "2000", duration: "15m" }, limits);
    expect(shortDuration.draft).toEqual({ resource: "bandwidth", volume: "2000" });
    expect(shortDuration.problem).toMatch(/^input-duration-bad.*1h, 1d/);
    const fine = { resource: "energy", volume: "2000000", duration: "15m" };
    expect(recheckForResource(ctx, fine, limits)).toEqual({ draft: fine, problem: null });
  });

  it("an address button's reference is resolved from the offered addresses only", () => {
    const draft: OrderDraft = { offered: { abcdefghij: "TNPeeaaFB7K9cmo4uQpcU32zGK8G1NYqeL" } };
    expect(validateField(ctx, "address", "@abcdefghij", draft, limits)).toEqual({
      ok: true,
      value: "TNPeeaaFB7K9cmo4uQpcU32zGK8G1NYqeL",
    });
    expect(validateField(ctx, "address", "@zzzzzzzzzz", draft, limits)).toEqual({
      ok: false,
      message: "input-address-format",
    });
  });
});

describe("draftFromArguments", () => {
  it.each([
    [
      "energy 65 000 1h TNPeeaaFB7K9cmo4uQpcU32zGK8G1NYqeL",
      { resource: "energy", volume: "65 000", duration: "1h", address: "TNPeeaaFB7K9cmo4uQpcU32zGK8G1NYqeL" },
    ],
    ["energy 65k 1h", { resource: "energy", volume: "65k", duration: "1h" }],
    ["1h 1 500 000 bandwidth", { resource: "bandwidth", volume: "1 500 000", duration: "1h" }],
    ["65,000 energy", { resource: "energy", volume: "65,000" }],
    ["2m", { volume: "2m" }],
    ["", {}],
  ])("reads %j", (text, draft) => {
    expect(draftFromArguments(text, limits)).toEqual({ draft, rejected: null });
  });

  it.each([
    ["energy 65 00 1h", "00"],
    ["energy 65 0000 1h", "0000"],
    ["energy 1000 000 1h", "000"],
    ["energy 65k 3d", "3d"],
    ["energy 65k 1h 2h", "2h"],
    ["water 65k", "water"],
    ["energy energy", "energy"],
    ["65k 131k", "131k"],
    ["energy <b>", "<b>"],
  ])("rejects %j at %j", (text, rejected) => {
    expect(draftFromArguments(text, limits).rejected).toBe(rejected);
  });
});

describe("address labels", () => {
  it.each([
    ["Treasury", "Treasury"],
    ["  Hot   wallet\n2 ", "Hot wallet 2"],
    ["-", null],
    ["x".repeat(32), "x".repeat(32)],
  ])("reads %j as %j", (input, label) => {
    expect(readLabel(input)).toEqual({ ok: true, label });
  });

  it.each(["", "   ", "x".repeat(33)])("refuses %j", (input) => {
    expect(readLabel(input)).toEqual({ ok: false });
  });
});
