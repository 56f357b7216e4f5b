import { timingSafeEqual } from "node:crypto";
import { parse, sign, signData } from "@telegram-apps/init-data-node";
import { z } from "zod";

/** Init data older than this is refused (PRODUCT.md: at most an hour old). */
export const INIT_DATA_MAX_AGE_MS = 60 * 60_000;
/** A little clock skew between Telegram and this server is tolerated for init data "from the future". */
const FUTURE_SKEW_MS = 5 * 60_000;
/** Telegram's init data is a short query string; anything far longer is not init data. */
const MAX_INIT_DATA_LENGTH = 4096;

/** The part of the init data's `user` the dashboard reads. */
const signerSchema = z.object({
  id: z.number().int().positive().max(Number.MAX_SAFE_INTEGER),
  first_name: z.string().max(256).default(""),
  language_code: z.string().max(35).optional(),
});

export type InitDataSigner = { telegramId: number; firstName: string; languageCode: string | null };

export type InitDataCheck =
  | { ok: true; signer: InitDataSigner }
  | { ok: false; reason: "missing" | "malformed" | "signature" | "expired" | "no_user" };

/**
 * Checks a Mini App's init data as Telegram specifies: the HMAC-SHA256 of its sorted fields
 * (all but `hash`) under the key HMAC-SHA256("WebAppData", bot token) must equal `hash`, and
 * `auth_date` must be within the last hour of `nowMs` (the app's clock, so tests move time).
 * Only then is the user read; nothing else in it is trusted.
 */
export function checkInitData(raw: string | null | undefined, botToken: string, nowMs: number): InitDataCheck {
  if (!raw) return { ok: false, reason: "missing" };
  if (raw.length > MAX_INIT_DATA_LENGTH) return { ok: false, reason: "malformed" };
  if (!signatureMatches(raw, botToken)) return { ok: false, reason: "signature" };
  let parsed: { auth_date: Date; user?: unknown };
  try {
    // The library's parser reads Telegram's own (snake_case) field names.
    parsed = parse(raw) as unknown as { auth_date: Date; user?: unknown };
  } catch {
    return { ok: false, reason: "malformed" };
  }
  const signedAt = parsed.auth_date instanceof Date ? parsed.auth_date.getTime() : Number.NaN;
  if (!Number.isFinite(signedAt) || nowMs - signedAt > INIT_DATA_MAX_AGE_MS || signedAt - nowMs > FUTURE_SKEW_MS)
    return { ok: false, reason: "expired" };
  const user = signerSchema.safeParse(parsed.user);
  if (!user.success) return { ok: false, reason: "no_user" };
  return {
    ok: true,
    signer: {
      telegramId: user.data.id,
      firstName: user.data.first_name,
      languageCode: user.data.language_code ?? null,
    },
  };
}

/**
 * True when the init data's one `hash` is the HMAC the library computes for its other fields
 * (sorted `key=value` lines) under this bot's token, compared in constant time: the library's own
 * validate() compares the two hex strings with `!==`, which stops at the first differing character.
 */
function signatureMatches(raw: string, botToken: string): boolean {
  const params = new URLSearchParams(raw);
  const hashes = params.getAll("hash");
  if (hashes.length !== 1 || !/^[0-9a-f]{64}$/.test(hashes[0]!)) return false;
  const pairs: string[] = [];
  params.forEach((value, key) => {
    if (key !== "hash") pairs.push(`${key}=${value}`);
  });
  const expected = signData(pairs.sort().join("\n"), botToken);
  return timingSafeEqual(Buffer.from(expected, "utf8"), Buffer.from(hashes[0]!, "utf8"));
}

/**
 * Init data for `user`, signed with `botToken` as Telegram signs it: what the playground hands
 * its Mini App, and what the tests sign with.
 */
export function signInitData(
  user: { id: number; firstName: string; languageCode?: string },
  botToken: string,
  signedAt: Date,
): string {
  return sign(
    {
      user: {
        id: user.id,
        first_name: user.firstName,
        ...(user.languageCode ? { language_code: user.languageCode } : {}),
        allows_write_to_pm: true,
      },
      query_id: `AAH${user.id}`,
      chat_type: "sender",
      chat_instance: String(user.id),
    },
    botToken,
    signedAt,
  );
}
