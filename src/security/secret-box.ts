import { createCipheriv, createDecipheriv, createHash, hkdfSync, randomBytes } from "node:crypto";

/**
 * Authenticated encryption of users' API keys at rest: AES-256-GCM with a random 96-bit nonce per
 * value and a key id stored beside the ciphertext. The data key is derived from SECRET_KEY with
 * HKDF-SHA256; SECRET_KEY_PREVIOUS, during a rotation, still decrypts.
 */

export interface SealedValue {
  keyId: string;
  /** base64 of nonce | ciphertext | tag */
  ciphertext: string;
}

export class SecretBoxError extends Error {
  constructor(readonly reason: "unknown_key" | "tampered") {
    super(
      reason === "unknown_key"
        ? "stored value was encrypted under a key that is no longer configured"
        : "stored value failed authentication (tampered or corrupted)",
    );
    this.name = "SecretBoxError";
  }
}

interface DataKey {
  id: string;
  bytes: Buffer;
}

function deriveDataKey(secretKeyBase64: string): DataKey {
  const secret = Buffer.from(secretKeyBase64, "base64");
  const bytes = Buffer.from(hkdfSync("sha256", secret, Buffer.alloc(0), "tron-energy-bot/api-keys/v1", 32));
  const id = createHash("sha256").update(bytes).digest("hex").slice(0, 12);
  return { id, bytes };
}

export class SecretBox {
  // Private fields (#) stay out of JSON.stringify, util.inspect and any object a logger walks.
  readonly #current: DataKey;
  readonly #previous: DataKey | null;
  readonly #onPlaintext: ((plaintext: string) => void) | undefined;

  /**
   * @param onPlaintext told of every plaintext sealed or opened (the app's log scrubber learns
   *   the API keys this way, so none of them can reach a log line).
   */
  constructor(secretKey: string, previousSecretKey?: string, onPlaintext?: (plaintext: string) => void) {
    this.#current = deriveDataKey(secretKey);
    this.#previous = previousSecretKey ? deriveDataKey(previousSecretKey) : null;
    this.#onPlaintext = onPlaintext;
  }

  get currentKeyId(): string {
    return this.#current.id;
  }

  /** Encrypts under the current key. `context` (e.g. the user id) is bound as associated data, so a ciphertext moved to another row fails. */
  seal(plaintext: string, context: string): SealedValue {
    this.#onPlaintext?.(plaintext);
    const nonce = randomBytes(12);
    const cipher = createCipheriv("aes-256-gcm", this.#current.bytes, nonce);
    cipher.setAAD(Buffer.from(context, "utf8"));
    const body = Buffer.concat([cipher.update(plaintext, "utf8"), cipher.final()]);
    return {
      keyId: this.#current.id,
      ciphertext: Buffer.concat([nonce, body, cipher.getAuthTag()]).toString("base64"),
    };
  }

  /** Decrypts; throws SecretBoxError on an unknown key id or a failed authentication tag. */
  open(sealed: SealedValue, context: string): string {
    const key = [this.#current, this.#previous].find((candidate) => candidate?.id === sealed.keyId);
    if (!key) throw new SecretBoxError("unknown_key");
    const raw = Buffer.from(sealed.ciphertext, "base64");
    if (raw.length < 12 + 16) throw new SecretBoxError("tampered");
    let plaintext: string;
    try {
      const decipher = createDecipheriv("aes-256-gcm", key.bytes, raw.subarray(0, 12));
      decipher.setAAD(Buffer.from(context, "utf8"));
      decipher.setAuthTag(raw.subarray(raw.length - 16));
      plaintext = Buffer.concat([decipher.update(raw.subarray(12, raw.length - 16)), decipher.final()]).toString(
        "utf8",
      );
    } catch {
      throw new SecretBoxError("tampered");
    }
    this.#onPlaintext?.(plaintext);
    return plaintext;
  }

  /** True when the value is under an older key and should be re-sealed. */
  needsRotation(sealed: SealedValue): boolean {
    return sealed.keyId !== this.#current.id;
  }
}

/** SHA-256 hex of a webhook token, the only form in which tokens are stored. */
export function hashToken(token: string): string {
  return createHash("sha256").update(token, "utf8").digest("hex");
}

/** A fresh random token: 32 bytes, base64url (256 bits). */
export function newToken(): string {
  return randomBytes(32).toString("base64url");
}

/** A short random id for callback data and confirmation cards (10 base64url chars, 60 bits). */
export function shortId(): string {
  return randomBytes(8).toString("base64url").slice(0, 10);
}
