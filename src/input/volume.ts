/**
 * Volumes as people type them: 65000, 65,000, 65 000, 65k, 1.5m, 131K, 65к. Whole units only, above
 * zero. Never throws: anything else is a "format" error naming the accepted forms.
 */
export type VolumeParse =
  { ok: true; volume: bigint } | { ok: false; reason: "format" | "zero" | "negative" | "fraction" };

const SUFFIX: Record<string, bigint> = { "": 1n, k: 1_000n, m: 1_000_000n };

export function parseVolume(input: string): VolumeParse {
  if (typeof input !== "string" || input.length > 40) return { ok: false, reason: "format" };
  // Cyrillic "к" and "м" (thousand, million) as a Russian keyboard types them.
  let text = input
    .trim()
    .toLowerCase()
    .replace(/[\u00a0\u202f]/g, " ")
    .replace(/к$/, "k")
    .replace(/м$/, "m");
  let negative = false;
  if (text.startsWith("-") || text.startsWith("−")) {
    negative = true;
    text = text.slice(1).trim();
  }
  // thousands separators: commas or single spaces between groups of three digits
  const grouped = /^\d{1,3}(?:[, ]\d{3})+(?:\.\d+)?[km]?$/;
  if (grouped.test(text)) text = text.replace(/[, ]/g, "");
  const match = /^(\d+)(?:\.(\d+))?\s*([km]?)$/.exec(text);
  if (!match) return { ok: false, reason: "format" };
  const [, whole, fraction = "", suffix = ""] = match;
  const multiplier = SUFFIX[suffix]!;
  const scale = 10n ** BigInt(fraction.length);
  const numerator = (BigInt(whole!) * scale + BigInt(fraction || "0")) * multiplier;
  if (numerator % scale !== 0n) return { ok: false, reason: "fraction" };
  const volume = numerator / scale;
  if (negative && volume !== 0n) return { ok: false, reason: "negative" };
  if (volume === 0n) return { ok: false, reason: "zero" };
  return { ok: true, volume };
}

/** Bounds from the options endpoint; null when inside. */
export function checkBounds(volume: bigint, min: bigint, max: bigint): "below" | "above" | null {
  if (volume < min) return "below";
  if (volume > max) return "above";
  return null;
}

export const RESOURCES = ["energy", "bandwidth"] as const;
export type Resource = (typeof RESOURCES)[number];

/** The resources' names in the shipped languages, as the buttons show them and common forms of them. */
const RESOURCE_WORDS: Record<string, Resource> = {
  энергия: "energy",
  энергию: "energy",
  энергии: "energy",
  "пропускная способность": "bandwidth",
  "пропускную способность": "bandwidth",
  能量: "energy",
  带宽: "bandwidth",
};

export function parseResource(input: string): Resource | null {
  const text = input.trim().toLowerCase().replace(/\s+/g, " ");
  if ((RESOURCES as readonly string[]).includes(text)) return text as Resource;
  return Object.hasOwn(RESOURCE_WORDS, text) ? RESOURCE_WORDS[text]! : null;
}

/** Unit words as people type them in en, ru and zh, with the marketplace's letter for each. */
const DURATION_UNIT_WORDS: ReadonlyArray<[RegExp, string]> = [
  [/^(?:m|min|mins|minutes?|мин\.?|минут[аы]?|分钟|分)$/, "m"],
  [/^(?:h|hr|hrs|hours?|ч\.?|час(?:а|ов)?|小时|小時|时)$/, "h"],
  [/^(?:d|days?|д\.?|дн\.?|день|дня|дней|сут(?:\.|ки|ок)?|天|日)$/, "d"],
];

/**
 * Durations are exactly those the options endpoint lists, matched case-insensitively, typed as
 * listed ("1h") or as the bot writes them in the reader's language ("1 ч", "1 小时", "15 min").
 */
export function parseDuration(input: string, allowed: readonly string[]): string | null {
  const text = input.trim().toLowerCase();
  const exact = allowed.find((duration) => duration.toLowerCase() === text);
  if (exact) return exact;
  const spelled = /^(\d{1,6})\s*(\S+)$/u.exec(text);
  const unit = spelled ? DURATION_UNIT_WORDS.find(([words]) => words.test(spelled[2]!))?.[1] : undefined;
  if (!spelled || !unit) return null;
  const wanted = `${Number(spelled[1])}${unit}`;
  return allowed.find((duration) => duration.toLowerCase() === wanted) ?? null;
}

const UNIT_MS = { m: 60_000, h: 3_600_000, d: 86_400_000 } as const;

/** How long a marketplace duration ("15m", "1h", "3d") lasts in ms; null for one written otherwise. */
export function durationMs(duration: string): number | null {
  const match = /^(\d{1,6})([mhd])$/i.exec(duration.trim());
  return match ? Number(match[1]) * UNIT_MS[match[2]!.toLowerCase() as "m" | "h" | "d"] : null;
}
