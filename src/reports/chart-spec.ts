import type { TopLevelSpec } from "vega-lite";
import type { StatsFigures } from "./figures";

/** The chart's size in CSS pixels; the PNG is CHART_SCALE times larger. */
export const CHART_WIDTH = 800;
export const CHART_HEIGHT = 480;
export const CHART_SCALE = 1.5;

/**
 * A dark card with light text: Telegram shows a photo as it is on both its light and its dark
 * theme, and a dark card neither glares in the dark theme nor fades in the light one. The text is
 * 12.8:1 against the card and every series colour at least 5.9:1; grey is kept for "other rules".
 */
export const CHART_THEME = {
  background: "#1f242c",
  text: "#e6e9ee",
  mutedText: "#aab2bd",
  grid: "#39414d",
  series: ["#5aaaf2", "#f5a742", "#4fcfa8", "#f27a96", "#b996f5", "#e6d465"],
  others: "#a3abb5",
} as const;

export interface ChartTexts {
  title: string;
  subtitle: string;
  axis: string;
  /** A display label per source id, unique. */
  sources: Map<string, string>;
  /** A short display label per local date. */
  days: Map<string, string>;
  /** Font family of the title and legend (see fonts.ts: the order matters for CJK). */
  font: string;
  /** Font family of the axes: digits and "TRX". */
  numberFont: string;
}

/** Every day of a 7-day chart is labelled; a 30-day chart labels every fifth, ending today. */
function labelledDays(days: string[]): string[] {
  const step = days.length > 10 ? 5 : 1;
  return days.filter((_, index) => (days.length - 1 - index) % step === 0);
}

/** TRX spent per day, stacked by source (Vega-Lite). Amounts become floats here only to be drawn. */
export function spendingChartSpec(figures: StatsFigures, texts: ChartTexts): TopLevelSpec {
  const dayLabel = (day: string) => texts.days.get(day) ?? day;
  const sourceIds = figures.sources.map((source) => source.id);
  // Orders keep the first colour and each rule its own, whatever else spent in the window.
  let rules = 0;
  const colours = figures.sources.map((source) =>
    source.kind === "orders"
      ? CHART_THEME.series[0]
      : source.kind === "others"
        ? CHART_THEME.others
        : CHART_THEME.series[1 + (rules++ % (CHART_THEME.series.length - 1))]!,
  );
  const values = figures.cells.map((cell) => ({
    day: dayLabel(cell.day),
    source: texts.sources.get(cell.source) ?? cell.source,
    rank: sourceIds.indexOf(cell.source),
    trx: Number(cell.sun) / 1_000_000,
  }));
  return {
    width: CHART_WIDTH,
    height: CHART_HEIGHT,
    autosize: { type: "fit", contains: "padding" },
    padding: { left: 20, right: 28, top: 20, bottom: 16 },
    background: CHART_THEME.background,
    title: {
      text: texts.title,
      subtitle: texts.subtitle,
      anchor: "start",
      color: CHART_THEME.text,
      subtitleColor: CHART_THEME.mutedText,
      fontSize: 20,
      fontWeight: "normal",
      subtitleFontSize: 14,
      subtitlePadding: 6,
      offset: 16,
    },
    data: { values },
    mark: { type: "bar" },
    encoding: {
      x: {
        field: "day",
        type: "ordinal",
        sort: null,
        scale: { domain: figures.window.days.map(dayLabel), paddingInner: 0.25 },
        axis: { title: null, labelAngle: 0, values: labelledDays(figures.window.days).map(dayLabel), ticks: false },
      },
      y: {
        field: "trx",
        type: "quantitative",
        // One value per day and source already (figures.cells): stacked as they are, no aggregate to run.
        stack: "zero",
        // Each label on its own: "~s" gives every tick the largest one's prefix ("0k" at the foot,
        // and "500m", milli-TRX, under 1 TRX). Thousands as "k", anything smaller as it is.
        axis: {
          title: texts.axis,
          tickCount: 5,
          labelExpr: "abs(datum.value) >= 1000 ? format(datum.value / 1000, '~r') + 'k' : format(datum.value, '~r')",
        },
      },
      color: {
        field: "source",
        type: "nominal",
        scale: { domain: sourceIds.map((id) => texts.sources.get(id) ?? id), range: colours },
        legend: {
          title: null,
          orient: "bottom",
          direction: "horizontal",
          columns: 2,
          columnPadding: 28,
          labelLimit: 340,
          symbolType: "square",
          symbolSize: 140,
        },
      },
      order: { field: "rank", type: "quantitative", sort: "ascending" },
    },
    config: {
      font: texts.font,
      view: { stroke: null },
      axis: {
        labelColor: CHART_THEME.mutedText,
        titleColor: CHART_THEME.mutedText,
        gridColor: CHART_THEME.grid,
        domainColor: CHART_THEME.grid,
        tickColor: CHART_THEME.grid,
        labelFontSize: 13,
        titleFontSize: 13,
        titleFontWeight: "normal",
        labelPadding: 6,
        labelFont: texts.numberFont,
        titleFont: texts.numberFont,
      },
      axisX: { grid: false },
      legend: { labelColor: CHART_THEME.text, labelFontSize: 14, rowPadding: 8 },
    },
  };
}
