import { isSandboxTxId } from "#src/marketplace/tx-id";

/** Escapes text for Telegram's HTML parse mode: every <, > and & (and quotes, for attributes). */
export function escapeHtml(text: string): string {
  return text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;");
}

/** `<code>` around an escaped value: tap to copy in Telegram. */
export function code(text: string): string {
  return `<code>${escapeHtml(text)}</code>`;
}

const TRONSCAN = "https://tronscan.org/#/transaction/";

/**
 * A transaction id linked to the TRON explorer (only hex ids become links). A sandbox id would
 * lead to "not found" there, so it reads as `sandboxLabel` (the translated "sandbox transaction").
 */
export function txLink(txId: string, sandboxLabel: string): string {
  if (isSandboxTxId(txId)) return escapeHtml(sandboxLabel);
  if (/^[0-9a-fA-F]{64}$/.test(txId))
    return `<a href="${TRONSCAN}${txId}">${escapeHtml(txId.slice(0, 8))}…${escapeHtml(txId.slice(-6))}</a>`;
  return code(txId);
}

/** The explorer URL of a transaction, for URL buttons. */
export function txUrl(txId: string): string | null {
  return /^[0-9a-fA-F]{64}$/.test(txId) && !isSandboxTxId(txId) ? `${TRONSCAN}${txId}` : null;
}

/** Shortens an address for button labels: TNPe…YqeL. */
export function shortAddress(address: string): string {
  return address.length > 12 ? `${address.slice(0, 4)}…${address.slice(-4)}` : address;
}

/** Shortens plain text to at most `max` UTF-16 units, ending with an ellipsis when cut. */
export function truncate(text: string, max: number): string {
  if (text.length <= max) return text;
  let cut = text.slice(0, Math.max(0, max - 1));
  // never leave half of a surrogate pair behind
  if (/[\uD800-\uDBFF]$/.test(cut)) cut = cut.slice(0, -1);
  return `${cut}…`;
}

/**
 * The longest a word from the marketplace (a status, a resource, a duration, an address, a network)
 * is shown: the spec bounds none of them, and one must never push a message past Telegram's limits.
 */
export const MARKETPLACE_WORD_MAX = 64;

/** A word from the marketplace, cut to MARKETPLACE_WORD_MAX. */
export function marketWord(text: string): string {
  return truncate(text, MARKETPLACE_WORD_MAX);
}

/** Telegram's limit on a message's text (after entity parsing). */
export const MESSAGE_LIMIT = 4096;
