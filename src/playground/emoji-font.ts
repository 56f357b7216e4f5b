import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import type { Hono } from "hono";
import type { ServerEnv } from "#src/server/create-server";

/**
 * The chat's emoji glyphs, served by the playground itself from @fontsource/noto-color-emoji, so a
 * machine without an emoji font shows emoji rather than empty boxes, and nothing is fetched from
 * another origin. The family ends the page's font stack (app.css), after the systems' own emoji
 * fonts.
 *
 * The package's per-range subsets hold their pictures only as an SVG table, which Chromium does
 * not draw (it shows the empty outlines under them); its whole font also holds them as COLRv1,
 * which Chromium and Firefox draw. That font is served without its SVG table (20 MB of the 25 MB
 * once unpacked), as a WOFF of 2.6 MB, under one @font-face whose unicode-range is the package's
 * emoji ranges: a page fetches it only once it shows an emoji, and never for plain text.
 */

const EMOJI_CSS_ROUTE = "/play/emoji.css";
const EMOJI_FONT_ROUTE = "/play/fonts/noto-color-emoji.woff";

export interface EmojiFont {
  /** The @font-face rule. */
  css: string;
  /** The font file (WOFF) the rule names. */
  font: Buffer;
}

/** Builds the rule and the font from the package's files (once, at start: a few milliseconds, no decompression). */
export function loadEmojiFont(): EmojiFont {
  const packageDir = dirname(createRequire(import.meta.url).resolve("@fontsource/noto-color-emoji/package.json"));
  const ranges = new Set<string>();
  for (const match of readFileSync(join(packageDir, "index.css"), "utf8").matchAll(/unicode-range:\s*([^;]+);/g)) {
    for (const range of match[1]!.split(",")) ranges.add(range.trim());
  }
  if (ranges.size === 0)
    throw new Error(
      `no unicode-range found in ${join(packageDir, "index.css")}: the emoji font package changed its layout`,
    );
  const css = [
    "@font-face {",
    "  font-family: 'Noto Color Emoji';",
    "  font-style: normal;",
    "  font-weight: 400;",
    "  font-display: swap;",
    `  src: url(${EMOJI_FONT_ROUTE}) format('woff');`,
    `  unicode-range: ${[...ranges].join(",")};`,
    "}",
    "",
  ].join("\n");
  const font = withoutTable(readFileSync(join(packageDir, "files", "noto-color-emoji-emoji-400-normal.woff")), "SVG ");
  return { css, font };
}

const WOFF_HEADER = 44;
const WOFF_ENTRY = 20;
const padded = (length: number) => (length + 3) & ~3;

/**
 * A WOFF 1.0 font without the table `tag`: the other tables keep their compressed bytes, in
 * order, at new offsets (metadata and private blocks, which the font has none of, are dropped).
 */
function withoutTable(woff: Buffer, tag: string): Buffer {
  if (woff.toString("latin1", 0, 4) !== "wOFF") throw new Error("not a WOFF 1.0 font");
  const count = woff.readUInt16BE(12);
  const entries = Array.from({ length: count }, (_, index) => {
    const at = WOFF_HEADER + index * WOFF_ENTRY;
    return {
      tag: woff.toString("latin1", at, at + 4),
      offset: woff.readUInt32BE(at + 4),
      compressed: woff.readUInt32BE(at + 8),
      original: woff.readUInt32BE(at + 12),
      entry: woff.subarray(at, at + WOFF_ENTRY),
    };
  });
  const kept = entries.filter((entry) => entry.tag !== tag);
  const dropped = entries.filter((entry) => entry.tag === tag);
  let offset = WOFF_HEADER + kept.length * WOFF_ENTRY;
  const length = kept.reduce((total, entry) => total + padded(entry.compressed), offset);
  const out = Buffer.alloc(length);
  woff.copy(out, 0, 0, WOFF_HEADER);
  out.writeUInt32BE(length, 8);
  out.writeUInt16BE(kept.length, 12);
  // The unpacked font shrinks by the table and its directory entry.
  out.writeUInt32BE(
    woff.readUInt32BE(16) - dropped.reduce((total, entry) => total + padded(entry.original) + 16, 0),
    16,
  );
  out.fill(0, 24, WOFF_HEADER);
  kept.forEach((entry, index) => {
    const at = WOFF_HEADER + index * WOFF_ENTRY;
    entry.entry.copy(out, at);
    out.writeUInt32BE(offset, at + 4);
    woff.copy(out, offset, entry.offset, entry.offset + entry.compressed);
    offset += padded(entry.compressed);
  });
  return out;
}

/** GET /play/emoji.css and the font it names, built on the first request (a page, not the start, pays for it). */
export function registerEmojiFont(app: Hono<ServerEnv>, load: () => EmojiFont = loadEmojiFont): void {
  let built: { css: string; font: ArrayBuffer } | null = null;
  const emoji = () => {
    if (!built) {
      const { css, font } = load();
      // A plain ArrayBuffer of its own, made once: the answer sends it as it is, never a copy per request.
      built = { css, font: new Uint8Array(font).buffer };
    }
    return built;
  };
  app.get(EMOJI_CSS_ROUTE, (c) =>
    c.body(emoji().css, 200, {
      "content-type": "text/css; charset=utf-8",
      "cache-control": "no-cache",
      "x-content-type-options": "nosniff",
    }),
  );
  // The file changes only with the package, which changes only with a new start.
  app.get(EMOJI_FONT_ROUTE, (c) =>
    c.body(emoji().font, 200, {
      "content-type": "font/woff",
      "cache-control": "public, max-age=86400",
      "x-content-type-options": "nosniff",
    }),
  );
}
