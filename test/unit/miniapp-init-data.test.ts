import type * as nodeCrypto from "node:crypto";
import { createHmac, timingSafeEqual } from "node:crypto";
import { describe, expect, it, vi } from "vitest";
import { checkInitData, INIT_DATA_MAX_AGE_MS, signInitData } from "#src/miniapp/init-data";

// The real function, watched: the signature must be compared by it (in constant time).
vi.mock("node:crypto", async (importOriginal) => {
  const actual = await importOriginal<typeof nodeCrypto>();
  return { ...actual, timingSafeEqual: vi.fn(actual.timingSafeEqual) };
});

const TOKEN = "5768337691:AAH5YkoiEuPk8-FZa32hStHTqXiLPtAEhx8";
const NOW = Date.UTC(2026, 10, 27, 12, 0, 0);

/**
 * Telegram's algorithm as its documentation states it, written here independently of the code
 * under test: the data-check-string is every field but `hash`, sorted by key, as key=value joined
 * by "\n"; the secret key is HMAC-SHA256 of the bot token keyed with "WebAppData"; the hash is the
 * hex HMAC-SHA256 of the data-check-string under that secret key.
 */
function signAsDocumented(fields: Record<string, string>, token: string): string {
  const checkString = Object.keys(fields)
    .sort()
    .map((key) => `${key}=${fields[key]}`)
    .join("\n");
  const secret = createHmac("sha256", "WebAppData").update(token).digest();
  const hash = createHmac("sha256", secret).update(checkString).digest("hex");
  return new URLSearchParams({ ...fields, hash }).toString();
}

const user = JSON.stringify({
  id: 279058397,
  first_name: "Vladislav",
  last_name: "Kibenko",
  username: "vdkfrost",
  language_code: "ru",
  is_premium: true,
  allows_write_to_pm: true,
});
const fields = (authDate: number) => ({
  query_id: "AAHdF6IQAAAAAN0XohDhrOrc",
  user,
  auth_date: String(Math.floor(authDate / 1000)),
  signature: "abc",
});

describe("Mini App init data", () => {
  it("accepts init data signed as Telegram documents it, and reads the user from it", () => {
    const check = checkInitData(signAsDocumented(fields(NOW - 60_000), TOKEN), TOKEN, NOW);
    expect(check).toEqual({ ok: true, signer: { telegramId: 279058397, firstName: "Vladislav", languageCode: "ru" } });
  });

  it("refuses a changed field, another bot's token, a missing hash, no user, and nothing at all", () => {
    const good = signAsDocumented(fields(NOW - 60_000), TOKEN);
    expect(checkInitData(good.replace("279058397", "279058398"), TOKEN, NOW)).toEqual({
      ok: false,
      reason: "signature",
    });
    expect(checkInitData(good, "5768337691:AAH5YkoiEuPk8-FZa32hStHTqXiLPtAEhx9", NOW)).toEqual({
      ok: false,
      reason: "signature",
    });
    expect(checkInitData(good.replace(/&hash=[0-9a-f]+/, ""), TOKEN, NOW)).toEqual({ ok: false, reason: "signature" });
    const { user: _user, ...withoutUser } = fields(NOW - 60_000);
    expect(checkInitData(signAsDocumented(withoutUser, TOKEN), TOKEN, NOW)).toEqual({ ok: false, reason: "no_user" });
    expect(checkInitData("", TOKEN, NOW)).toEqual({ ok: false, reason: "missing" });
    expect(checkInitData(undefined, TOKEN, NOW)).toEqual({ ok: false, reason: "missing" });
    expect(checkInitData("x".repeat(5000), TOKEN, NOW)).toEqual({ ok: false, reason: "malformed" });
  });

  it("refuses init data older than an hour (by the app's clock) or from the future", () => {
    expect(checkInitData(signAsDocumented(fields(NOW - INIT_DATA_MAX_AGE_MS + 1000), TOKEN), TOKEN, NOW).ok).toBe(true);
    expect(checkInitData(signAsDocumented(fields(NOW - INIT_DATA_MAX_AGE_MS - 1000), TOKEN), TOKEN, NOW)).toEqual({
      ok: false,
      reason: "expired",
    });
    expect(checkInitData(signAsDocumented(fields(NOW + 10 * 60_000), TOKEN), TOKEN, NOW)).toEqual({
      ok: false,
      reason: "expired",
    });
  });

  it("signs init data (for the playground and the tests) that the documented algorithm agrees with", () => {
    const signed = signInitData({ id: 42, firstName: "Ada", languageCode: "zh" }, TOKEN, new Date(NOW));
    const params = Object.fromEntries(new URLSearchParams(signed));
    const { hash, ...rest } = params;
    expect(signAsDocumented(rest, TOKEN)).toBe(new URLSearchParams({ ...rest, hash: hash! }).toString());
    expect(checkInitData(signed, TOKEN, NOW)).toEqual({
      ok: true,
      signer: { telegramId: 42, firstName: "Ada", languageCode: "zh" },
    });
  });

  it("compares the hash in constant time, and refuses a second hash or one not in lowercase hex", () => {
    const good = signAsDocumented(fields(NOW - 60_000), TOKEN);
    const hash = new URLSearchParams(good).get("hash")!;
    const wrong = `${hash.slice(0, -1)}${hash.endsWith("0") ? "1" : "0"}`;
    vi.mocked(timingSafeEqual).mockClear();
    expect(checkInitData(good.replace(hash, wrong), TOKEN, NOW)).toEqual({ ok: false, reason: "signature" });
    expect(vi.mocked(timingSafeEqual)).toHaveBeenCalledTimes(1);
    expect(Buffer.from(vi.mocked(timingSafeEqual).mock.calls[0]![1] as Uint8Array).toString()).toBe(wrong);
    expect(checkInitData(`${good}&hash=${hash}`, TOKEN, NOW)).toEqual({ ok: false, reason: "signature" });
    expect(checkInitData(good.replace(hash, hash.toUpperCase()), TOKEN, NOW)).toEqual({
      ok: false,
      reason: "signature",
    });
  });
});
