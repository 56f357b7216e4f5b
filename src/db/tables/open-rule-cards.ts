/**
 * A rule card (or its "cancel this rule?") open in a chat, as the bot last sent or edited it: the
 * message the dashboard's Pause or Resume redraws. Written by db/repos/open-rule-cards.ts alone.
 */
export interface OpenRuleCardsTable {
  chat_id: number;
  message_id: number;
  /** The rule's callback reference on the card's buttons (callback_refs.id, the chat owner's). */
  rule_ref: string;
  /** The rule menu's payload on those buttons: the reference and the list page. */
  payload: string;
  /** The text the card shows (as Telegram shows it, tags removed). */
  text: string;
  /** The card's inline keyboard, as JSON. */
  keyboard: string;
  /** When the bot last sent or edited the card (retention counts from here). */
  drawn_at: number;
}
