import { describe, expect, it } from "vitest";
import { barValue } from "#src/miniapp/spending";

describe("the figure over a dashboard bar", () => {
  it("is short: a tenth under 10 TRX, whole TRX above, rounded half up in integer sun, in the reader's numbers", () => {
    expect(barValue(0n, "en")).toBe("");
    expect(barValue(1n, "en")).toBe("<0.1");
    expect(barValue(49_999n, "en")).toBe("<0.1");
    expect(barValue(50_000n, "en")).toBe("0.1");
    expect(barValue(2_000_000n, "en")).toBe("2");
    expect(barValue(2_449_999n, "en")).toBe("2.4");
    expect(barValue(2_450_000n, "en")).toBe("2.5");
    expect(barValue(9_949_999n, "en")).toBe("9.9");
    expect(barValue(9_950_000n, "en")).toBe("10");
    expect(barValue(10_499_999n, "en")).toBe("10");
    expect(barValue(10_500_000n, "en")).toBe("11");
    expect(barValue(1_234_567_890_000n, "en")).toBe("1,234,568");
    expect(barValue(2_450_000n, "ru")).toBe("2,5");
    expect(barValue(1_234_567_890_000n, "ru")).toMatch(/^1\s234\s568$/);
    expect(barValue(1_234_567_890_000n, "zh")).toBe("1,234,568");
  });
});
