/**
 * UTC calendar days, as the marketplace counts a key's spend limit: the day the bot's daily cap
 * (bot_spends) and auto-buys' budgets (auto_buy_orders) are keyed by.
 */

/** The UTC calendar day of `now` (YYYY-MM-DD). */
export function utcDay(now: number): string {
  return new Date(now).toISOString().slice(0, 10);
}

/** The next UTC midnight after `now` (ms), when a new day's cap and budgets begin. */
export function nextUtcMidnight(now: number): number {
  const date = new Date(now);
  return Date.UTC(date.getUTCFullYear(), date.getUTCMonth(), date.getUTCDate() + 1);
}
