import { existsSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Resvg } from "@resvg/resvg-js";
import { PNG } from "pngjs";
import { describe, expect, it } from "vitest";
import { CHART_SCALE, spendingChartSpec } from "#src/reports/chart-spec";
import type { SpendingRecords } from "#src/reports/collect";
import { summarize, type StatsFigures } from "#src/reports/figures";
import { lastDays } from "#src/reports/time-zones";
import { codePointsOf, fontSubsetter, withSubsetFonts } from "#src/reports/font-subset";
import { chartFonts } from "#src/reports/fonts";
import { renderChartPng, renderChartSvg } from "#src/reports/render";

const NOW = Date.parse("2026-11-23T12:00:00Z");

/** A week of orders and two rules' firings: three sources, labelled in Latin, Cyrillic or Chinese (and markup to escape). */
function figuresOf(labels: readonly string[]): { figures: StatsFigures; sources: Map<string, string> } {
  const window = lastDays("UTC", 7, NOW);
  const rule = (index: number) => ({
    id: `00000000-0000-4000-8000-00000000000${index}`,
    type: "auto-refill",
    resource: "energy",
    targetAddress: "TNPeeaaFB7K9cmo4uQpcU32zGK8G1NYqeL",
    minimal: null,
    volume: null,
    duration: null,
    spentTrx: "10",
    status: "active",
    pauseReason: null,
    autoResume: false,
    createdAt: "2026-10-01T00:00:00Z",
    updatedAt: "2026-11-23T00:00:00Z",
  });
  const records = {
    since: window.from,
    readAt: NOW,
    orders: window.days.map((day, index) => ({
      id: `10000000-0000-4000-8000-0000000000${String(index).padStart(2, "0")}`,
      resource: "energy",
      targetAddress: "TNPeeaaFB7K9cmo4uQpcU32zGK8G1NYqeL",
      volume: "65000",
      duration: "1h",
      priceTrx: `${index + 2}.5`,
      activationTrx: "0",
      totalTrx: `${index + 2}.5`,
      status: "Filled",
      txId: null,
      createdAt: `${day}T10:00:00Z`,
    })),
    ledger: [],
    rules: [0, 1].map((index) => ({
      rule: rule(index),
      firings: window.days.map((day) => ({
        volume: "65000",
        duration: "1h",
        priceTrx: `${3 + index}.25`,
        createdAt: `${day}T05:00:00Z`,
      })),
    })),
    orderStats: null,
    burn: null,
    requests: 3,
    gaps: [],
  } as unknown as SpendingRecords;
  const figures = summarize(records, window);
  return {
    figures,
    sources: new Map(figures.sources.map((source, index) => [source.id, labels[index % labels.length]!])),
  };
}

const decode = (png: Buffer) => PNG.sync.read(png);

describe("the chart's fonts cut down to the chart's characters", () => {
  // CI installs both fonts (.ci/run); a machine without them draws with its system's fonts and
  // has nothing to cut down.
  const fonts = chartFonts();
  const haveFonts = fonts.latin !== null && fonts.cjk !== null;
  // Outside CI a machine without the fonts skips these, and says why in the name; CI installs them.
  const run = haveFonts || process.env.CI === "true";
  const skipped = run
    ? ""
    : " (skipped: DejaVu Sans or WenQuanYi Micro Hei is not installed; apt-get install fonts-dejavu-core fonts-wqy-microhei)";

  it.runIf(run)(`draw exactly the pixels the whole fonts draw, in Latin, Cyrillic and Chinese${skipped}`, async () => {
    expect(fonts.latin).not.toBeNull();
    expect(fonts.cjk).not.toBeNull();
    for (const [title, labels, cjk] of [
      ["Daily spending", ["One-off orders", "Auto-refill → Main <wallet> & co", "Smart · TLa2f6VP…"], false],
      ["Траты по дням", ["Разовые заказы", "Автопополнение → Главный кошелёк", "Умное правило"], false],
      ["每日花费", ["一次性订单", "自动补充 → 热钱包", "智能规则 TLa2f6VP…"], true],
    ] as const) {
      const { figures, sources } = figuresOf(labels);
      expect(figures.sources.length).toBe(3);
      const spec = spendingChartSpec(figures, {
        title,
        subtitle: "22.11 – 23.11 · UTC",
        axis: "TRX",
        sources,
        days: new Map(),
        font: cjk ? fonts.cjkFamily : fonts.family,
        numberFont: fonts.family,
      });
      const svg = await renderChartSvg(spec);
      const files = cjk ? fonts.files : [fonts.latin!];
      const whole = decode(
        new Resvg(svg, {
          fitTo: { mode: "zoom", value: CHART_SCALE },
          font: { loadSystemFonts: false, fontFiles: files, defaultFontFamily: fonts.defaultFamily },
        })
          .render()
          .asPng(),
      );
      const cut = decode(await renderChartPng(spec, { cjk }));
      expect({ width: cut.width, height: cut.height }).toEqual({ width: whole.width, height: whole.height });
      let differing = 0;
      for (let index = 0; index < whole.data.length; index++) if (whole.data[index] !== cut.data[index]) differing += 1;
      expect(differing, title).toBe(0);
    }
  });

  it.runIf(run)(`holds a small part of each font: the chart's characters and printable ASCII${skipped}`, async () => {
    const subsetter = await fontSubsetter();
    expect(subsetter).not.toBeNull();
    const cjk = subsetter!.subset(fonts.cjk!, codePointsOf("每日花费 一次性订单"))!;
    const latin = subsetter!.subset(fonts.latin!, codePointsOf("Траты по дням"))!;
    expect(cjk.byteLength).toBeGreaterThan(1_000);
    expect(cjk.byteLength).toBeLessThan(readFileSync(fonts.cjk!).byteLength / 50);
    expect(latin.byteLength).toBeLessThan(readFileSync(fonts.latin!).byteLength / 5);
    // an sfnt (TrueType) font, not a collection: resvg reads it as one face
    expect(cjk.subarray(0, 4).toString("hex")).toBe("00010000");
  });

  it("writes the subsets only while the chart is drawn, and passes a file it cannot cut down as it is", async () => {
    const dir = mkdtempSync(join(tmpdir(), "not-a-font-"));
    const notFont = join(dir, "notes.ttf");
    writeFileSync(notFont, "this is not a font");
    const files = [notFont, ...(fonts.latin ? [fonts.latin] : [])];
    let seen: string[] = [];
    const result = await withSubsetFonts(files, "Daily spending", (used) => {
      seen = used;
      for (const file of used) expect(existsSync(file), file).toBe(true);
      return "drawn";
    });
    expect(result).toBe("drawn");
    expect(seen[0]).toBe(notFont);
    if (fonts.latin) {
      expect(seen[1]).not.toBe(fonts.latin);
      expect(existsSync(seen[1]!)).toBe(false);
    }
    // also when drawing throws
    let thrown: string[] = [];
    await expect(
      withSubsetFonts(files, "x", (used) => {
        thrown = used;
        throw new Error("resvg failed");
      }),
    ).rejects.toThrow("resvg failed");
    for (const file of thrown.slice(1)) expect(existsSync(file)).toBe(false);
    expect(existsSync(notFont)).toBe(true);
  });
});
