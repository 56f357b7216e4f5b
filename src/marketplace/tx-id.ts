/**
 * Transaction ids as the bot shows them. A real TRON txid is a SHA-256 hash, which begins with 16
 * zero hex digits once in 2^64; the sandbox marketplace begins every id it makes up with them, so
 * a made-up id is told from a real one wherever it is shown (it has no page on the explorer).
 */
export const SANDBOX_TX_PREFIX = "0".repeat(16);

/** True for a transaction id the sandbox made up: it has no page on the TRON explorer. */
export function isSandboxTxId(txId: string): boolean {
  return txId.length === 64 && txId.startsWith(SANDBOX_TX_PREFIX);
}
