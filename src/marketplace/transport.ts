/**
 * One marketplace request from start to parsed result: URL and headers, the per-attempt timeout,
 * retries with backoff, classification of failures and response validation. It never logs; the
 * `onCall` hook sees each attempt without the key.
 */
import type { z } from "zod";
import { MarketplaceError, errorFromResponse } from "./errors";
import type { MarketplaceErrorKind } from "./errors";
import { isRetryable, MAX_TOTAL_RETRY_WAIT_MS, parseRetryAfter, retryDelayMs } from "./retry-policy";
import type { RetryPolicy } from "./retry-policy";
import type { Exchange } from "./http-exchange";

/** What `onCall` receives for every attempt: enough for metrics and logs, never the key or a body. */
export interface MarketplaceCallInfo {
  method: string;
  /** The templated route, e.g. /api/v1/orders/{id}, so metrics stay low-cardinality. */
  route: string;
  outcome: "ok" | MarketplaceErrorKind;
  status?: number;
  durationMs: number;
  /** 1 for the first attempt. */
  attempt: number;
}

export interface TransportOptions {
  baseUrl: string;
  apiKey?: () => string;
  timeoutMs: number;
  maxRetries: number;
  backoffBaseMs: number;
  exchange: Exchange;
  sleep: (ms: number) => Promise<void>;
  onCall?: (info: MarketplaceCallInfo) => void;
  random: () => number;
  now: () => number;
}

export interface RequestSpec {
  method: "GET" | "POST";
  /** Templated route for onCall. */
  route: string;
  /** Concrete path, already percent-encoded. */
  path: string;
  query?: Record<string, string | number | undefined>;
  body?: unknown;
  /** False only for the public price quote: the key is then not sent at all. */
  authenticated: boolean;
  retry: RetryPolicy;
  headers?: Record<string, string>;
  /** The caller gives up: the attempt in flight ends and no retry follows (a timeout error). */
  signal?: AbortSignal;
}

/** Performs requests against one marketplace; see {@link createTransport}. */
export interface Transport {
  /** Sends the request and returns the body parsed by `schema`. */
  json<T extends z.ZodType>(spec: RequestSpec, schema: T): Promise<z.output<T>>;
  /** Sends the request and expects no body (204); any 2xx body is ignored. */
  empty(spec: RequestSpec): Promise<void>;
}

type Outcome = { ok: true; status: number; text: string } | { ok: false; error: MarketplaceError };

/** The request's URL: the marketplace's base, the path and the query parameters that are set. */
function urlFor(baseUrl: string, spec: RequestSpec): string {
  const params = new URLSearchParams();
  for (const [name, value] of Object.entries(spec.query ?? {})) {
    if (value !== undefined) params.set(name, String(value));
  }
  const query = params.toString();
  return `${baseUrl}${spec.path}${query ? `?${query}` : ""}`;
}

/** The request's headers; the key only on an authenticated call, which fails without one. */
function headersFor(options: TransportOptions, spec: RequestSpec): Record<string, string> {
  const headers: Record<string, string> = { Accept: "application/json", ...spec.headers };
  if (spec.body !== undefined) headers["Content-Type"] = "application/json";
  if (spec.authenticated) {
    const key = options.apiKey?.();
    if (!key) {
      throw new MarketplaceError({
        kind: "unauthorized",
        method: spec.method,
        path: spec.path,
        detail: "no API key is configured for this marketplace client",
      });
    }
    headers["X-Api-Key"] = key;
  }
  return headers;
}

/** Hides the key should a server or a fetch error ever echo it back. */
function redactKey(options: TransportOptions, text: string): string {
  const key = options.apiKey?.();
  return key && key.length >= 8 ? text.split(key).join("[redacted]") : text;
}

/** The body parsed by `schema`, or the invalid_response error saying why it is not. */
function parseBody(
  spec: RequestSpec,
  schema: z.ZodType,
  status: number,
  text: string,
  redact: (text: string) => string,
): { value: unknown } | { error: MarketplaceError } {
  const invalid = (detail: string, issues?: { path: string; message: string }[]) => ({
    error: new MarketplaceError({
      kind: "invalid_response",
      method: spec.method,
      path: spec.path,
      status,
      detail,
      ...(issues ? { issues } : {}),
    }),
  });
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch {
    return invalid(text.trim() ? "the body is not JSON" : "the body is empty");
  }
  const parsed = schema.safeParse(data);
  if (!parsed.success) {
    return invalid(
      "the body does not match the expected schema",
      parsed.error.issues.map((issue) => ({ path: issue.path.map(String).join("."), message: redact(issue.message) })),
    );
  }
  return { value: parsed.data };
}

/** Builds the transport; every option is already defaulted by the client factory. */
export function createTransport(options: TransportOptions): Transport {
  const baseUrl = options.baseUrl.replace(/\/+$/, "");
  const redact = (text: string) => redactKey(options, text);

  /** One attempt, body read included, under its own timeout. */
  async function attempt(spec: RequestSpec, url: string, headers: Record<string, string>): Promise<Outcome> {
    const fail = (kind: MarketplaceErrorKind, detail: string): Outcome => ({
      ok: false,
      error: new MarketplaceError({ kind, method: spec.method, path: spec.path, detail: redact(detail) }),
    });
    const result = await options.exchange({
      method: spec.method,
      url,
      headers,
      ...(spec.body === undefined ? {} : { body: JSON.stringify(spec.body) }),
      timeoutMs: options.timeoutMs,
      ...(spec.signal ? { signal: spec.signal } : {}),
    });
    if (spec.signal?.aborted) return fail("timeout", "cancelled: the caller no longer waits for the answer");
    if (result.kind === "timeout") return fail("timeout", `no answer within ${options.timeoutMs} ms`);
    if (result.kind === "network") return fail("network", result.message);
    const { status, text } = result;
    if (status >= 200 && status < 300) return { ok: true, status, text };
    const retryAfterMs = parseRetryAfter(result.retryAfter, options.now());
    const error = errorFromResponse({
      method: spec.method,
      path: spec.path,
      status,
      bodyText: redact(text),
      redact,
      ...(retryAfterMs === undefined ? {} : { retryAfterMs }),
    });
    return { ok: false, error };
  }

  async function send(
    spec: RequestSpec,
    accept: (status: number, text: string) => MarketplaceError | undefined,
  ): Promise<void> {
    const url = urlFor(baseUrl, spec);
    const maxAttempts = spec.retry === "never" ? 1 : options.maxRetries + 1;
    let waited = 0;
    for (let number = 1; ; number++) {
      if (spec.signal?.aborted)
        throw new MarketplaceError({
          kind: "timeout",
          method: spec.method,
          path: spec.path,
          detail: "cancelled: the caller no longer waits for the answer",
        });
      const started = performance.now();
      const outcome = await attempt(spec, url, headersFor(options, spec));
      const error = outcome.ok ? accept(outcome.status, outcome.text) : outcome.error;
      options.onCall?.({
        method: spec.method,
        route: spec.route,
        outcome: error ? error.kind : "ok",
        ...(outcome.ok ? { status: outcome.status } : error?.status === undefined ? {} : { status: error.status }),
        durationMs: Math.round(performance.now() - started),
        attempt: number,
      });
      if (!error) return;
      if (number >= maxAttempts || !isRetryable(error, spec.retry) || spec.signal?.aborted) throw error;
      const delay = retryDelayMs(number, {
        backoffBaseMs: options.backoffBaseMs,
        random: options.random,
        ...(error.retryAfterMs === undefined ? {} : { retryAfterMs: error.retryAfterMs }),
      });
      // A wait past the call's total is not made: the caller gets the error (and its Retry-After) now.
      if (waited + delay > MAX_TOTAL_RETRY_WAIT_MS) throw error;
      waited += delay;
      await sleepUnlessAborted(options.sleep, delay, spec.signal);
    }
  }

  return {
    async json(spec, schema) {
      let value: unknown;
      await send(spec, (status, text) => {
        const parsed = parseBody(spec, schema, status, text, redact);
        if ("error" in parsed) return parsed.error;
        value = parsed.value;
        return undefined;
      });
      return value as z.output<typeof schema>;
    },
    async empty(spec) {
      await send(spec, () => undefined);
    },
  };
}

/** The wait between attempts, cut short when the caller gives up (the loop then stops). */
function sleepUnlessAborted(
  sleep: (ms: number) => Promise<void>,
  ms: number,
  signal: AbortSignal | undefined,
): Promise<void> {
  if (!signal) return sleep(ms);
  if (signal.aborted) return Promise.resolve();
  return new Promise((resolve) => {
    const done = () => {
      signal.removeEventListener("abort", done);
      resolve();
    };
    signal.addEventListener("abort", done, { once: true });
    sleep(ms).then(done, done);
  });
}
