import { processingDeadlineMs } from "#src/db/repos/pending-actions";
import { DEFAULT_MARKETPLACE_RETRIES } from "#src/marketplace/client";
import { longestMarketplaceCallMs } from "#src/marketplace/retry-policy";

/**
 * How long a card may stay in "processing" with its claim unrenewed before it counts as abandoned,
 * from the configured marketplace timeout and the client's retries: longer than a live Confirm
 * ever goes between two renewals, so a slow call is never taken for a crash (with the default
 * 10 s timeout: 3 calls of 4 attempts and 3 waits of up to 30 s, plus 30 s, = 420 s). Read by the
 * card's Confirm (bot) and by the job that releases stuck cards (push).
 */
export function stuckCardAfterMs(marketplaceTimeoutMs: number): number {
  return processingDeadlineMs(
    longestMarketplaceCallMs({ timeoutMs: marketplaceTimeoutMs, maxRetries: DEFAULT_MARKETPLACE_RETRIES }),
  );
}
