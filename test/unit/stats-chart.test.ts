import { join } from "node:path";
import type { InlineKeyboard } from "grammy";
import { PNG } from "pngjs";
import { describe, expect, it } from "vitest";
import { CHART_HEIGHT, CHART_SCALE, CHART_WIDTH, spendingChartSpec } from "#src/reports/chart-spec";
import type { SpendingRecords } from "#src/reports/collect";
import { addDigestButtons } from "#src/bot/features/stats/digest-settings";
import { summarize } from "#src/reports/figures";
import { chartFonts } from "#src/reports/fonts";
import { renderChartPng, renderChartSvg } from "#src/reports/render";
import { buildSpendingReport, CHART_PIXELS, windowKeyboard } from "#src/reports/report";
import { lastDays } from "#src/reports/time-zones";
import { visibleText } from "#src/bot/edit-in-place";
import { volumeText } from "#src/chat/format";
import { createI18n, LANGUAGES, translatorFor } from "#src/chat/i18n";
import type { User } from "#src/db/repos/users";
import { projectRoot } from "#src/paths";

const NOW = Date.parse("2026-11-23T12:00:00Z");
const i18n = createI18n(join(projectRoot(), "locales"));

/** A month with orders every day and six rules, two of them on one target. */
function busyMonth(): SpendingRecords {
  const days = lastDays("UTC", 30, NOW).days;
  const rule = (index: number) => ({
    id: `00000000-0000-4000-8000-00000000000${index}`,
    type: ["auto-refill", "auto-renewal", "smart"][index % 3]!,
    resource: "energy",
    targetAddress: index < 2 ? "TNPeeaaFB7K9cmo4uQpcU32zGK8G1NYqeL" : "TLa2f6VPqDgRE67v1736s7bJ8Ray5wYjU7",
    minimal: null,
    volume: null,
    duration: null,
    spentTrx: "100",
    status: "active",
    pauseReason: null,
    autoResume: false,
    createdAt: "2026-10-01T00:00:00Z",
    updatedAt: "2026-11-23T00:00:00Z",
  });
  return {
    since: lastDays("UTC", 30, NOW).from,
    readAt: NOW,
    orders: days.map((day, index) => ({
      id: `10000000-0000-4000-8000-0000000000${String(index).padStart(2, "0")}`,
      resource: index % 4 ? "energy" : "bandwidth",
      targetAddress: "TNPeeaaFB7K9cmo4uQpcU32zGK8G1NYqeL",
      volume: "1234567",
      duration: "1d",
      priceTrx: "123456.789012",
      activationTrx: "1.1",
      totalTrx: "123457.889012",
      status: index % 5 ? "Filled" : "Failed",
      txId: null,
      createdAt: `${day}T10:00:00Z`,
    })),
    ledger: days.map((day, index) => ({
      id: `20000000-0000-4000-8000-0000000000${String(index).padStart(2, "0")}`,
      type: index % 5 ? "OrderPayment" : "OrderRefund",
      currency: "TRX",
      amount: index % 5 ? "-123457.889012" : "123457.889012",
      txId: null,
      status: "Completed",
      createdAt: `${day}T10:00:00Z`,
    })),
    rules: Array.from({ length: 6 }, (_, index) => ({
      rule: rule(index),
      firings: days
        .filter((_, day) => day % (index + 1) === 0)
        .map((day) => ({
          volume: "131000",
          duration: "1h",
          priceTrx: `${1000 + index}.123456`,
          createdAt: `${day}T05:00:00Z`,
        })),
    })),
    orderStats: { totalOrders: 2_147_483_647, energyDeliveredThisMonth: "9223372036854775807" },
    burn: { volume: "65000", burnCostTrx: "13.65" },
    requests: 30,
    gaps: ["orders", "ledger", "firings"],
  };
}

const decode = (png: Buffer) => PNG.sync.read(png);

/** The y axis's labels of a chart of `records` over 7 days: the texts that are numbers (the days are dates). */
async function amountLabels(records: SpendingRecords): Promise<string[]> {
  const figures = summarize(records, lastDays("UTC", 7, NOW));
  const svg = await renderChartSvg(
    spendingChartSpec(figures, {
      title: "",
      subtitle: "",
      axis: "TRX",
      sources: new Map(figures.sources.map((source, index) => [source.id, `source ${index}`])),
      days: new Map(),
      font: "sans-serif",
      numberFont: "sans-serif",
    }),
  );
  return [...svg.matchAll(/<text[^>]*>([^<]*)<\/text>/g)]
    .map((match) => match[1]!)
    .filter((text) => /^-?\d[\d.,]*[a-zµ]?$/i.test(text));
}

describe("the /stats chart", () => {
  it("labels its amounts each on its own: the axis starts at 0 (not 0k), thousands as k, under 1 TRX as decimals (never milli)", async () => {
    const large = await amountLabels(busyMonth());
    expect(large[0]).toBe("0");
    expect(large).not.toContain("0k");
    expect(large.slice(1).every((label) => label.endsWith("k"))).toBe(true);
    const small = busyMonth();
    small.orders = small.orders.map((order) => ({ ...order, priceTrx: "0.3", activationTrx: "0", totalTrx: "0.3" }));
    small.ledger = small.ledger.map((entry) => ({ ...entry, amount: entry.amount.startsWith("-") ? "-0.3" : "0.3" }));
    small.rules = [];
    const labels = await amountLabels(small);
    expect(labels[0]).toBe("0");
    expect(labels.some((label) => /^0\.\d+$/.test(label))).toBe(true);
    expect(labels.filter((label) => /[a-z]$/i.test(label))).toEqual([]);
  });

  it("is a PNG of the stated size in every language, with a caption under Telegram's 1,024 characters even at its longest", async () => {
    expect(CHART_PIXELS).toEqual({ width: CHART_WIDTH * CHART_SCALE, height: CHART_HEIGHT * CHART_SCALE });
    for (const lang of LANGUAGES) {
      const tr = translatorFor(i18n, lang);
      for (const days of [7, 30] as const) {
        const report = await buildSpendingReport({
          tr,
          lang,
          records: busyMonth(),
          window: lastDays("Asia/Shanghai", days, NOW),
          heading: tr("stats-title", { days }),
          period: tr("stats-period", { days }),
          addressLabels: new Map([
            ["TNPeeaaFB7K9cmo4uQpcU32zGK8G1NYqeL", "Главный кошелёк <exchange> & 热钱包 with a long label"],
          ]),
          footer: tr("digest-footer"),
        });
        expect(report.kind).toBe("chart");
        if (report.kind !== "chart") continue;
        const png = decode(report.png);
        expect({ width: png.width, height: png.height }).toEqual(CHART_PIXELS);
        const caption = visibleText(report.caption);
        expect(caption.length, `${lang} ${days}: ${caption}`).toBeLessThanOrEqual(1024);
        // numbers as the user's language writes them, outside any update too (the digest)
        expect(caption).toContain(volumeText("2147483647", lang));
        expect(caption).toContain(volumeText("9223372036854775807", lang));
        if (lang === "ru") expect(caption).toContain("2\u00a0147\u00a0483\u00a0647");
        else expect(caption).toContain("2,147,483,647");
        expect(report.caption).not.toContain("<exchange>");
      }
    }
  });

  // CI installs the font and sets CI=true (.ci/run), so there it runs (and fails without the font);
  // elsewhere a machine without one skips it and the name says why.
  const cjkRuns = chartFonts().cjk !== null || process.env.CI === "true";
  const cjkSkipped = cjkRuns
    ? ""
    : " (skipped: WenQuanYi Micro Hei is not installed; apt-get install fonts-wqy-microhei)";
  it.runIf(cjkRuns)(`draws Chinese glyphs (the CJK font is found)${cjkSkipped}`, async () => {
    expect(chartFonts().cjk).not.toBeNull();
    const figures = summarize(busyMonth(), lastDays("UTC", 7, NOW));
    const texts = (title: string) => ({
      title,
      subtitle: "",
      axis: "TRX",
      sources: new Map(figures.sources.map((source) => [source.id, source.id.slice(0, 8)])),
      days: new Map(),
      font: chartFonts().cjkFamily,
      numberFont: chartFonts().family,
    });
    const drawn = decode(await renderChartPng(spendingChartSpec(figures, texts("每日花费")), { cjk: true }));
    // without the CJK font the same title comes out as the Latin font's empty boxes
    const boxes = decode(await renderChartPng(spendingChartSpec(figures, texts("每日花费")), { cjk: false }));
    let differing = 0;
    for (let y = 0; y < 70; y++) {
      for (let x = 0; x < 300; x++) {
        const offset = (y * drawn.width + x) * 4;
        if (Math.abs(drawn.data[offset]! - boxes.data[offset]!) > 40) differing += 1;
      }
    }
    expect(differing).toBeGreaterThan(300);
  });

  it("keeps callback data short: the 7/30 switch and the digest's settings", () => {
    const tr = translatorFor(i18n, "ru");
    const keyboard = windowKeyboard(tr, 30);
    addDigestButtons(keyboard, tr, { digest_enabled: 1, digest_time_zone: "America/New_York" } as User);
    const buttons = (keyboard as InlineKeyboard).inline_keyboard.flat() as Array<{
      text: string;
      callback_data?: string;
    }>;
    expect(buttons.length).toBeGreaterThan(10);
    for (const button of buttons) expect(Buffer.byteLength(button.callback_data ?? "")).toBeLessThanOrEqual(64);
    expect(buttons.map((button) => button.callback_data)).toEqual(
      expect.arrayContaining(["ss:7", "ss:30", "st:d:off", "st:z:utc", "st:z:nyc"]),
    );
  });
});
