import { SANDBOX_TX_PREFIX } from "#src/marketplace/tx-id";

/** Random identifiers, all drawn from the world's injectable random() so tests can be deterministic. */

const HEX = "0123456789abcdef";
const BASE62 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";
// Base58 without 0, O, I, l: what TRON addresses are written in.
const BASE58 = "123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz";

export const UUID_PATTERN = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
export const API_KEY_PREFIX = "sk_sandbox_";

function pick(random: () => number, alphabet: string, length: number): string {
  let out = "";
  for (let i = 0; i < length; i++) out += alphabet[Math.floor(random() * alphabet.length) % alphabet.length];
  return out;
}

/** A version-4 UUID. */
export function newUuid(random: () => number): string {
  const hex = pick(random, HEX, 32).split("");
  hex[12] = "4";
  hex[16] = "89ab"[Math.floor(random() * 4) % 4]!;
  const s = hex.join("");
  return `${s.slice(0, 8)}-${s.slice(8, 12)}-${s.slice(12, 16)}-${s.slice(16, 20)}-${s.slice(20)}`;
}

export { isSandboxTxId, SANDBOX_TX_PREFIX } from "#src/marketplace/tx-id";

/** A 64-hex transaction id, like a TRON txid, that no explorer knows (see SANDBOX_TX_PREFIX). */
export function newTxId(random: () => number): string {
  return SANDBOX_TX_PREFIX + pick(random, HEX, 64 - SANDBOX_TX_PREFIX.length);
}

export function newApiKey(random: () => number): string {
  return API_KEY_PREFIX + pick(random, BASE62, 32);
}

/** Looks like a TRON address (T + 33 base58 characters); the checksum is not meaningful. */
export function newTronAddress(random: () => number): string {
  return "T" + pick(random, BASE58, 33);
}
