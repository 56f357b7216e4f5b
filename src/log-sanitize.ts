/**
 * What may enter a log line, decided by shape rather than by field names: plain data only.
 *
 * grammY's BotError carries the whole context (the update's text, the bot's dependencies with the
 * data key, the database handle), and GrammyError the payload of the failed call (a personal
 * webhook URL, say). Listing the fields to hide would miss the next one, so the logger keeps
 * only primitives, arrays and plain objects, turns every error into its message, stack and a few
 * identifying numbers, and replaces binary data and class instances by a short placeholder.
 */

const MAX_DEPTH = 5;
const MAX_ARRAY_ITEMS = 50;
const MAX_CAUSES = 3;

/** Primitive fields of an error that identify it without carrying what was sent. */
const ERROR_FIELDS = [
  "code",
  "kind",
  "method",
  "path",
  "status",
  "error_code",
  "description",
  "retryAfterMs",
  "reason",
  "errno",
  "syscall",
] as const;

export interface SerializedError {
  type: string;
  message: string;
  stack?: string;
  updateId?: number;
  retryAfter?: number;
  cause?: SerializedError;
  [field: string]: unknown;
}

/**
 * An error as a log line may show it: type, message, stack, the update id of a failed update,
 * the method of a failed call and the primitive codes of known error types, and its cause.
 * Never a context, a dependency object or a call's payload.
 */
export function serializeError(value: unknown, depth = 0): SerializedError {
  if (!(value instanceof Error)) {
    // Already reduced by the log formatter (it runs before pino's serializers): keep it plain.
    if (value !== null && typeof value === "object" && isPlainObject(value))
      return sanitizeLogValue(value, 1) as SerializedError;
    return { type: typeof value, message: typeof value === "string" ? value : describeNonError(value) };
  }
  const error = value as Error & Record<string, unknown>;
  const out: SerializedError = {
    type: error.name || error.constructor?.name || "Error",
    message: String(error.message ?? ""),
  };
  if (typeof error.stack === "string") out.stack = error.stack;
  for (const field of ERROR_FIELDS) {
    const fieldValue = ownValue(error, field);
    if (typeof fieldValue === "string" || typeof fieldValue === "number" || typeof fieldValue === "boolean")
      out[field] = fieldValue;
  }
  // grammY's BotError: the update id of its context, nothing else of it.
  const ctx = ownValue(error, "ctx") as { update?: { update_id?: unknown } } | undefined;
  if (ctx && typeof ctx === "object" && typeof ctx.update?.update_id === "number") out.updateId = ctx.update.update_id;
  // grammY's GrammyError: how long Telegram asked to wait, never the payload.
  const parameters = ownValue(error, "parameters") as { retry_after?: unknown } | undefined;
  if (parameters && typeof parameters === "object" && typeof parameters.retry_after === "number")
    out.retryAfter = parameters.retry_after;
  if (depth < MAX_CAUSES) {
    // BotError and HttpError keep the underlying error in `error`; standard errors in `cause`.
    const inner = ownValue(error, "error") ?? ownValue(error, "cause");
    if (inner !== undefined && inner !== null) out.cause = serializeError(inner, depth + 1);
  }
  return out;
}

function ownValue(object: object, key: string): unknown {
  return key in object ? (object as Record<string, unknown>)[key] : undefined;
}

function describeNonError(value: unknown): string {
  if (value === null || value === undefined) return String(value);
  if (typeof value === "object") return `[${value.constructor?.name ?? "object"}]`;
  return String(value);
}

function isBinary(value: object): boolean {
  return (
    ArrayBuffer.isView(value) ||
    value instanceof ArrayBuffer ||
    (typeof SharedArrayBuffer !== "undefined" && value instanceof SharedArrayBuffer)
  );
}

function isPlainObject(value: object): boolean {
  const prototype = Object.getPrototypeOf(value) as unknown;
  return prototype === Object.prototype || prototype === null;
}

/**
 * Reduces a log object to plain data: errors (at any depth) through `serializeError`, binary
 * values to "[binary N bytes]", class instances (contexts, database handles, clients) to their
 * class name, deep nesting and long arrays cut. Dates and URLs become strings.
 */
export function sanitizeLogValue(value: unknown, depth = 0): unknown {
  if (value === null || typeof value !== "object") {
    if (typeof value === "function") return "[function]";
    if (typeof value === "bigint") return value.toString();
    return value;
  }
  if (value instanceof Error) return serializeError(value);
  if (isBinary(value)) return `[binary ${(value as ArrayBufferView | ArrayBuffer).byteLength} bytes]`;
  if (value instanceof Date) return Number.isNaN(value.getTime()) ? "Invalid Date" : value.toISOString();
  if (value instanceof URL) return value.toString();
  if (depth >= MAX_DEPTH) return Array.isArray(value) ? "[array]" : "[object]";
  if (Array.isArray(value)) {
    const items = value.slice(0, MAX_ARRAY_ITEMS).map((item) => sanitizeLogValue(item, depth + 1));
    if (value.length > MAX_ARRAY_ITEMS) items.push(`[${value.length - MAX_ARRAY_ITEMS} more]`);
    return items;
  }
  if (value instanceof Map || value instanceof Set) return `[${value.constructor.name} of ${value.size}]`;
  if (!isPlainObject(value)) return `[${(value as object).constructor?.name ?? "object"}]`;
  const out: Record<string, unknown> = {};
  for (const [key, field] of Object.entries(value)) out[key] = sanitizeLogValue(field, depth + 1);
  return out;
}

/** The top level of a log call's object, each field through `sanitizeLogValue`. */
export function sanitizeLogObject(object: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, field] of Object.entries(object)) out[key] = sanitizeLogValue(field, 1);
  return out;
}
