import { FixedWindowLimiter } from "#src/bounded/fixed-window";

/**
 * How many requests for unknown webhook tokens one client address may make per window. A
 * marketplace still delivering to a user's old URL after a rotation makes a handful; someone
 * guessing tokens makes thousands.
 */
export interface UnknownTokenLimit {
  limit: number;
  windowMs: number;
}

export const UNKNOWN_TOKEN_LIMIT: UnknownTokenLimit = { limit: 30, windowMs: 60_000 };

/** Addresses remembered at most; past it the oldest windows are forgotten first. */
const MAX_ADDRESSES = 100_000;

/**
 * Counts, per client address, the requests that named an unknown token, in a window opened by the
 * first of them. While an address is past the limit, every request from it is refused alike (429,
 * known token or not, no database read), so the limit neither costs a lookup nor tells which
 * tokens exist; the marketplace retries what was refused. In this process's memory: the limit is
 * per replica, and a restart forgets it.
 */
export class UnknownTokenLimiter extends FixedWindowLimiter {
  constructor(settings: UnknownTokenLimit = UNKNOWN_TOKEN_LIMIT, maxAddresses = MAX_ADDRESSES) {
    super(settings, maxAddresses);
  }
}
