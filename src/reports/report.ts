import { InlineKeyboard } from "grammy";
import { sunToTrx } from "#src/marketplace/money";
import { sunPerUnit, trxText, volumeText } from "#src/chat/format";
import { shortAddress, truncate } from "#src/chat/html";
import type { Language, Translate } from "#src/chat/i18n";
import { ruleKind } from "#src/marketplace/rule-words";
import { STATS_REQUEST_LIMIT, type SpendingRecords } from "./collect";
import { CHART_HEIGHT, CHART_SCALE, CHART_WIDTH, spendingChartSpec } from "./chart-spec";
import { isEmpty, summarize, type SpendingSource, type StatsFigures } from "./figures";
import { chartFonts } from "./fonts";
import { hasWideCharacters, renderChartPng } from "./render";
import type { DayWindow } from "./time-zones";
import { STATS_WINDOW } from "#src/chat/callback-data";

/** The PNG's size in pixels. */
export const CHART_PIXELS = {
  width: Math.round(CHART_WIDTH * CHART_SCALE),
  height: Math.round(CHART_HEIGHT * CHART_SCALE),
};

/** What a report shows: a chart with the figures as its caption, or, for an empty window, a text. */
export type SpendingReport =
  | { kind: "chart"; png: Buffer; caption: string; figures: StatsFigures }
  | { kind: "text"; text: string; figures: StatsFigures };

export interface ReportRequest {
  tr: Translate;
  lang: Language;
  records: SpendingRecords;
  window: DayWindow;
  /** The first line, in HTML ("Spending, last 7 days" or "Weekly digest"). */
  heading: string;
  /** The chart's subtitle after the dates ("last 7 days"). */
  period: string;
  /** The user's own labels of their saved addresses, shown in place of a rule's target. */
  addressLabels?: ReadonlyMap<string, string>;
  /** A last line (the digest says where to turn it off). */
  footer?: string;
  /** Called when the chart waits for the process's render limit (see MAX_CHARTS_RENDERING). */
  onChartWait?: () => void;
}

const dayFormats = new Map<string, Intl.DateTimeFormat>();
function dayFormat(lang: Language, style: "short" | "numeric"): Intl.DateTimeFormat {
  const key = `${lang}:${style}`;
  let format = dayFormats.get(key);
  if (!format) {
    format = new Intl.DateTimeFormat(
      lang,
      style === "short"
        ? { month: "short", day: "numeric", timeZone: "UTC" }
        : { month: "numeric", day: "numeric", timeZone: "UTC" },
    );
    dayFormats.set(key, format);
  }
  return format;
}

/** A local date in the user's language ("Jan 13", "13 янв.", "1月13日"). */
export function dayText(lang: Language, date: string, style: "short" | "numeric" = "short"): string {
  return dayFormat(lang, style).format(new Date(`${date}T12:00:00Z`));
}

/** A source's name as the chart's legend shows it: plain text, not HTML. */
export function sourceLabel(
  tr: Translate,
  source: SpendingSource,
  addressLabels?: ReadonlyMap<string, string>,
): string {
  if (source.kind === "orders") return tr("stats-source-orders");
  if (source.kind === "others") return tr("stats-source-others");
  const kind = ruleKind(source.rule.type);
  const kindName = kind ? tr(`rule-kind-${kind}`) : truncate(source.rule.type, 20);
  const label = addressLabels?.get(source.rule.targetAddress);
  return `${kindName} · ${label ? truncate(label, 24) : shortAddress(source.rule.targetAddress)}`;
}

/** Unique legend labels: two rules on one target are told apart by their id. */
function sourceLabels(
  tr: Translate,
  figures: StatsFigures,
  addressLabels?: ReadonlyMap<string, string>,
): Map<string, string> {
  const labels = new Map<string, string>();
  const used = new Set<string>();
  for (const source of figures.sources) {
    let label = sourceLabel(tr, source, addressLabels);
    if (used.has(label) && source.kind === "rule") label = `${label} (${source.rule.id.slice(0, 4)})`;
    used.add(label);
    labels.set(source.id, label);
  }
  return labels;
}

const trx = (sun: bigint, lang: Language) => trxText(sunToTrx(sun), lang);

/** The marketplace's own order statistics, as it states them (its counters, not the window's). */
function marketplaceLine(tr: Translate, lang: Language, records: SpendingRecords): string[] {
  const stats = records.orderStats;
  if (!stats) return [];
  // The plural follows the count; past what a number holds exactly, "many" reads the same in every language.
  const count = Number(stats.totalOrders);
  return [
    tr("stats-marketplace", {
      total: volumeText(String(stats.totalOrders), lang),
      count: Number.isSafeInteger(count) ? count : 1_000_000,
      energy: volumeText(String(stats.energyDeliveredThisMonth), lang),
    }),
  ];
}

/** The figures as caption lines, HTML; every variable goes through the escaping translator. */
export function figureLines(tr: Translate, lang: Language, figures: StatsFigures, records: SpendingRecords): string[] {
  const lines = [
    tr("stats-spent", { trx: trx(figures.totalSun, lang) }),
    tr("stats-delivered", { energy: volumeText(figures.energy, lang), bandwidth: volumeText(figures.bandwidth, lang) }),
    tr("stats-orders", {
      placed: volumeText(String(figures.orders.placed), lang),
      filled: volumeText(String(figures.orders.filled), lang),
      failed: volumeText(String(figures.orders.failed), lang),
    }),
    tr("stats-firings", { count: volumeText(String(figures.firings), lang) }),
  ];
  if (figures.saving)
    lines.push(
      tr("stats-saving", { trx: trx(figures.saving.sun, lang) }),
      tr("stats-saving-how", { sun: sunPerUnit(figures.saving.burnCostTrx, figures.saving.burnVolume, lang) }),
    );
  else if (figures.energy > 0n) lines.push(tr("stats-saving-unknown"));
  lines.push(
    tr("stats-ledger", {
      charged: trx(figures.ledger.chargedSun, lang),
      refunded: trx(figures.ledger.refundedSun, lang),
    }),
  );
  lines.push(...marketplaceLine(tr, lang, records));
  if (figures.gaps.length > 0) {
    const what = figures.gaps.map((gap) => tr(`stats-partial-${gap}`)).join(", ");
    lines.push(tr("stats-partial", { what, limit: String(STATS_REQUEST_LIMIT) }));
  }
  return lines;
}

/**
 * Builds the report of one window: summarizes, and renders the chart unless nothing was spent.
 * Its numbers are written as the user's language writes them, in an update or not (the digest).
 */
export async function buildSpendingReport(request: ReportRequest): Promise<SpendingReport> {
  const { tr, lang, records, window } = request;
  const figures = summarize(records, window);
  const from = dayText(lang, window.days[0]!);
  const to = dayText(lang, window.days.at(-1)!);
  const range = tr("stats-range", { from, to, zone: window.timeZone });
  const footer = request.footer ? ["", request.footer] : [];
  if (isEmpty(figures)) {
    // Orders that all failed (refunded) spent nothing but are still worth counting.
    const counted =
      figures.orders.placed > 0 ? figureLines(tr, lang, figures, records) : marketplaceLine(tr, lang, records);
    const lines = [request.heading, range, "", tr("stats-empty"), ...(counted.length > 0 ? ["", ...counted] : [])];
    return { kind: "text", text: [...lines, ...footer].join("\n"), figures };
  }
  const fonts = chartFonts();
  const labels = sourceLabels(tr, figures, request.addressLabels);
  const title = tr("stats-chart-title");
  const subtitle = `${from} – ${to} · ${request.period} · ${window.timeZone}`;
  const cjk = [title, subtitle, ...labels.values()].some(hasWideCharacters);
  const spec = spendingChartSpec(figures, {
    title,
    subtitle,
    axis: tr("stats-chart-axis"),
    sources: labels,
    days: new Map(window.days.map((day) => [day, dayText(lang, day, "numeric")])),
    font: cjk ? fonts.cjkFamily : fonts.family,
    numberFont: fonts.family,
  });
  const png = await renderChartPng(spec, { cjk, ...(request.onChartWait ? { onWait: request.onChartWait } : {}) });
  const caption = [request.heading, range, "", ...figureLines(tr, lang, figures, records), ...footer].join("\n");
  return { kind: "chart", png, caption, figures };
}

/** The 7 days / 30 days switch under a report; the shown one is ticked. */
export function windowKeyboard(tr: Translate, days: 7 | 30): InlineKeyboard {
  return new InlineKeyboard()
    .text(`${days === 7 ? "✅ " : ""}${tr("button-days-7")}`, STATS_WINDOW.data(7))
    .text(`${days === 30 ? "✅ " : ""}${tr("button-days-30")}`, STATS_WINDOW.data(30));
}
