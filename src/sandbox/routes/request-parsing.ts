/**
 * Turning request bodies and query strings into typed values, with details that say what was
 * wrong. Query problems answer 400; creation bodies answer 422 (the spec leaves this open).
 */
import type { Context } from "hono";
import { z } from "zod";
import { UUID_PATTERN } from "../ids";
import { DURATIONS } from "../price-book";
import { notFound, SandboxError, validationError } from "../problem";
import type { Duration, Resource } from "../types";

const INT64_PATTERN = /^-?(?:0|[1-9]\d*)$/;
const TRON_ADDRESS = /^T[1-9A-HJ-NP-Za-km-z]{33}$/;

/** An int64 field: a JSON integer or a decimal-integer string, within the safe-integer range the sandbox stores. */
export const int64Input = z.unknown().transform((value, ctx): number => {
  const number =
    typeof value === "string"
      ? INT64_PATTERN.test(value)
        ? Number(value)
        : Number.NaN
      : typeof value === "number"
        ? value
        : Number.NaN;
  if (value === undefined) {
    ctx.issues.push({ code: "custom", input: value, message: "is required" });
    return z.NEVER;
  }
  if (!Number.isSafeInteger(number)) {
    ctx.issues.push({
      code: "custom",
      input: value,
      message: `must be an integer (a JSON integer or a decimal-integer string), got ${JSON.stringify(value)}`,
    });
    return z.NEVER;
  }
  return number;
});

export const addressInput = z
  .string()
  .regex(TRON_ADDRESS, { error: "must be a TRON address: T followed by 33 base58 characters" });

export const durationInput = z.enum(DURATIONS as [Duration, ...Duration[]], {
  error: `must be one of ${DURATIONS.join(", ")}`,
});

function valueAt(input: unknown, path: readonly PropertyKey[]): unknown {
  let value = input;
  for (const segment of path)
    value = typeof value === "object" && value !== null ? (value as Record<PropertyKey, unknown>)[segment] : undefined;
  return value;
}

function describeIssues(issues: readonly z.core.$ZodIssue[], input: unknown): string {
  return issues
    .map((issue) => {
      const field = issue.path.length > 0 ? issue.path.join(".") : "body";
      const missing = issue.path.length > 0 && valueAt(input, issue.path) === undefined;
      return `${field} ${missing ? "is required" : issue.message}`;
    })
    .join("; ");
}

export function parseWith<T extends z.ZodType>(schema: T, input: unknown, status: 400 | 422): z.output<T> {
  const result = schema.safeParse(input);
  if (!result.success) throw validationError(status, describeIssues(result.error.issues, input));
  return result.data;
}

export async function readJsonBody(c: Context): Promise<unknown> {
  const text = await c.req.text();
  if (text.trim() === "") return {};
  try {
    return JSON.parse(text) as unknown;
  } catch {
    throw new SandboxError(400, "request.malformed_json", "Malformed JSON", "the request body is not valid JSON");
  }
}

export function checkVolume(
  volume: number,
  bounds: { min: number; max: number },
  status: 400 | 422,
  field = "volume",
): void {
  if (volume < bounds.min || volume > bounds.max)
    throw validationError(status, `${field} must be between ${bounds.min} and ${bounds.max}, got ${volume}`);
}

/** An int64 query parameter; undefined when absent. */
export function queryInt64(c: Context, name: string): number | undefined {
  const raw = c.req.query(name);
  if (raw === undefined || raw === "") return undefined;
  if (!INT64_PATTERN.test(raw) || !Number.isSafeInteger(Number(raw)))
    throw validationError(400, `${name} must be an integer, got ${JSON.stringify(raw)}`);
  return Number(raw);
}

/** page (default 1) and pageSize (default 20, capped at 100; fixed when fixedPageSize is given). */
export function paging(c: Context, fixedPageSize?: number): { page: number; pageSize: number } {
  const page = queryInt64(c, "page") ?? 1;
  if (page < 1) throw validationError(400, `page must be 1 or more, got ${page}`);
  if (fixedPageSize !== undefined) return { page, pageSize: fixedPageSize };
  const pageSize = queryInt64(c, "pageSize") ?? 20;
  if (pageSize < 1) throw validationError(400, `pageSize must be 1 or more, got ${pageSize}`);
  return { page, pageSize: Math.min(pageSize, 100) };
}

export function pageOf<T>(items: readonly T[], page: number, pageSize: number): T[] {
  return items.slice((page - 1) * pageSize, page * pageSize);
}

/** A path id that is not a UUID cannot name anything: 404 like an unknown id. */
export function pathUuid(c: Context, what: string): string {
  const id = c.req.param("id") ?? "";
  if (!UUID_PATTERN.test(id)) throw notFound(what, id);
  return id.toLowerCase();
}

/** The resource query parameter; energy when absent. */
export function resourceQuery(raw: string | undefined): Resource {
  if (raw === undefined || raw === "") return "energy";
  if (raw === "energy" || raw === "bandwidth") return raw;
  throw validationError(400, `resource must be energy or bandwidth, got ${JSON.stringify(raw)}`);
}
