import { Writable } from "node:stream";
import { describe, expect, it } from "vitest";
import { randomBytes } from "node:crypto";
import { parseConfig } from "#src/config";
import { createLogger, SecretScrubber } from "#src/logger";
import { SecretBox, SecretBoxError } from "#src/security/secret-box";
import { looksLikeWalletSecret } from "#src/bot/middleware/secret-paste";

describe("configuration", () => {
  it("applies the documented defaults", () => {
    const result = parseConfig({});
    expect(result.ok).toBe(true);
    if (!result.ok) return;
    expect(result.config.playground).toBe(true);
    expect(result.config.DATABASE_URL).toBe("file:./data/bot.db");
    expect(result.config.BOT_MODE).toBe("polling");
    expect(result.config.PORT).toBe(8080);
    expect(result.config.LOG_LEVEL).toBe("info");
    expect(result.config.TELEGRAM_API_ROOT).toBe("https://api.telegram.org");
  });

  it("names every bad variable on its own line, without echoing secret values", () => {
    const secret = "not-base64-and-secret-value!!";
    const result = parseConfig({
      BOT_TOKEN: "hello",
      PORT: "99999",
      SECRET_KEY: secret,
      BOT_MODE: "push",
      MARKETPLACE_URL: "ftp://x",
      DATABASE_URL: "mysql://x",
      LOG_LEVEL: "loud",
    });
    expect(result.ok).toBe(false);
    if (result.ok) return;
    const names = result.problems.map((line) => line.split(":")[0]);
    expect(names).toEqual(
      expect.arrayContaining([
        "BOT_TOKEN",
        "PORT",
        "SECRET_KEY",
        "BOT_MODE",
        "MARKETPLACE_URL",
        "DATABASE_URL",
        "LOG_LEVEL",
      ]),
    );
    expect(result.problems.join("\n")).not.toContain(secret);
    expect(result.problems.join("\n")).not.toContain("hello");
  });

  it("checks the replica settings like every other variable: bad values stop start-up, good ones are read", () => {
    const bad = parseConfig({ DATABASE_POOL_MAX: "0", LEASE_MS: "soon", REPLICA_ID: "r".repeat(101) });
    expect(bad.ok).toBe(false);
    if (!bad.ok)
      expect(bad.problems.map((line) => line.split(":")[0]).sort()).toEqual([
        "DATABASE_POOL_MAX",
        "LEASE_MS",
        "REPLICA_ID",
      ]);
    const defaults = parseConfig({});
    expect(
      defaults.ok && [defaults.config.DATABASE_POOL_MAX, defaults.config.LEASE_MS, defaults.config.REPLICA_ID],
    ).toEqual([10, undefined, undefined]);
    const set = parseConfig({ DATABASE_POOL_MAX: "25", LEASE_MS: "4000", REPLICA_ID: "bot-2" });
    expect(set.ok && [set.config.DATABASE_POOL_MAX, set.config.LEASE_MS, set.config.REPLICA_ID]).toEqual([
      25,
      4000,
      "bot-2",
    ]);
  });

  it("requires PUBLIC_URL in webhook mode", () => {
    const result = parseConfig({ BOT_MODE: "webhook", BOT_TOKEN: "123456:ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghij" });
    expect(result.ok).toBe(false);
    if (!result.ok) expect(result.problems.join()).toContain("PUBLIC_URL");
  });
});

describe("logging redaction", () => {
  it("a logged request and a logged error carry no bot token, API key or secret key", () => {
    const lines: string[] = [];
    const destination = new Writable({
      write(chunk, _e, cb) {
        lines.push(chunk.toString());
        cb();
      },
    });
    const botToken = "123456789:AAHsecretsecretsecretsecretsecret99";
    const secretKey = randomBytes(32).toString("base64");
    const apiKey = "sk_live_" + randomBytes(16).toString("hex");
    const scrubber = new SecretScrubber();
    scrubber.add(secretKey);
    const logger = createLogger({ level: "debug", scrubber, destination });
    logger.info(
      { req: { method: "GET", url: "/api/v1/wallet/balance", headers: { "X-Api-Key": apiKey, "x-api-key": apiKey } } },
      "request",
    );
    logger.error(
      {
        err: new Error(`call to https://api.telegram.org/bot${botToken}/sendMessage failed`),
        apiKey,
        SECRET_KEY: secretKey,
      },
      "failure",
    );
    logger.info({ config: { BOT_TOKEN: botToken, SECRET_KEY: secretKey } }, "config");
    const output = lines.join("");
    expect(output).toContain("request");
    expect(output).toContain("failure");
    expect(output).not.toContain(apiKey);
    expect(output).not.toContain(botToken);
    expect(output).not.toContain(secretKey);
  });
});

describe("encryption at rest", () => {
  const key = randomBytes(32).toString("base64");
  it("round-trips, uses a fresh nonce each time, and binds the row", () => {
    const box = new SecretBox(key);
    const a = box.seal("sk_test_value", "credentials:1");
    const b = box.seal("sk_test_value", "credentials:1");
    expect(a.ciphertext).not.toBe(b.ciphertext);
    expect(box.open(a, "credentials:1")).toBe("sk_test_value");
    expect(() => box.open(a, "credentials:2")).toThrow(SecretBoxError);
  });

  it("detects tampering", () => {
    const box = new SecretBox(key);
    const sealed = box.seal("sk_test_value", "c");
    const bytes = Buffer.from(sealed.ciphertext, "base64");
    bytes[14] = bytes[14]! ^ 1;
    expect(() => box.open({ ...sealed, ciphertext: bytes.toString("base64") }, "c")).toThrow(/tampered/);
  });

  it("still decrypts under SECRET_KEY_PREVIOUS and says it needs rotation", () => {
    const old = new SecretBox(key);
    const sealed = old.seal("sk_old", "c");
    const next = new SecretBox(randomBytes(32).toString("base64"), key);
    expect(next.open(sealed, "c")).toBe("sk_old");
    expect(next.needsRotation(sealed)).toBe(true);
    expect(() => new SecretBox(randomBytes(32).toString("base64")).open(sealed, "c")).toThrow(/no longer configured/);
  });
});

describe("pasted wallet secrets", () => {
  it.each([
    [randomBytes(32).toString("hex"), true],
    [`0x${randomBytes(32).toString("hex")}`, true],
    ["abandon ability able about above absent absorb abstract absurd abuse access accident", true],
    [Array(24).fill("word").join(" "), true],
    ["buy energy 65000 1h", false],
    [randomBytes(31).toString("hex"), false],
    ["TNPeeaaFB7K9cmo4uQpcU32zGK8G1NYqeL", false],
  ])("%s → %s", (text, expected) => {
    expect(looksLikeWalletSecret(text)).toBe(expected);
  });
});
