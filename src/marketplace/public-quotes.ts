/**
 * The public price quote, bounded for the whole process: /quote, inline answers, /watch and the
 * watch job all ask through it.
 *
 * - Quotes for the same rent share one call while it is in flight (however many users ask).
 * - At most MAX_PUBLIC_QUOTES_IN_FLIGHT quote calls are in flight at once; the rest wait their turn.
 * - A caller's AbortSignal cancels its wait, and the call itself (with its retries) once no other
 *   caller waits for it.
 */
import { Semaphore } from "#src/bounded/semaphore";
import { SingleFlight } from "#src/bounded/single-flight";
import type { MarketplaceClient } from "./client";
import { toInt64 } from "./int64";
import type { PriceQuote } from "./schemas/order";

/** Public quote calls in flight at once in one process (retries included, as they run inside a call). */
export const MAX_PUBLIC_QUOTES_IN_FLIGHT = 8;

/** When a bound bites: a quote joined one in flight, or waited for a free slot. */
export type PublicQuoteLimit = "quote_shared" | "quote_waited";

type Query = Parameters<MarketplaceClient["quote"]>[0];
type ClientFactory = (apiKey?: () => string) => MarketplaceClient;

export interface PublicQuotesOptions {
  maxInFlight?: number;
  onLimit?: (limit: PublicQuoteLimit) => void;
}

/**
 * Wraps a client factory so that every client it makes (with a key or without: the quote never
 * sends one) quotes through one shared, bounded path. The other methods are the client's own.
 */
export function withBoundedPublicQuotes(factory: ClientFactory, options: PublicQuotesOptions = {}): ClientFactory {
  const slots = new Semaphore(options.maxInFlight ?? MAX_PUBLIC_QUOTES_IN_FLIGHT);
  const flights = new SingleFlight<string, PriceQuote>();
  let publicClient: MarketplaceClient | null = null;

  const quote = async (query: Query, { signal }: { signal?: AbortSignal } = {}): Promise<PriceQuote> => {
    const key = `${query.resource}:${toInt64(query.volume, "volume")}:${query.duration}`;
    publicClient ??= factory();
    const client = publicClient;
    return flights.run(
      key,
      (shared) =>
        slots.run(() => client.quote(query, { signal: shared }), {
          signal: shared,
          onWait: () => options.onLimit?.("quote_waited"),
        }),
      { ...(signal ? { signal } : {}), onShared: () => options.onLimit?.("quote_shared") },
    );
  };

  return (apiKey) => ({ ...factory(apiKey), quote });
}
