import { spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { Writable } from "node:stream";
import { describe, expect, it } from "vitest";
import { ConfigError, startApp } from "#src/app";
import { parseConfig } from "#src/config";
import { createLogger, SecretScrubber } from "#src/logger";

const BOT_TOKEN = "123456789:AAEexampleexampleexampleexample0000";
const postgresUrl = (password: string) => `postgres://bot:${encodeURIComponent(password)}@db.internal:5432/bot`;
const SECRET_KEY = Buffer.alloc(32, 7).toString("base64");

describe("PostgreSQL with a BOT_TOKEN needs MARKETPLACE_URL", () => {
  it.each(["postgres", "postgresql"])(
    "%s:// without MARKETPLACE_URL is refused, naming the variables and why (never their values)",
    (scheme) => {
      const result = parseConfig({ BOT_TOKEN, DATABASE_URL: `${scheme}://bot:pw@db.internal:5432/bot` });
      expect(result.ok).toBe(false);
      if (result.ok) return;
      const problem = result.problems.find((line) => line.startsWith("MARKETPLACE_URL:"));
      expect(problem).toBeDefined();
      expect(problem).toContain("DATABASE_URL");
      expect(problem).toContain("BOT_TOKEN");
      expect(problem).toMatch(/sandbox/);
      expect(problem).toMatch(/replica/);
      const all = result.problems.join("\n");
      for (const value of ["pw@", "db.internal", "://", BOT_TOKEN]) expect(all).not.toContain(value);
    },
  );

  it("starts with MARKETPLACE_URL set, on SQLite without it, and as the playground (no BOT_TOKEN) on PostgreSQL", () => {
    expect(
      parseConfig({
        BOT_TOKEN,
        DATABASE_URL: postgresUrl("pw"),
        MARKETPLACE_URL: "https://marketplace.example",
        SECRET_KEY,
      }).ok,
    ).toBe(true);
    expect(parseConfig({ BOT_TOKEN, DATABASE_URL: "file:./data/bot.db" }).ok).toBe(true);
    expect(parseConfig({ BOT_TOKEN }).ok).toBe(true);
    expect(parseConfig({ DATABASE_URL: postgresUrl("pw") }).ok).toBe(true);
  });

  it("startApp refuses before it opens the database", async () => {
    // Nothing listens on port 1: had it tried the database, the error would be a connection error.
    const started = startApp({
      env: { BOT_TOKEN, DATABASE_URL: "postgres://bot:pw@127.0.0.1:1/bot", PORT: "0", LOG_LEVEL: "silent" },
    });
    await expect(started).rejects.toBeInstanceOf(ConfigError);
    await expect(started).rejects.toThrow(
      /MARKETPLACE_URL: required when DATABASE_URL is a PostgreSQL database and BOT_TOKEN is set/,
    );
  });

  it("npm start exits with code 2 and says why on stderr, without the password", { timeout: 60_000 }, async () => {
    const child = spawn(process.execPath, ["--import", "tsx", "src/main.ts"], {
      env: {
        PATH: process.env.PATH ?? "",
        NODE_ENV: "production",
        BOT_TOKEN,
        DATABASE_URL: "postgres://bot:Zq@127.0.0.1:1/bot",
        PORT: "0",
      },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let output = "";
    child.stdout.on("data", (chunk) => (output += chunk));
    child.stderr.on("data", (chunk) => (output += chunk));
    const code = await new Promise<number | null>((resolve) => child.on("exit", resolve));
    expect(code).toBe(2);
    expect(output).toContain("Cannot start: the configuration has problems.");
    expect(output).toMatch(
      /^\s+MARKETPLACE_URL: required when DATABASE_URL is a PostgreSQL database and BOT_TOKEN is set/m,
    );
    expect(output).not.toContain("Zq");
  });
});

describe("PostgreSQL with a BOT_TOKEN needs SECRET_KEY (replicas must share one key)", () => {
  const env = { BOT_TOKEN, DATABASE_URL: postgresUrl("pw"), MARKETPLACE_URL: "https://marketplace.example" };

  it("is refused without it, naming the variables and why (never their values)", () => {
    const result = parseConfig(env);
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.problems).toHaveLength(1);
    expect(result.problems[0]).toMatch(
      /^SECRET_KEY: required when DATABASE_URL is a PostgreSQL database and BOT_TOKEN is set/,
    );
    expect(result.problems[0]).toMatch(/replica/);
    expect(result.problems[0]).toContain("openssl rand -base64 32");
    for (const value of ["pw@", "db.internal", BOT_TOKEN]) expect(result.problems[0]).not.toContain(value);
  });

  it("starts with it set, on SQLite without it, and as the playground on PostgreSQL without it", () => {
    expect(parseConfig({ ...env, SECRET_KEY }).ok).toBe(true);
    expect(parseConfig({ ...env, DATABASE_URL: "file:./data/bot.db" }).ok).toBe(true);
    expect(parseConfig({ DATABASE_URL: postgresUrl("pw") }).ok).toBe(true);
  });

  it("npm start exits with code 2 and says why, before it writes a key of its own", { timeout: 60_000 }, async () => {
    const child = spawn(process.execPath, ["--import", "tsx", "src/main.ts"], {
      env: {
        PATH: process.env.PATH ?? "",
        NODE_ENV: "production",
        ...env,
        DATABASE_URL: "postgres://bot:Zq@127.0.0.1:1/bot",
        PORT: "0",
      },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let output = "";
    child.stdout.on("data", (chunk) => (output += chunk));
    child.stderr.on("data", (chunk) => (output += chunk));
    const code = await new Promise<number | null>((resolve) => child.on("exit", resolve));
    expect(code).toBe(2);
    expect(output).toMatch(/^\s+SECRET_KEY: required when DATABASE_URL is a PostgreSQL database/m);
    expect(output).not.toContain("generated one into the data folder");
    expect(output).not.toContain("Zq");
  });
});

describe("METRICS_TOKEN", () => {
  it("is optional, read when set, and a blank one is unset", () => {
    const token = randomBytes(24).toString("hex");
    const set = parseConfig({ METRICS_TOKEN: token });
    expect(set.ok && set.config.METRICS_TOKEN).toBe(token);
    const unset = parseConfig({});
    expect(unset.ok && unset.config.METRICS_TOKEN).toBeUndefined();
    const blank = parseConfig({ METRICS_TOKEN: "  " });
    expect(blank.ok && blank.config.METRICS_TOKEN).toBeUndefined();
  });

  it.each(["short-tok3n", "has a space inside it here", "x".repeat(257)])(
    "refuses %j with a message naming the variable, not the value",
    (value) => {
      const result = parseConfig({ METRICS_TOKEN: value });
      expect(result.ok).toBe(false);
      if (result.ok) return;
      expect(result.problems).toHaveLength(1);
      expect(result.problems[0]).toMatch(/^METRICS_TOKEN: expected 16 to 256 printable characters/);
      expect(result.problems[0]).not.toContain(value);
    },
  );
});

/** A logger as the app builds it (its scrubber knows what the app gives it), writing into a string. */
function capturedLogger(databaseUrl: string) {
  const lines: string[] = [];
  const scrubber = new SecretScrubber();
  // What startApp does with a database password: only long ones can be searched for as text.
  const password = decodeURIComponent(new URL(databaseUrl).password);
  scrubber.add(password);
  const destination = new Writable({
    write(chunk, _encoding, callback) {
      lines.push(String(chunk));
      callback();
    },
  });
  const logger = createLogger({ level: "debug", scrubber, destination });
  return { logger, text: () => lines.join("") };
}

describe("the DATABASE_URL password never reaches a log, whatever its length", () => {
  it.each(["a", "pw", "bot", "Zq", "Ж", "p@ss:w/rd", "a-long-database-password-42"])("password %j", (password) => {
    const url = postgresUrl(password);
    const { logger, text } = capturedLogger(url);
    logger.error({ err: new Error(`could not connect to ${url}: timeout`) }, `connecting to ${url}`);
    logger.info(
      {
        config: { DATABASE_URL: url, PORT: 8080 },
        databaseUrl: url,
        connection: { host: "db.internal", user: "bot", password },
      },
      "database settings",
    );
    logger.warn({ password }, "a password field");
    logger.warn({ detail: `pool for ${url.replace("postgres://", "postgresql://")} is exhausted` }, "pool");
    const logs = text();
    // The lines were written, with what they say besides the password.
    expect(logs).toContain("db.internal:5432/bot");
    expect(logs).toContain("database settings");
    expect(logs).toContain("[redacted]");
    // The password, as written in the URL or decoded, in no form.
    expect(logs).not.toContain(`bot:${encodeURIComponent(password)}@`);
    expect(logs).not.toContain(`bot:${password}@`);
    expect(logs).not.toContain(`"password":"${password}"`);
    if (password.length >= 2 && !/^(pw|bot)$/.test(password)) {
      // Distinctive enough to look for anywhere in the output.
      expect(logs).not.toContain(password);
      expect(logs).not.toContain(encodeURIComponent(password));
    }
  });

  it("a URL without credentials, or a port after the host, is left as it is", () => {
    const { logger, text } = capturedLogger("postgres://bot:not-in-these-lines-42@db.internal/bot");
    logger.info(
      { marketplace: "https://marketplace.example:8443/api/v1", mail: "user@example.com" },
      "https://t.me/bot?start=x@y",
    );
    const logs = text();
    expect(logs).toContain("https://marketplace.example:8443/api/v1");
    expect(logs).toContain("user@example.com");
    expect(logs).toContain("https://t.me/bot?start=x@y");
  });
});
