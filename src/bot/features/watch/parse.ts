import { looksLikeAddress } from "#src/input/address";
import { splitArguments } from "#src/input/arguments";
import { saysTrx } from "#src/input/trx-limit";
import { parseDuration, parseResource } from "#src/input/volume";
import type { OrderDraft } from "../order-params";

/** A watch being made: the order fields, and the TRX limit as a normalised decimal string ("2.5"). Plain JSON. */
export interface WatchDraft extends OrderDraft {
  maxTrx?: string;
}

/** What a duration looks like (a number and m, h or d), offered or not. */
const DURATION_SHAPE = /^\d{1,4}\s*[mhd]$/i;

/**
 * Splits /watch's one-line arguments into the order's (resource, volume, duration, address: read
 * by the same validator as /quote and /buy) and the TRX limit. A number written with "trx" is the
 * limit wherever it stands; otherwise the first bare number is the volume and the second the limit
 * ("/watch energy 65k 1h 2.5"). A third number stays with the order's arguments, which refuses it.
 */
export function splitWatchArguments(
  text: string,
  durations: readonly string[],
): { orderText: string; price: string | null } {
  const order: string[] = [];
  let price: string | null = null;
  let volumeSeen = false;
  for (const token of splitArguments(text)) {
    if (price === null && saysTrx(token)) {
      price = token;
      continue;
    }
    // "2.5 TRX": the unit after the limit.
    if (price !== null && /^trx$/i.test(token)) continue;
    // After the volume, a number with m, h or d is a duration even when not offered (a TRX limit has no such unit): the order's arguments say so.
    if (
      parseResource(token) ||
      looksLikeAddress(token) ||
      parseDuration(token, durations) ||
      (volumeSeen && DURATION_SHAPE.test(token))
    ) {
      order.push(token);
      continue;
    }
    if (!volumeSeen) {
      volumeSeen = true;
      order.push(token);
      continue;
    }
    if (price === null) {
      price = token;
      continue;
    }
    order.push(token);
  }
  return { orderText: order.join(" "), price };
}
