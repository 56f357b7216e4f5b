import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";

/**
 * The chart's fonts cut down to the characters one chart draws, by HarfBuzz's own subsetter
 * (hb-subset, from the WebAssembly build the HarfBuzz project publishes as `harfbuzzjs`).
 *
 * Why: resvg reads a font file again for every text it lays out, so a chart's cost follows the
 * size of its fonts: the 5 MB CJK font made a Chinese chart cost about 50 ms more than a Latin one,
 * and even the 760 kB Latin font is read some forty times a chart. A subset holds only the glyphs
 * the chart uses (about 10 kB), keeps the font's names, metrics and layout tables, and draws the
 * same pixels. Subsetting takes well under a millisecond once the font is loaded; each font file
 * is read into the subsetter's memory once per process, at the first chart that needs it.
 */

/** The C functions of hb-subset this module calls (HarfBuzz's public API, as the wasm exports it). */
interface HarfBuzz {
  memory: WebAssembly.Memory;
  _initialize(): void;
  malloc(size: number): number;
  free(pointer: number): void;
  hb_blob_create(data: number, length: number, mode: number, userData: number, destroy: number): number;
  hb_blob_destroy(blob: number): void;
  hb_blob_get_data(blob: number, length: number): number;
  hb_blob_get_length(blob: number): number;
  hb_face_create(blob: number, index: number): number;
  hb_face_destroy(face: number): void;
  hb_face_reference_blob(face: number): number;
  hb_set_add(set: number, codepoint: number): void;
  hb_subset_input_create_or_fail(): number;
  hb_subset_input_destroy(input: number): void;
  hb_subset_input_unicode_set(input: number): number;
  hb_subset_or_fail(face: number, input: number): number;
}

const HB_MEMORY_MODE_READONLY = 1;

/** Printable ASCII is always kept: cheap, and it covers whatever the SVG escapes as entities. */
const ASCII = Array.from({ length: 0x7f - 0x20 }, (_, index) => 0x20 + index);

export class FontSubsetter {
  /** Font file → its HarfBuzz face (the font's bytes stay in the subsetter's memory). */
  private readonly faces = new Map<string, number>();

  constructor(private readonly hb: HarfBuzz) {}

  /** The face of a font file (face 0 of a collection), loaded on first use; 0 if HarfBuzz refused it. */
  private face(file: string): number {
    const known = this.faces.get(file);
    if (known !== undefined) return known;
    const bytes = readFileSync(file);
    const pointer = this.hb.malloc(bytes.byteLength);
    if (pointer === 0) return 0;
    new Uint8Array(this.hb.memory.buffer).set(bytes, pointer);
    const blob = this.hb.hb_blob_create(pointer, bytes.byteLength, HB_MEMORY_MODE_READONLY, 0, 0);
    const face = this.hb.hb_face_create(blob, 0);
    this.hb.hb_blob_destroy(blob);
    this.faces.set(file, face);
    return face;
  }

  /** The font of `file` holding only the glyphs of `codePoints` (and printable ASCII), or null. */
  subset(file: string, codePoints: Iterable<number>): Buffer | null {
    const face = this.face(file);
    if (face === 0) return null;
    const input = this.hb.hb_subset_input_create_or_fail();
    if (input === 0) return null;
    let result = 0;
    try {
      const unicodes = this.hb.hb_subset_input_unicode_set(input);
      for (const codePoint of ASCII) this.hb.hb_set_add(unicodes, codePoint);
      for (const codePoint of codePoints) this.hb.hb_set_add(unicodes, codePoint);
      result = this.hb.hb_subset_or_fail(face, input);
    } finally {
      this.hb.hb_subset_input_destroy(input);
    }
    if (result === 0) return null;
    const blob = this.hb.hb_face_reference_blob(result);
    try {
      const length = this.hb.hb_blob_get_length(blob);
      if (length === 0) return null;
      // A copy: the subsetter's memory may grow (and move) at its next call.
      return Buffer.from(new Uint8Array(this.hb.memory.buffer, this.hb.hb_blob_get_data(blob, 0), length));
    } finally {
      this.hb.hb_blob_destroy(blob);
      this.hb.hb_face_destroy(result);
    }
  }
}

let loading: Promise<FontSubsetter | null> | null = null;

/** The subsetter, instantiated once; null where its WebAssembly cannot be loaded (the full fonts serve then). */
export function fontSubsetter(): Promise<FontSubsetter | null> {
  loading ??= (async () => {
    try {
      const wasm = readFileSync(createRequire(import.meta.url).resolve("harfbuzzjs/dist/harfbuzz-subset.wasm"));
      const { instance } = await WebAssembly.instantiate(wasm);
      const hb = instance.exports as unknown as HarfBuzz;
      hb._initialize();
      return new FontSubsetter(hb);
    } catch {
      return null;
    }
  })();
  return loading;
}

/** The code points a text holds. */
export function codePointsOf(text: string): Set<number> {
  const points = new Set<number>();
  for (const char of text) points.add(char.codePointAt(0)!);
  return points;
}

let directory: string | null = null;
let serial = 0;

/** A private directory for the subsets of the charts being drawn, removed when the process exits. */
function subsetDirectory(): string {
  if (directory) return directory;
  const made = mkdtempSync(join(tmpdir(), "chart-fonts-"));
  process.once("exit", () => rmSync(made, { recursive: true, force: true }));
  directory = made;
  return made;
}

/**
 * Runs `draw` with font files cut down to the characters of `text` (the chart's SVG): each file
 * HarfBuzz can subset is replaced by its subset, written for the duration of `draw` and deleted
 * after it; a file it cannot (or one whose subset cannot be written) is passed as it is. `draw`
 * must be synchronous (resvg's is).
 */
export async function withSubsetFonts<T>(
  files: readonly string[],
  text: string,
  draw: (files: string[]) => T,
): Promise<T> {
  const subsetter = files.length > 0 ? await fontSubsetter() : null;
  if (!subsetter) return draw([...files]);
  const codePoints = codePointsOf(text);
  const written: string[] = [];
  try {
    const used = files.map((file) => {
      // Any failure (a font HarfBuzz cannot read, no writable temporary directory) costs only
      // the saving: the whole font is drawn with instead.
      try {
        const subset = subsetter.subset(file, codePoints);
        if (!subset) return file;
        const path = join(subsetDirectory(), `${++serial}.ttf`);
        writeFileSync(path, subset);
        written.push(path);
        return path;
      } catch {
        return file;
      }
    });
    return draw(used);
  } finally {
    for (const path of written) rmSync(path, { force: true });
  }
}
