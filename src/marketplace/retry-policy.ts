/**
 * When a failed marketplace call is tried again, and how long to wait first.
 */
import type { MarketplaceError } from "./errors";

/**
 * - idempotent: reads. Retried on network errors, timeouts, 429 and every 5xx.
 * - order: POST /api/v1/orders, safe to repeat because the same Idempotency-Key is resent.
 *   Retried like a read except on 502, which means the provider failed and the balance was
 *   refunded: a final answer.
 * - never: other writes (rule creation, pause, read marks) have no idempotency key; a blind
 *   retry could create a second rule, so the caller decides.
 */
export type RetryPolicy = "idempotent" | "order" | "never";

/** The longest Retry-After the client waits for; beyond it the error goes back to the caller with retryAfterMs set. */
export const MAX_RETRY_AFTER_MS = 30_000;
/** The most one call waits between its attempts in all: three Retry-Afters of 30 s would keep a chat silent for a minute and a half. */
export const MAX_TOTAL_RETRY_WAIT_MS = 30_000;
/** The ceiling of one exponential backoff step. */
export const MAX_BACKOFF_MS = 5_000;

/** Whether `error` may be retried under `policy` (the attempt budget is checked by the caller). */
export function isRetryable(error: MarketplaceError, policy: RetryPolicy): boolean {
  if (policy === "never") return false;
  if (error.retryAfterMs !== undefined && error.retryAfterMs > MAX_RETRY_AFTER_MS) return false;
  switch (error.kind) {
    case "network":
    case "timeout":
    case "rate_limited":
    case "server":
      return true;
    case "provider_failed":
      return policy === "idempotent";
    default:
      return false;
  }
}

/**
 * The wait before retry number `retry` (1 for the first retry): the server's Retry-After when it
 * gave one, else "full jitter" exponential backoff, a random wait in [0, min(cap, base·2^(retry-1))],
 * which spreads clients that failed together.
 */
export function retryDelayMs(
  retry: number,
  options: { backoffBaseMs: number; retryAfterMs?: number; random: () => number },
): number {
  if (options.retryAfterMs !== undefined) return Math.min(options.retryAfterMs, MAX_RETRY_AFTER_MS);
  const ceiling = Math.min(MAX_BACKOFF_MS, options.backoffBaseMs * 2 ** (retry - 1));
  return Math.floor(options.random() * ceiling);
}

/**
 * Parses a Retry-After header: delta seconds ("120") or an HTTP date. Returns milliseconds from
 * `nowMs` (never negative), or undefined when absent or unreadable.
 */
export function parseRetryAfter(header: string | null, nowMs: number): number | undefined {
  if (header === null) return undefined;
  const text = header.trim();
  if (/^\d+$/.test(text)) return Number(text) * 1000;
  const date = Date.parse(text);
  if (Number.isNaN(date)) return undefined;
  return Math.max(0, date - nowMs);
}

/**
 * The longest one marketplace call can take with the client's retries: every attempt running to
 * its timeout, and every wait between attempts at its longest (a Retry-After at the cap).
 */
export function longestMarketplaceCallMs(options: { timeoutMs: number; maxRetries: number }): number {
  return (
    (options.maxRetries + 1) * options.timeoutMs + options.maxRetries * Math.max(MAX_RETRY_AFTER_MS, MAX_BACKOFF_MS)
  );
}
