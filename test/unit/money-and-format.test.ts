import { describe, expect, it } from "vitest";
import { addTrx, compareTrx, formatTrxForDisplay, groupThousands, parseTrx, sunToTrx } from "#src/marketplace/money";
import { escapeHtml, truncate } from "#src/chat/html";
import { sunPerUnit } from "#src/chat/format";
import { parseTelegramHtml } from "#src/telegram-fake/index";
import { finalState } from "#src/chat/alerts";

describe("TRX amounts in integer sun", () => {
  it.each([
    ["0", 0n],
    ["1", 1_000_000n],
    ["0.000001", 1n],
    ["12.5", 12_500_000n],
    ["-3.25", -3_250_000n],
    ["1.1000000", 1_100_000n],
  ])("parses %j", (text, sun) => {
    expect(parseTrx(text)).toBe(sun);
  });

  it.each(["", "abc", "1.0000001", "1e3", "1,5"])("rejects %j", (text) => {
    expect(parseTrx(text)).toBeNull();
  });

  it("adds and compares exactly where floats would not", () => {
    expect(addTrx("0.1", "0.2")).toBe("0.3");
    expect(compareTrx("0.3", addTrx("0.1", "0.2"))).toBe(0);
    expect(compareTrx("9007199254740993", "9007199254740992")).toBe(1);
    expect(sunToTrx(-1n)).toBe("-0.000001");
  });

  it("formats for display without re-parsing as a number", () => {
    expect(formatTrxForDisplay("1234567.891")).toBe("1,234,567.891");
    expect(groupThousands("65000")).toBe("65,000");
    expect(groupThousands(1500000n)).toBe("1,500,000");
    expect(sunPerUnit("4.225", 65000n, "en")).toBe("65");
  });
});

describe("HTML for Telegram", () => {
  it("escapes hostile strings so Telegram's parser accepts them", () => {
    const hostile = `<b>&</b><script>alert("x")</script> & < >`;
    const html = `<b>Title</b> ${escapeHtml(hostile)}`;
    const parsed = parseTelegramHtml(html);
    expect(parsed.ok).toBe(true);
    if (parsed.ok) expect(parsed.text).toContain("<script>");
  });

  it("truncates with an ellipsis and never splits a surrogate pair", () => {
    expect(truncate("abcdef", 4)).toBe("abc…");
    expect(truncate("ab😀cd", 4)).toBe("ab…");
    expect(truncate("short", 10)).toBe("short");
  });
});

describe("an order's final state from its status word", () => {
  it.each([
    ["Filled", "filled"],
    ["Succeeded", "filled"],
    ["FULFILLED", "filled"],
    ["Done", "filled"],
    ["Failed", "failed"],
    ["Refunded", "failed"],
    ["Created", null],
    ["Pending", null],
    ["Processing", null],
  ])("%s → %s", (status, expected) => {
    expect(finalState(status)).toBe(expected);
  });
});
