/**
 * Field-level schemas shared by every marketplace resource. They accept what the API may send
 * and normalise it to one representation each, so the rest of the program never branches on
 * wire formats.
 */
import { z } from "zod";
import { parseTrx } from "../money";

const INT32_STRING = /^-?(?:0|[1-9]\d*)$/;

/** int32 fields (page, total, counters): a JSON integer, also tolerated as a numeric string; output is a number. */
export const int32Schema = z.union([z.number(), z.string()]).transform((value, ctx): number => {
  const number = typeof value === "string" && INT32_STRING.test(value) ? Number(value) : value;
  if (typeof number !== "number" || !Number.isInteger(number) || number < -(2 ** 31) || number >= 2 ** 31) {
    ctx.issues.push({ code: "custom", input: value, message: `expected an int32, got ${JSON.stringify(value)}` });
    return z.NEVER;
  }
  return number;
});

/**
 * A TRX amount: kept as the API's decimal string (convert with money.ts), but validated to be one.
 * An explicit plus sign (a ledger may write a credit "+5") is read as the plain amount.
 */
export const trxSchema = z
  .string()
  .transform((value) => value.replace(/^\s*\+(?=\d)/, ""))
  // Finer than one sun (the spec gives no precision): cut to whole sun, the smallest amount TRON moves.
  .transform((value) => value.replace(/^(\s*-?\d+\.\d{6})\d+/, "$1"))
  .refine((value) => parseTrx(value) !== null, { message: "expected a decimal TRX amount" });

/** An ISO 8601 date-time string; kept as sent (the spec gives no stricter format). */
export const dateTimeSchema = z
  .string()
  .refine((value) => !Number.isNaN(Date.parse(value)), { message: "expected an ISO 8601 date-time" });

/** Identifiers are UUIDs per the spec; only non-emptiness is checked so a different id format is not a hard failure. */
export const idSchema = z.string().min(1);

/**
 * For a field the spec does not mark required: a missing field and null both become null, so
 * consumers handle one "absent" value.
 */
export function absentAsNull<T extends z.ZodType>(schema: T) {
  return schema.nullish().transform((value): z.output<T> | null => value ?? null);
}
