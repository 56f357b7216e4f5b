import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  compactVolume,
  deepLinkUrl,
  parseStartPayload,
  shareUrl,
  startPayload,
  START_PARAMETER,
} from "#src/input/deep-link";
import { parseTrxLimit } from "#src/input/trx-limit";
import { parseVolume } from "#src/input/volume";
import { splitWatchArguments } from "#src/bot/features/watch/parse";
import { readInlineQuery } from "#src/bot/features/inline/index";

const ADDRESS = "TNPeeaaFB7K9cmo4uQpcU32zGK8G1NYqeL";
const TYPO = "TNPeeaaFB7K9cmo4uQpcU32zGK8G1NYqeM";
const DURATIONS = ["15m", "1h", "1d"];

describe("start payloads (deep links)", () => {
  it("reads each command's fields in order into its one-line arguments", () => {
    expect(parseStartPayload(`buy_energy_65k_1h_${ADDRESS}`)).toEqual({
      ok: true,
      link: { command: "buy", arguments: `energy 65000 1h ${ADDRESS}` },
    });
    expect(parseStartPayload("quote_bandwidth_5000_1d")).toEqual({
      ok: true,
      link: { command: "quote", arguments: "bandwidth 5000 1d" },
    });
    expect(parseStartPayload("watch_energy_65k_1h_2p5")).toEqual({
      ok: true,
      link: { command: "watch", arguments: "energy 65000 1h 2.5trx" },
    });
    expect(parseStartPayload(`watch_energy_1500k_1d_3_${ADDRESS}`)).toEqual({
      ok: true,
      link: { command: "watch", arguments: `energy 1500000 1d 3trx ${ADDRESS}` },
    });
    // Fields may stop early: the command asks for the rest.
    expect(parseStartPayload("buy")).toEqual({ ok: true, link: { command: "buy", arguments: "" } });
    expect(parseStartPayload("quote_energy")).toEqual({ ok: true, link: { command: "quote", arguments: "energy" } });
  });

  it("refuses what Telegram would not pass on, unknown commands, malformed and extra fields", () => {
    const reason = (payload: string) => {
      const parsed = parseStartPayload(payload);
      return parsed.ok ? "ok" : parsed.reason;
    };
    expect(reason("")).toBe("charset");
    expect(reason("buy energy")).toBe("charset");
    expect(reason("buy_energy_2.5")).toBe("charset");
    expect(reason("x".repeat(65))).toBe("charset");
    for (const command of ["sell_energy", "start", "constructor", "__proto__", "toString", "BUY_energy"])
      expect(reason(command)).toBe("command");
    expect(reason("buy_energy_lots_1h")).toBe("field");
    expect(reason("buy_65k")).toBe("field");
    expect(reason("buy_energy_65k_forever")).toBe("field");
    expect(reason(`buy_energy_65k_1h_${TYPO}`)).toBe("field");
    expect(reason("watch_energy_65k_1h_0")).toBe("field");
    expect(reason("watch_energy_65k_1h_2p5p1")).toBe("field");
    expect(reason("watch_energy_65k_1h_2p1234567")).toBe("field");
    expect(reason("buy__65k")).toBe("field");
    expect(reason("quote_energy_65k_1h_extra")).toBe("extra");
    expect(reason(`buy_energy_65k_1h_${ADDRESS}_x`)).toBe("extra");
  });

  it("writes payloads Telegram accepts that read back as the same values; the address goes first when 64 characters are not enough", () => {
    expect(startPayload("buy", { resource: "energy", volume: "65000", duration: "1h", address: ADDRESS })).toBe(
      `buy_energy_65k_1h_${ADDRESS}`,
    );
    expect(startPayload("watch", { resource: "energy", volume: 65000n, duration: "1h", maxSun: 2_500_000n })).toBe(
      "watch_energy_65k_1h_2p5",
    );
    expect(startPayload("quote", { resource: "energy" })).toBe("quote_energy");
    const long = startPayload("watch", {
      resource: "bandwidth",
      volume: 1_234_567n,
      duration: "15m",
      maxSun: 123_456_789_012n,
      address: ADDRESS,
    });
    expect(long).toBe("watch_bandwidth_1234567_15m_123456p789012");
    expect(deepLinkUrl("sandbox_energy_bot", long!)).toBe(`https://t.me/sandbox_energy_bot?start=${long}`);
    expect(shareUrl("https://t.me/b?start=quote_energy")).toBe(
      "https://t.me/share/url?url=https%3A%2F%2Ft.me%2Fb%3Fstart%3Dquote_energy",
    );

    fc.assert(
      fc.property(
        fc.constantFrom("buy", "quote", "watch") as fc.Arbitrary<"buy" | "quote" | "watch">,
        fc.constantFrom("energy", "bandwidth"),
        fc.bigInt({ min: 1n, max: 10n ** 12n }),
        fc.constantFrom(...DURATIONS),
        fc.bigInt({ min: 1n, max: 10n ** 12n }),
        fc.boolean(),
        (command, resource, volume, duration, maxSun, withAddress) => {
          const payload = startPayload(command, {
            resource,
            volume,
            duration,
            maxSun,
            address: withAddress ? ADDRESS : null,
          });
          if (payload === null) return;
          expect(payload).toMatch(START_PARAMETER);
          const parsed = parseStartPayload(payload);
          expect(parsed.ok).toBe(true);
          if (!parsed.ok) return;
          const args = parsed.link.arguments.split(" ");
          expect(parsed.link.command).toBe(command);
          expect(args.slice(0, 3)).toEqual([resource, volume.toString(), duration]);
          if (command === "watch") expect(parseTrxLimit(args[3]!)).toEqual({ ok: true, sun: maxSun });
        },
      ),
      { numRuns: 300 },
    );
  });

  it("compact volumes read back through the volume parser", () => {
    for (const volume of [1n, 999n, 1000n, 65000n, 131000n, 1_500_000n, 2_000_000n, 10n ** 12n]) {
      const written = compactVolume(volume);
      expect(parseVolume(written)).toEqual({ ok: true, volume });
    }
    expect(compactVolume(65000n)).toBe("65k");
    expect(compactVolume(2_000_000n)).toBe("2m");
  });
});

describe("/watch arguments and TRX limits", () => {
  it("the first bare number is the volume, the second the limit; a number with TRX is the limit anywhere", () => {
    expect(splitWatchArguments("energy 65k 1h 2.5", DURATIONS)).toEqual({ orderText: "energy 65k 1h", price: "2.5" });
    expect(splitWatchArguments("2.5trx energy 65,000 1h", DURATIONS)).toEqual({
      orderText: "energy 65,000 1h",
      price: "2.5trx",
    });
    expect(splitWatchArguments("energy 65 000 1h 3 TRX", DURATIONS)).toEqual({
      orderText: "energy 65 000 1h",
      price: "3",
    });
    expect(splitWatchArguments(`energy 65k 1h 2.5 ${ADDRESS}`, DURATIONS)).toEqual({
      orderText: `energy 65k 1h ${ADDRESS}`,
      price: "2.5",
    });
    expect(splitWatchArguments("energy 65k", DURATIONS)).toEqual({ orderText: "energy 65k", price: null });
    // A third number stays with the order's arguments, which refuse it by name.
    expect(splitWatchArguments("65k 2 3", DURATIONS)).toEqual({ orderText: "65k 3", price: "2" });
  });

  it("limits are exact decimal TRX above zero", () => {
    expect(parseTrxLimit("2.5")).toEqual({ ok: true, sun: 2_500_000n });
    expect(parseTrxLimit(" 2.5 TRX ")).toEqual({ ok: true, sun: 2_500_000n });
    expect(parseTrxLimit("0.000001")).toEqual({ ok: true, sun: 1n });
    expect(parseTrxLimit("2,5")).toEqual({ ok: false, reason: "format" });
    expect(parseTrxLimit("-1")).toEqual({ ok: false, reason: "format" });
    expect(parseTrxLimit("1e3")).toEqual({ ok: false, reason: "format" });
    expect(parseTrxLimit("0")).toEqual({ ok: false, reason: "zero" });
    expect(parseTrxLimit("0.0000001")).toEqual({ ok: false, reason: "precision" });
    expect(parseTrxLimit("1000001")).toEqual({ ok: false, reason: "high" });
  });
});

describe("inline queries", () => {
  it("reads a volume with an optional resource and duration; empty shows the presets", () => {
    expect(readInlineQuery("65k 1h")).toEqual([{ resource: "energy", volume: 65000n, duration: "1h" }]);
    expect(readInlineQuery("bandwidth 5k 1d")).toEqual([{ resource: "bandwidth", volume: 5000n, duration: "1d" }]);
    expect(readInlineQuery("1D 131,000")).toEqual([{ resource: "energy", volume: 131000n, duration: "1d" }]);
    expect(readInlineQuery("65k")?.map((rent) => rent.duration)).toEqual(DURATIONS);
    expect(readInlineQuery("")!.length).toBeGreaterThan(3);
    for (const bad of ["hello", "energy", "65k 2h", "65k 65k", "energy bandwidth 5k"])
      expect(readInlineQuery(bad)).toBeNull();
  });
});
