/**
 * The marketplace's int64 fields (volumes, thresholds, units) arrive as JSON integers or as
 * decimal-integer strings. Inside the program they are one type, {@link Int64}: a string in
 * canonical decimal form ("65000", "-1", never "065000", "-0" or "6.5e4"), so values larger than
 * 2^53 survive and equality is plain string equality.
 */
import { z } from "zod";

/** A 64-bit integer in canonical decimal form, e.g. "65000". Use {@link toBigInt} for arithmetic. */
export type Int64 = string;

/** What callers may pass where the API takes an int64: a decimal-integer string, a safe integer or a bigint. */
export type Int64Input = string | number | bigint;

/** The pattern the API itself uses for int64 strings. */
export const INT64_PATTERN = /^-?(?:0|[1-9]\d*)$/;

const INT64_MIN = -(2n ** 63n);
const INT64_MAX = 2n ** 63n - 1n;
const SAFE_MIN = BigInt(Number.MIN_SAFE_INTEGER);
const SAFE_MAX = BigInt(Number.MAX_SAFE_INTEGER);

/**
 * Canonicalises an int64 from any accepted form; null when the value is not one. A JSON number
 * must be a safe integer: JSON.parse has already rounded anything larger, so accepting it would
 * silently change the value.
 */
export function parseInt64(value: unknown): Int64 | null {
  let big: bigint;
  if (typeof value === "bigint") big = value;
  else if (typeof value === "number") {
    if (!Number.isSafeInteger(value)) return null;
    big = BigInt(value);
  } else if (typeof value === "string") {
    if (!INT64_PATTERN.test(value)) return null;
    big = BigInt(value);
  } else return null;
  if (big < INT64_MIN || big > INT64_MAX) return null;
  return big.toString();
}

/** Accepts a JSON integer or a decimal-integer string; outputs the canonical {@link Int64} string. */
export const int64Schema = z.union([z.number(), z.string()]).transform((value, ctx): Int64 => {
  const parsed = parseInt64(value);
  if (parsed === null) {
    ctx.issues.push({
      code: "custom",
      input: value,
      message:
        typeof value === "number"
          ? `expected an int64, got the number ${value}, which is not a safe integer`
          : `expected an int64 as a decimal-integer string, got ${JSON.stringify(value)}`,
    });
    return z.NEVER;
  }
  return parsed;
});

/** The value of an {@link Int64} as a bigint (for comparisons and sums). */
export function toBigInt(value: Int64): bigint {
  const parsed = parseInt64(value);
  if (parsed === null) throw new RangeError(`not an int64: ${JSON.stringify(value)}`);
  return BigInt(parsed);
}

/** Canonicalises caller input; throws a RangeError naming the field so misuse fails before any request is sent. */
export function toInt64(value: Int64Input, field = "value"): Int64 {
  const parsed = parseInt64(value);
  if (parsed === null)
    throw new RangeError(
      `${field} must be an int64 (decimal-integer string, safe integer or bigint), got ${String(value)}`,
    );
  return parsed;
}

/**
 * The JSON form of an int64 in a request body: a JSON integer when it is safe, otherwise the
 * decimal string (which the API accepts), so no value is ever rounded on the wire.
 */
export function int64ToJson(value: Int64Input, field = "value"): number | string {
  const canonical = toInt64(value, field);
  const big = BigInt(canonical);
  return big >= SAFE_MIN && big <= SAFE_MAX ? Number(big) : canonical;
}
