import { execFileSync, spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdtempSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { startFakeTelegram, type StartedFakeTelegram } from "../kit/telegram-driver";
import { TEST_DATABASE_URL } from "../kit/test-database";
import { removeDatabaseDir } from "../kit/temp-dir";
import { POSTGRES_SKIP_REASON } from "../kit/test-database-dialects";

/**
 * Start-up problems outside the configuration check, as an operator meets them: the process started
 * as `npm start` starts it, one line naming the variable and what to do, exit code 2, and no stack
 * trace unless LOG_LEVEL=debug asks for one.
 */
const TOKEN = "123456789:AAEexampleexampleexampleexample0000";
const PASSWORD = "Pw7secret";

beforeAll(() => {
  execFileSync("npm", ["run", "build", "--silent"], { stdio: ["ignore", "ignore", "inherit"] });
}, 60_000);

async function start(env: Record<string, string>): Promise<{ code: number | null; output: string; elapsedMs: number }> {
  const started = Date.now();
  const child = spawn(process.execPath, ["--enable-source-maps", "dist/main.mjs"], {
    env: {
      PATH: process.env.PATH ?? "",
      NODE_ENV: "production",
      SECRET_KEY: randomBytes(32).toString("base64"),
      MARKETPLACE_URL: "http://127.0.0.1:9",
      PORT: "0",
      HOST: "127.0.0.1",
      ...env,
    },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  child.stdout.on("data", (chunk) => (output += chunk));
  child.stderr.on("data", (chunk) => (output += chunk));
  const code = await new Promise<number | null>((resolve) => child.on("exit", resolve));
  return { code, output, elapsedMs: Date.now() - started };
}

/** The one line saying why, and that nothing printed holds a stack frame or the password. */
function expectOnePlainLine(result: { code: number | null; output: string }, variable: string, says: RegExp): void {
  expect(result.code, result.output).toBe(2);
  const lines = result.output.split("\n").filter((line) => line.startsWith("Cannot start"));
  expect(lines).toHaveLength(1);
  expect(lines[0]).toMatch(new RegExp(`^Cannot start: ${variable}: `));
  expect(lines[0]).toMatch(says);
  expect(result.output).not.toMatch(/\n\s+at |\\n\s+at /);
  expect(result.output).not.toContain(PASSWORD);
  expect(result.output).not.toContain(TOKEN.split(":")[1]);
}

describe("start-up failures speak plainly", () => {
  let telegram: StartedFakeTelegram | null = null;
  let blocker: Server | null = null;
  const dirs: string[] = [];
  const tempDir = () => {
    const dir = mkdtempSync(join(tmpdir(), "bot-start-"));
    dirs.push(dir);
    return dir;
  };
  afterEach(async () => {
    await telegram?.close();
    telegram = null;
    await new Promise((resolve) => (blocker ? blocker.close(resolve) : resolve(undefined)));
    blocker = null;
    for (const dir of dirs.splice(0)) await removeDatabaseDir(dir);
  });

  it("a port in use names PORT and says to free it or choose another", async () => {
    telegram = await startFakeTelegram({ token: TOKEN });
    const held = createServer();
    blocker = held;
    await new Promise<void>((resolve) => held.listen(0, "127.0.0.1", resolve));
    const port = (held.address() as { port: number }).port;
    const result = await start({
      BOT_TOKEN: TOKEN,
      TELEGRAM_API_ROOT: telegram.apiRoot,
      DATABASE_URL: `file:${join(tempDir(), "bot.db")}`,
      PORT: String(port),
    });
    expectOnePlainLine(
      result,
      "PORT",
      new RegExp(`port ${port} on 127\\.0\\.0\\.1 is already in use.*set PORT to a free port`),
    );
  }, 30_000);

  it("a token Telegram refuses (getMe 401) names BOT_TOKEN and says where to get the current one", async () => {
    telegram = await startFakeTelegram({ token: "987654321:AAEotherotherotherotherotherother0000" });
    const result = await start({
      BOT_TOKEN: TOKEN,
      TELEGRAM_API_ROOT: telegram.apiRoot,
      DATABASE_URL: `file:${join(tempDir(), "bot.db")}`,
    });
    expectOnePlainLine(result, "BOT_TOKEN", /Telegram refuses this token \(401: Unauthorized\).*@BotFather/);
  }, 30_000);

  it.each([
    ["a file stands where the data folder should be", true],
    ["… with SECRET_KEY set (the database itself makes the folder)", false],
  ])(
    "a data path that cannot be created names DATABASE_URL: %s",
    async (_, withoutKey) => {
      const dir = tempDir();
      writeFileSync(join(dir, "not-a-folder"), "");
      const result = await start({
        BOT_TOKEN: TOKEN,
        DATABASE_URL: `file:${join(dir, "not-a-folder", "data", "bot.db")}`,
        ...(withoutKey ? { SECRET_KEY: "" } : {}),
      });
      expectOnePlainLine(
        result,
        "DATABASE_URL",
        /the data folder .*not-a-folder.* cannot be created or written \(a file is in the way\)/,
      );
    },
    30_000,
  );

  it.each([
    [
      "refusing (nothing listens)",
      `postgres://bot:${PASSWORD}@127.0.0.1:1/bot`,
      /PostgreSQL server at 127\.0\.0\.1:1 refused the connection/,
    ],
    [
      "unresolvable",
      `postgres://bot:${PASSWORD}@no-such-host.invalid/bot`,
      /PostgreSQL server at no-such-host\.invalid:5432 has a host name that (does not|could not be) resolve/,
    ],
  ])(
    "a PostgreSQL server %s names DATABASE_URL, never its password",
    async (_, url, says) => {
      const result = await start({ BOT_TOKEN: TOKEN, DATABASE_URL: url });
      expectOnePlainLine(result, "DATABASE_URL", says);
    },
    30_000,
  );

  it.skipIf(!TEST_DATABASE_URL)(
    `a PostgreSQL server that has no such database names DATABASE_URL${TEST_DATABASE_URL ? "" : ` (${POSTGRES_SKIP_REASON})`}`,
    async () => {
      const url = new URL(TEST_DATABASE_URL!);
      url.pathname = "/no_such_database_here";
      const result = await start({ BOT_TOKEN: TOKEN, DATABASE_URL: url.href });
      expectOnePlainLine(result, "DATABASE_URL", /has no database of that name/);
    },
    30_000,
  );

  it("LOG_LEVEL=debug also prints the original error, stack and all", async () => {
    const result = await start({
      BOT_TOKEN: TOKEN,
      DATABASE_URL: `postgres://bot:${PASSWORD}@127.0.0.1:1/bot`,
      LOG_LEVEL: "debug",
    });
    expect(result.code).toBe(2);
    expect(result.output).toMatch(/Cannot start: DATABASE_URL: /);
    expect(result.output).toMatch(/ECONNREFUSED[\s\S]*\n\s+at /);
  }, 30_000);

  it("a stop asked for while the start hangs (a Bot API that never answers) ends within about 2 s", async () => {
    const sockets: Array<{ destroy(): void }> = [];
    const silent = createServer((socket) => void sockets.push(socket));
    blocker = silent;
    await new Promise<void>((resolve) => silent.listen(0, "127.0.0.1", resolve));
    const child = spawn(process.execPath, ["dist/main.mjs"], {
      env: {
        PATH: process.env.PATH ?? "",
        BOT_TOKEN: TOKEN,
        TELEGRAM_API_ROOT: `http://127.0.0.1:${(silent.address() as { port: number }).port}`,
        DATABASE_URL: `file:${join(tempDir(), "bot.db")}`,
        PORT: "0",
        HOST: "127.0.0.1",
        MARKETPLACE_URL: "http://127.0.0.1:9",
      },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let output = "";
    child.stdout.on("data", (chunk) => (output += chunk));
    const exited = new Promise<number | null>((resolve) => child.on("exit", resolve));
    while (!output.includes("using the marketplace")) await new Promise((resolve) => setTimeout(resolve, 50));
    const asked = Date.now();
    child.kill("SIGTERM");
    const code = await exited;
    const tookMs = Date.now() - asked;
    for (const socket of sockets) socket.destroy();
    expect(code).toBe(0);
    expect(tookMs).toBeLessThan(3_000);
  }, 30_000);
});
