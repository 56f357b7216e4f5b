import { describe, expect, it } from "vitest";
import { int32Schema, int64Schema, int64ToJson, parseInt64, toBigInt, toInt64 } from "#src/marketplace/index";

describe("int64Schema", () => {
  it.each([
    [65000, "65000"],
    ["65000", "65000"],
    [0, "0"],
    ["0", "0"],
    [-0, "0"],
    ["-0", "0"],
    [-12, "-12"],
    ["-12", "-12"],
    [Number.MAX_SAFE_INTEGER, "9007199254740991"],
    [Number.MIN_SAFE_INTEGER, "-9007199254740991"],
    ["9007199254740993", "9007199254740993"],
    ["9223372036854775807", "9223372036854775807"],
    ["-9223372036854775808", "-9223372036854775808"],
    [1e3, "1000"],
  ] as const)("accepts %j as %s", (input, expected) => {
    expect(int64Schema.parse(input)).toBe(expected);
  });

  it.each([
    ["1.5", "a decimal fraction"],
    [1.5, "a fractional number"],
    ["065000", "a leading zero"],
    ["+1", "a plus sign"],
    [" 1", "whitespace"],
    ["1e3", "an exponent string"],
    ["", "an empty string"],
    ["0x10", "hex"],
    [9007199254740992, "an unsafe number (already rounded by JSON.parse)"],
    [1e21, "a huge number"],
    [Number.NaN, "NaN"],
    [Number.POSITIVE_INFINITY, "Infinity"],
    ["9223372036854775808", "a value above int64"],
    ["-9223372036854775809", "a value below int64"],
    [null, "null"],
    [true, "a boolean"],
    [{}, "an object"],
  ] as [unknown, string][])("rejects %j (%s)", (input) => {
    expect(int64Schema.safeParse(input).success).toBe(false);
  });

  it("names the problem in the issue", () => {
    const result = int64Schema.safeParse(2 ** 60);
    expect(result.success).toBe(false);
    expect(result.error?.issues[0]?.message).toMatch(/not a safe integer/);
  });
});

describe("int64 helpers", () => {
  it("toBigInt is exact beyond 2^53", () => {
    expect(toBigInt("9007199254740993")).toBe(9007199254740993n);
    expect(toBigInt("-5")).toBe(-5n);
    expect(() => toBigInt("5.0")).toThrow(RangeError);
  });

  it("parseInt64 takes bigints too", () => {
    expect(parseInt64(123n)).toBe("123");
    expect(parseInt64(2n ** 64n)).toBeNull();
  });

  it("toInt64 canonicalises caller input and refuses junk with the field name", () => {
    expect(toInt64(65000)).toBe("65000");
    expect(toInt64(65000n)).toBe("65000");
    expect(() => toInt64("65k", "volume")).toThrow(/volume must be an int64/);
  });

  it.each([
    [65000, 65000],
    ["65000", 65000],
    [65000n, 65000],
    ["9007199254740991", 9007199254740991],
    ["9007199254740992", "9007199254740992"],
    [2n ** 62n, "4611686018427387904"],
    ["-9007199254740993", "-9007199254740993"],
  ] as const)("int64ToJson(%s) sends %s", (input, expected) => {
    expect(int64ToJson(input)).toStrictEqual(expected);
  });
});

describe("int32Schema", () => {
  it.each([
    [20, 20],
    ["20", 20],
    ["0", 0],
    [-1, -1],
  ] as const)("accepts %j", (input, expected) => {
    expect(int32Schema.parse(input)).toBe(expected);
  });

  it.each([[1.5], ["1.5"], ["abc"], [2 ** 31], ["2147483648"], [null], [""]])("rejects %j", (input) => {
    expect(int32Schema.safeParse(input).success).toBe(false);
  });
});
