import type { Kysely } from "kysely";
import type { Database } from "#src/db/schema";
import type { Logger } from "#src/logger";
import type { PriceWatch } from "#src/db/repos/watches";
import { recentAddresses } from "#src/db/repos/addresses";
import { findCredential, openApiKey } from "#src/db/repos/credentials";
import { MarketplaceError, type MarketplaceClient } from "#src/marketplace/index";
import { addTrx } from "#src/marketplace/money";
import { SecretBoxError, type SecretBox } from "#src/security/secret-box";

export interface OwnPriceDeps {
  db: Kysely<Database>;
  logger: Logger;
  box: SecretBox;
  marketplace: (apiKey?: () => string) => MarketplaceClient;
}

/**
 * What a watch compares, for its owner: with a working key, the total of their own order preview
 * (the price with the marketplace's commission, and for a watch with an address its activation
 * fee: what Buy now's card shows as its total); "public" without a key (or with no address to
 * price for: a watch without one, from a user who never bought), when the public quote is all
 * there is; "unknown" when the preview could not be read, so nothing is said on the public price
 * instead (the next check looks again).
 */
export type OwnPrice = { totalTrx: string } | "public" | "unknown";

export async function ownPrice(deps: OwnPriceDeps, watch: PriceWatch): Promise<OwnPrice> {
  const credential = await findCredential(deps.db, watch.telegram_id);
  if (!credential || credential.broken_at) return "public";
  let apiKey: string;
  try {
    apiKey = openApiKey(deps.box, credential);
  } catch (error) {
    if (error instanceof SecretBoxError) return "public";
    throw error;
  }
  // A watch without an address is priced for the address the user bought for last (its
  // commission is theirs either way; the card of Buy now offers that address first).
  const target = watch.address ?? (await recentAddresses(deps.db, watch.telegram_id, 1))[0]?.address;
  if (!target) return "public";
  try {
    const preview = await deps
      .marketplace(() => apiKey)
      .previewOrder({ volume: watch.volume, days: watch.duration, resource: watch.resource, target });
    return { totalTrx: watch.address ? addTrx(preview.priceTrx, preview.activationTrx ?? "0") : preview.priceTrx };
  } catch (error) {
    if (!(error instanceof MarketplaceError)) throw error;
    deps.logger.info(
      { userId: watch.telegram_id, watch: watch.id, kind: error.kind, status: error.status },
      "the owner's order preview for a price watch could not be read; the watch is checked again on a later tick",
    );
    return "unknown";
  }
}
