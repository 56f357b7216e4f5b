/**
 * TRX amounts as integer sun (1 TRX = 1,000,000 sun). The marketplace sends TRX as decimal
 * strings; inside the program they are bigint sun, so nothing ever passes through a float.
 */

export const SUN_PER_TRX = 1_000_000n;
const TRX_PATTERN = /^(-)?(\d+)(?:\.(\d+))?$/;

/** Parses a decimal TRX string ("12", "0.5", "-3.000001") to sun; null when it is not one. Extra decimals beyond 6 must be zeros. */
export function parseTrx(value: string): bigint | null {
  const match = TRX_PATTERN.exec(value.trim());
  if (!match) return null;
  const [, minus, whole, fraction = ""] = match;
  const extra = fraction.slice(6);
  if (extra && /[^0]/.test(extra)) return null;
  const sun = BigInt(whole!) * SUN_PER_TRX + BigInt((fraction.slice(0, 6) || "0").padEnd(6, "0"));
  return minus ? -sun : sun;
}

/** Like parseTrx, but throws on a malformed amount (use on values already validated by a schema). */
export function trxToSun(value: string): bigint {
  const sun = parseTrx(value);
  if (sun === null) throw new RangeError(`not a TRX amount: ${JSON.stringify(value)}`);
  return sun;
}

/** Formats sun as a plain decimal TRX string with no trailing zeros ("1.5", "0", "-0.000001"). */
export function sunToTrx(sun: bigint): string {
  const negative = sun < 0n;
  const abs = negative ? -sun : sun;
  const whole = abs / SUN_PER_TRX;
  const fraction = (abs % SUN_PER_TRX).toString().padStart(6, "0").replace(/0+$/, "");
  return `${negative ? "-" : ""}${whole}${fraction ? `.${fraction}` : ""}`;
}

/** Exact comparison of two TRX strings: -1, 0 or 1. */
export function compareTrx(a: string, b: string): -1 | 0 | 1 {
  const x = trxToSun(a);
  const y = trxToSun(b);
  return x < y ? -1 : x > y ? 1 : 0;
}

/** Exact sum of TRX strings, as a TRX string. */
export function addTrx(...values: string[]): string {
  return sunToTrx(values.reduce((sum, value) => sum + trxToSun(value), 0n));
}

/** Groups the integer part with thin commas for display ("1234567.5" → "1,234,567.5"); the string is not re-parsed as a number. */
export function formatTrxForDisplay(value: string): string {
  const match = TRX_PATTERN.exec(value.trim());
  if (!match) return value;
  const [, minus, whole, fraction] = match;
  return `${minus ?? ""}${groupThousands(whole!)}${fraction ? `.${fraction}` : ""}`;
}

const localeFormats = new Map<string, Intl.NumberFormat>();

/**
 * A decimal string as `locale` writes numbers ("1090.705": en "1,090.705", ru "1 090,705", zh
 * "1,090.705"), with exactly the digits given: Intl.NumberFormat formats a string as an exact
 * decimal, never through a float. Anything that is not a plain decimal is returned as given, and
 * so is every amount on an engine that would round it (its digits are checked).
 */
export function formatDecimalForLocale(value: string, locale: string): string {
  const match = TRX_PATTERN.exec(value.trim());
  if (!match) return value;
  const [, minus, whole, fraction = ""] = match;
  const digits = Math.min(100, fraction.length);
  const key = `${locale}|${digits}`;
  let format = localeFormats.get(key);
  if (!format) {
    format = new Intl.NumberFormat(locale, {
      minimumFractionDigits: digits,
      maximumFractionDigits: digits,
      useGrouping: true,
    });
    if (localeFormats.size < 256) localeFormats.set(key, format);
  }
  const exact = `${minus ?? ""}${whole}${fraction ? `.${fraction}` : ""}`;
  const text = format.format(exact as unknown as number);
  return text.replace(/\D/g, "") === `${whole}${fraction}` ? text : formatTrxForDisplay(exact);
}

/** Adds thousands separators to a decimal integer string or bigint ("65000" → "65,000"). */
export function groupThousands(value: string | bigint | number): string {
  const text = value.toString();
  const negative = text.startsWith("-");
  const digits = negative ? text.slice(1) : text;
  return `${negative ? "-" : ""}${digits.replace(/\B(?=(\d{3})+(?!\d))/g, ",")}`;
}
