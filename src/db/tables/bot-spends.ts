/**
 * What was bought through the bot, one row per confirmation card (or auto-buy): the daily cap
 * counts a user's rows of the UTC day. Written by db/repos/bot-spends.ts alone.
 */
export interface BotSpendsTable {
  /** Who spent it and through what: "card:<card id>", "autobuy:<…>"; a retry of the same spend finds its row. */
  id: string;
  telegram_id: number;
  /** The UTC day (YYYY-MM-DD) the spend counts for: the day it was reserved. */
  day: string;
  /** Sun, as a decimal string: the card's total while reserved, the order's own total once placed. */
  total_sun: string;
  /** reserved: the order is on its way (or its outcome is unknown); spent: the order was placed. */
  state: string;
  order_id: string | null;
  created_at: number;
}
