/**
 * What a rule-pause notification says about money. MARKETPLACE_API.md gives notifications no
 * structured fields, so this reads the marketplace's text: a figure counts only where a TRX
 * amount stands right after the word it belongs to ("balance (990 TRX)", "next delivery: 4.6 TRX"),
 * and whatever is not there stays null rather than guessed.
 */
export interface PauseReason {
  /** The text blames the balance (short of funds, cannot cover, top up…). */
  shortOfBalance: boolean;
  /** The balance the marketplace saw, as its decimal TRX string; null when the text gives none. */
  balanceTrx: string | null;
  /** What the next delivery costs, as its decimal TRX string; null when the text gives none. */
  nextDeliveryTrx: string | null;
  /** The text says the rule comes back by itself after a top-up. */
  resumesByItself: boolean;
}

const AMOUNT = String.raw`\(?\s*(\d{1,15}(?:\.\d{1,6})?)\s*TRX\b`;
const LINK = String.raw`\s*(?:of\s+|is\s+|was\s+|:\s*)?`;
const BALANCE_FIGURE = new RegExp(String.raw`\bbalance${LINK}${AMOUNT}`, "i");
const COST_FIGURE = new RegExp(
  String.raw`\b(?:next\s+delivery|next\s+firing|delivery|firing)(?:\s+costs?|\s+needs?)?${LINK}${AMOUNT}`,
  "i",
);
const SHORT_OF_BALANCE = /\bbalance\b|insufficient|not enough|\bfunds?\b|cannot cover|top.?up/i;
const RESUMES_BY_ITSELF = /\bresumes? (?:by itself|automatically)/i;

export function readPauseReason(text: string): PauseReason {
  return {
    shortOfBalance: SHORT_OF_BALANCE.test(text),
    balanceTrx: BALANCE_FIGURE.exec(text)?.[1] ?? null,
    nextDeliveryTrx: COST_FIGURE.exec(text)?.[1] ?? null,
    resumesByItself: RESUMES_BY_ITSELF.test(text),
  };
}
