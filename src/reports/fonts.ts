import { existsSync } from "node:fs";

/**
 * Fonts for the chart. Latin and Cyrillic text is set in DejaVu Sans or Liberation Sans, and only
 * a chart with CJK text loads the CJK font too; each is cut down to the chart's characters before
 * it is drawn (font-subset.ts), since the renderer rereads a font file for each text it shapes.
 * Debian's fonts-dejavu-core and fonts-wqy-microhei provide both (the Dockerfile and CI install
 * them); other common locations are tried too. With none found the renderer loads whatever the
 * system has, and Chinese labels may show as boxes: said once in the log.
 */
const LATIN_FONTS: ReadonlyArray<{ file: string; family: string }> = [
  { file: "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf", family: "DejaVu Sans" },
  { file: "/usr/share/fonts/TTF/DejaVuSans.ttf", family: "DejaVu Sans" },
  { file: "/usr/share/fonts/dejavu/DejaVuSans.ttf", family: "DejaVu Sans" },
  { file: "/usr/share/fonts/truetype/liberation/LiberationSans-Regular.ttf", family: "Liberation Sans" },
  { file: "/usr/share/fonts/liberation-sans/LiberationSans-Regular.ttf", family: "Liberation Sans" },
  { file: "/System/Library/Fonts/Supplemental/Arial.ttf", family: "Arial" },
  { file: "C:\\Windows\\Fonts\\arial.ttf", family: "Arial" },
];

const CJK_FONTS: ReadonlyArray<{ file: string; family: string }> = [
  { file: "/usr/share/fonts/truetype/wqy/wqy-microhei.ttc", family: "WenQuanYi Micro Hei" },
  { file: "/usr/share/fonts/wenquanyi/wqy-microhei/wqy-microhei.ttc", family: "WenQuanYi Micro Hei" },
  { file: "/usr/share/fonts/truetype/wqy/wqy-zenhei.ttc", family: "WenQuanYi Zen Hei" },
  { file: "/usr/share/fonts/opentype/noto/NotoSansCJK-Regular.ttc", family: "Noto Sans CJK SC" },
  { file: "/usr/share/fonts/noto-cjk/NotoSansCJK-Regular.ttc", family: "Noto Sans CJK SC" },
  { file: "/usr/share/fonts/truetype/droid/DroidSansFallbackFull.ttf", family: "Droid Sans Fallback" },
  { file: "/System/Library/Fonts/PingFang.ttc", family: "PingFang SC" },
  { file: "C:\\Windows\\Fonts\\msyh.ttc", family: "Microsoft YaHei" },
];

export interface ChartFonts {
  /** Font files to load; empty means "load the system's fonts". */
  files: string[];
  /** The CSS font-family list for Latin and Cyrillic texts (numbers, en, ru). */
  family: string;
  /**
   * The list for texts with CJK characters: the CJK font first. A character the first font lacks
   * sends the renderer searching every font, reading the CJK file again for each one; a font
   * that has them all is read once per text.
   */
  cjkFamily: string;
  /** The family used for the generic "sans-serif". */
  defaultFamily: string;
  latin: string | null;
  cjk: string | null;
}

let found: ChartFonts | null = null;

/** The fonts found on this machine (looked up once). */
export function chartFonts(): ChartFonts {
  if (found) return found;
  const latin = LATIN_FONTS.find((candidate) => existsSync(candidate.file)) ?? null;
  const cjk = CJK_FONTS.find((candidate) => existsSync(candidate.file)) ?? null;
  const names = (...list: Array<string | undefined>) => list.filter((name): name is string => Boolean(name)).join(", ");
  found = {
    files: [latin?.file, cjk?.file].filter((file): file is string => Boolean(file)),
    family: names(latin?.family, cjk?.family, "sans-serif"),
    cjkFamily: names(cjk?.family, latin?.family, "sans-serif"),
    defaultFamily: latin?.family ?? cjk?.family ?? "sans-serif",
    latin: latin?.file ?? null,
    cjk: cjk?.file ?? null,
  };
  return found;
}
