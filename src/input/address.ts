import { createHash } from "node:crypto";

const ALPHABET = "123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz";

export type AddressCheck = { ok: true; address: string } | { ok: false; reason: "format" | "checksum" };

function decodeBase58(text: string): Uint8Array | null {
  let value = 0n;
  for (const char of text) {
    const digit = ALPHABET.indexOf(char);
    if (digit < 0) return null;
    value = value * 58n + BigInt(digit);
  }
  const bytes: number[] = [];
  while (value > 0n) {
    bytes.unshift(Number(value % 256n));
    value /= 256n;
  }
  for (const char of text) {
    if (char !== "1") break;
    bytes.unshift(0);
  }
  return Uint8Array.from(bytes);
}

/**
 * Checks a TRON address locally, before any call: base58check, 34 characters starting with T,
 * version byte 0x41 and a matching double-SHA-256 checksum. "checksum" means a likely typo.
 */
export function checkTronAddress(input: string): AddressCheck {
  const address = input.trim();
  if (!/^T[1-9A-HJ-NP-Za-km-z]{33}$/.test(address)) return { ok: false, reason: "format" };
  const bytes = decodeBase58(address);
  if (!bytes || bytes.length !== 25 || bytes[0] !== 0x41) return { ok: false, reason: "format" };
  const payload = bytes.subarray(0, 21);
  const first = createHash("sha256").update(payload).digest();
  const checksum = createHash("sha256").update(first).digest().subarray(0, 4);
  const matches = checksum.every((byte, index) => byte === bytes[21 + index]);
  return matches ? { ok: true, address } : { ok: false, reason: "checksum" };
}

/**
 * How one-line arguments tell an address from the other values: T and 20 or more word
 * characters. Such an argument is the address, and {@link checkTronAddress} then decides.
 */
export function looksLikeAddress(token: string): boolean {
  return /^T\w{20,}$/.test(token);
}
