/**
 * The one error type for marketplace failures. Callers switch on `kind` to pick a message and a
 * next step (a Top up button for insufficient_balance, "the key is read-only" for
 * insufficient_scope, …). An error never holds request headers, so it cannot leak the API key
 * through its message, its JSON form or util.inspect.
 */
import { extractErrorCode } from "./error-code";

/** What went wrong, decided by a known error code first and by the HTTP status otherwise. */
export type MarketplaceErrorKind =
  | "bad_request" // 400
  | "unauthorized" // 401, or no API key configured for a call that needs one
  | "insufficient_balance" // 402 or wallet.insufficient_balance
  | "insufficient_scope" // api_key.insufficient_scope
  | "spend_limit" // api_key.spend_limit_exceeded
  | "forbidden" // any other 403
  | "not_found" // 404
  | "conflict" // 409
  | "unprocessable" // 422
  | "rate_limited" // 429
  | "provider_failed" // 502: on POST /api/v1/orders the provider failed and the balance was refunded
  | "server" // any other 5xx
  | "timeout" // no complete answer within timeoutMs
  | "network" // the request could not be sent or the connection broke
  | "invalid_response" // a success body that is not JSON or does not match the resource schema
  | "http"; // any other unexpected status

/** One schema violation in a response body: where (dotted path, "" for the root) and what. */
export interface ResponseIssue {
  path: string;
  message: string;
}

export interface MarketplaceErrorInit {
  kind: MarketplaceErrorKind;
  method: string;
  /** The request path without the query string, e.g. /api/v1/orders/5f0c…. */
  path: string;
  status?: number;
  code?: string;
  detail?: string;
  retryAfterMs?: number;
  issues?: ResponseIssue[];
}

/** A failed marketplace call. `status` is absent for timeouts, network errors and calls refused before sending. */
export class MarketplaceError extends Error {
  override readonly name = "MarketplaceError";
  readonly kind: MarketplaceErrorKind;
  readonly method: string;
  readonly path: string;
  readonly status?: number;
  readonly code?: string;
  readonly detail?: string;
  /** How long the server asked us to wait (Retry-After), in milliseconds. */
  readonly retryAfterMs?: number;
  /** For invalid_response: the schema issues of the body. */
  readonly issues?: ResponseIssue[];

  constructor(init: MarketplaceErrorInit) {
    super(describe(init));
    this.kind = init.kind;
    this.method = init.method;
    this.path = init.path;
    if (init.status !== undefined) this.status = init.status;
    if (init.code !== undefined) this.code = init.code;
    if (init.detail !== undefined) this.detail = init.detail;
    if (init.retryAfterMs !== undefined) this.retryAfterMs = init.retryAfterMs;
    if (init.issues !== undefined) this.issues = init.issues;
  }

  /** A plain form for structured logs. */
  toJSON(): MarketplaceErrorInit & { name: string; message: string } {
    const { name, message, kind, method, path, status, code, detail, retryAfterMs, issues } = this;
    return { name, message, kind, method, path, status, code, detail, retryAfterMs, issues };
  }
}

function describe(init: MarketplaceErrorInit): string {
  const facts = [init.status === undefined ? undefined : `HTTP ${init.status}`, init.code].filter(Boolean).join(", ");
  const issues = init.issues?.length
    ? `: ${init.issues.map((issue) => `${issue.path || "(root)"}: ${issue.message}`).join("; ")}`
    : "";
  const detail = init.detail ? `: ${init.detail}` : "";
  return `marketplace ${init.method} ${init.path} failed (${init.kind}${facts ? `; ${facts}` : ""})${detail}${issues}`;
}

/** True when `error` is a MarketplaceError, optionally of one of the given kinds. */
export function isMarketplaceError(error: unknown, ...kinds: MarketplaceErrorKind[]): error is MarketplaceError {
  return error instanceof MarketplaceError && (kinds.length === 0 || kinds.includes(error.kind));
}

// A Map, not an object: the code comes from the response body, and "constructor" must find nothing.
const KIND_BY_CODE = new Map<string, MarketplaceErrorKind>([
  ["wallet.insufficient_balance", "insufficient_balance"],
  ["api_key.insufficient_scope", "insufficient_scope"],
  ["api_key.spend_limit_exceeded", "spend_limit"],
]);

const KIND_BY_STATUS: Record<number, MarketplaceErrorKind> = {
  400: "bad_request",
  401: "unauthorized",
  402: "insufficient_balance",
  403: "forbidden",
  404: "not_found",
  409: "conflict",
  422: "unprocessable",
  429: "rate_limited",
  502: "provider_failed",
};

/** The kind for an HTTP error: a known code decides, else the status. */
export function kindFor(status: number, code: string | undefined): MarketplaceErrorKind {
  const byCode = code === undefined ? undefined : KIND_BY_CODE.get(code);
  if (byCode) return byCode;
  return KIND_BY_STATUS[status] ?? (status >= 500 && status <= 599 ? "server" : "http");
}

/** The fields of an error body (all nullable per the spec) plus the `code` some servers add. */
export interface ErrorBody {
  code?: string;
  type?: string;
  title?: string;
  status?: number;
  detail?: string;
  instance?: string;
}

/**
 * Reads an error body leniently: anything that is not an object, or fields of the wrong type,
 * are ignored, because an error must be reported even when its body is odd.
 */
export function readErrorBody(text: string): ErrorBody {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return {};
  }
  if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed)) return {};
  const record = parsed as Record<string, unknown>;
  const body: ErrorBody = {};
  for (const field of ["code", "type", "title", "detail", "instance"] as const) {
    if (typeof record[field] === "string") body[field] = record[field];
  }
  if (typeof record.status === "number") body.status = record.status;
  // Validation problems (ASP.NET style) list messages per field; they are the useful detail.
  if (body.detail === undefined && typeof record.errors === "object" && record.errors !== null) {
    const messages = Object.entries(record.errors as Record<string, unknown>).map(
      ([field, value]) => `${field}: ${Array.isArray(value) ? value.join(", ") : String(value)}`,
    );
    if (messages.length) body.detail = messages.join("; ");
  }
  return body;
}

/** The route whose 502 means "the provider failed, the balance was refunded" (POST). */
const ORDER_CREATION_PATH = "/api/v1/orders";

/** Builds the error for a non-2xx response. */
export function errorFromResponse(init: {
  method: string;
  path: string;
  status: number;
  bodyText: string;
  retryAfterMs?: number;
  redact?: (text: string) => string;
}): MarketplaceError {
  const body = readErrorBody(init.bodyText);
  const code = extractErrorCode(body);
  // Redacted again once decoded: JSON may carry a secret escaped ("\u002B" for "+"), past a look at the raw text.
  const raw = body.detail ?? body.title;
  const detail = raw === undefined || !init.redact ? raw : init.redact(raw);
  const kind = kindFor(init.status, code);
  return new MarketplaceError({
    // A 502 says the provider failed and the balance was refunded only where the spec says so
    // (placing an order); anywhere else it is a gateway's answer like any other 5xx.
    kind:
      kind === "provider_failed" && !(init.method === "POST" && init.path === ORDER_CREATION_PATH) ? "server" : kind,
    method: init.method,
    path: init.path,
    status: init.status,
    ...(code === undefined ? {} : { code: init.redact ? init.redact(code) : code }),
    ...(detail === undefined ? {} : { detail: truncate(detail) }),
    ...(init.retryAfterMs === undefined ? {} : { retryAfterMs: init.retryAfterMs }),
  });
}

function truncate(text: string, max = 500): string {
  return text.length > max ? `${text.slice(0, max)}…` : text;
}
