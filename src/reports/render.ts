import type * as VegaModule from "vega";
import type { compile as compileVegaLite, TopLevelSpec } from "vega-lite";
import type { Resvg as ResvgClass } from "@resvg/resvg-js";
import { CHART_SCALE } from "./chart-spec";
import { chartFonts } from "./fonts";
import { withSubsetFonts } from "./font-subset";
import { Semaphore } from "#src/bounded/semaphore";

/**
 * Charts rendered at once in this process, whoever asks (/stats, its buttons, the digest): each
 * takes about 100 ms of CPU, so the others wait their turn instead of starving every update.
 */
export const MAX_CHARTS_RENDERING = 2;
const renderSlots = new Semaphore(MAX_CHARTS_RENDERING);

/** East Asian wide characters: about one em each, where Latin letters and digits are about 0.6. */
const WIDE =
  /[\u1100-\u115f\u2e80-\u303e\u3041-\u33ff\u3400-\u4dbf\u4e00-\u9fff\ua000-\ua4cf\uac00-\ud7a3\uf900-\ufaff\ufe30-\ufe4f\uff00-\uff60\uffe0-\uffe6]/u;

/** True when the text has a character only the CJK font draws. */
export function hasWideCharacters(text: string): boolean {
  return WIDE.test(text);
}

function estimateTextWidth(text: string, fontSize: number): number {
  let ems = 0;
  for (const char of text) ems += WIDE.test(char) ? 1 : char === " " ? 0.32 : /[A-ZМШЩЖЮФ@%]/.test(char) ? 0.7 : 0.6;
  return ems * fontSize;
}

type TextItem = { text?: unknown; fontSize?: number };

type Renderer = { vega: typeof VegaModule; compile: typeof compileVegaLite; Resvg: typeof ResvgClass };
let renderer: Promise<Renderer> | null = null;

/**
 * Vega, Vega-Lite and resvg, loaded at the first chart rather than at start: together they hold
 * about 30 MB that an idle bot, or one whose users never ask for a chart, does not need.
 */
function loadRenderer(): Promise<Renderer> {
  renderer ??= Promise.all([import("vega"), import("vega-lite"), import("@resvg/resvg-js")]).then(
    ([vega, vegaLite, resvg]) => {
      installTextMetrics(vega);
      return { vega, compile: vegaLite.compile, Resvg: resvg.Resvg };
    },
  );
  return renderer;
}

/**
 * Vega lays text out by its width before any font is involved, and without a canvas it guesses
 * 0.8 em a character whatever the script: Chinese labels come out too narrow and the legend
 * overlaps them. Vega accepts a width function of one's own (its documented hook for headless
 * rendering); this one knows that CJK characters are one em wide.
 */
function installTextMetrics(vega: typeof VegaModule): void {
  const metrics = (vega as unknown as { textMetrics: { width: (item: TextItem, text?: unknown) => number } })
    .textMetrics;
  metrics.width = (item, text) => {
    const value = text ?? item.text;
    const string = Array.isArray(value) ? value.join(" ") : value === null || value === undefined ? "" : String(value);
    return estimateTextWidth(string, item.fontSize ?? 11);
  };
}

/** The chart as SVG text (Vega-Lite compiled to Vega, rendered headless). */
export async function renderChartSvg(spec: TopLevelSpec): Promise<string> {
  const { vega, compile } = await loadRenderer();
  const view = new vega.View(vega.parse(compile(spec).spec), { renderer: "none" });
  try {
    return await view.toSVG();
  } finally {
    view.finalize();
  }
}

/**
 * The chart as a PNG, CHART_SCALE times its CSS size, with the fonts found on this machine. The
 * CJK font is used only when a text needs it (`cjk`). At most MAX_CHARTS_RENDERING at once;
 * `onWait` is called when this one has to wait for its turn.
 */
export async function renderChartPng(
  spec: TopLevelSpec,
  options: { cjk: boolean; onWait?: () => void },
): Promise<Buffer> {
  return renderSlots.run(() => renderUnbounded(spec, options.cjk), options.onWait ? { onWait: options.onWait } : {});
}

async function renderUnbounded(spec: TopLevelSpec, cjk: boolean): Promise<Buffer> {
  const svg = await renderChartSvg(spec);
  const { Resvg } = await loadRenderer();
  const fonts = chartFonts();
  const files = cjk || !fonts.latin ? fonts.files : [fonts.latin];
  // Each font cut down to the chart's characters: resvg rereads a font file for every text it
  // lays out, so a small file is most of the saving (see font-subset.ts).
  return withSubsetFonts(files, svg, (fontFiles) => {
    const resvg = new Resvg(svg, {
      fitTo: { mode: "zoom", value: CHART_SCALE },
      font:
        fontFiles.length > 0
          ? { loadSystemFonts: false, fontFiles, defaultFontFamily: fonts.defaultFamily }
          : { loadSystemFonts: true },
    });
    return resvg.render().asPng();
  });
}
