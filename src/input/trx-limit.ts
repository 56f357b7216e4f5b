import { parseTrx } from "#src/marketplace/money";

/** The highest price a watch may wait for: far above any rent, low enough to catch a typo of many zeros. */
export const MAX_TRX_LIMIT_SUN = 1_000_000n * 1_000_000n;

export type TrxLimitParse = { ok: true; sun: bigint } | { ok: false; reason: "format" | "zero" | "precision" | "high" };

/**
 * A TRX amount as people type a price limit: 2.5, 2.5trx, 2.5 TRX, 0.000001. A decimal point, or,
 * with `decimalComma` (a language that writes "2,5", as the bot's own buttons show it there), one
 * comma between digits; elsewhere "2,5" would read as thousands and is refused. At most 6
 * decimals (1 sun), above zero.
 */
export function parseTrxLimit(input: string, options: { decimalComma?: boolean } = {}): TrxLimitParse {
  if (typeof input !== "string" || input.length > 40) return { ok: false, reason: "format" };
  let text = input
    .trim()
    .toLowerCase()
    .replace(/\s*trx$/, "");
  if (options.decimalComma && /^\d+,\d+$/.test(text)) text = text.replace(",", ".");
  if (!/^\d+(?:\.\d+)?$/.test(text)) return { ok: false, reason: "format" };
  const sun = parseTrx(text);
  if (sun === null) return { ok: false, reason: "precision" };
  if (sun <= 0n) return { ok: false, reason: "zero" };
  if (sun > MAX_TRX_LIMIT_SUN) return { ok: false, reason: "high" };
  return { ok: true, sun };
}

/** True when the argument is written as a TRX amount ("2.5trx", "3 TRX"), whatever its position. */
export function saysTrx(token: string): boolean {
  return /^\d+(?:\.\d+)?\s*trx$/i.test(token.trim());
}
