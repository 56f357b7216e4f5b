import { execFileSync, spawn } from "node:child_process";
import { mkdtempSync, statSync, existsSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { startFakeTelegram, type StartedFakeTelegram } from "../kit/telegram-driver";

const TOKEN = "123456789:AAEexampleexampleexampleexample0000";

// What `npm start` runs: the bundle `npm run build` writes, on plain Node.
beforeAll(() => {
  execFileSync("npm", ["run", "build", "--silent"], { stdio: ["ignore", "ignore", "inherit"] });
}, 60_000);

function run(env: Record<string, string>) {
  const child = spawn(process.execPath, ["--enable-source-maps", "dist/main.mjs"], { env: { PATH: process.env.PATH ?? "", NODE_ENV: "production", ...env }, stdio: ["ignore", "pipe", "pipe"] });
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (chunk) => (stdout += chunk));
  child.stderr.on("data", (chunk) => (stderr += chunk));
  const exited = new Promise<number | null>((resolve) => child.on("exit", (code) => resolve(code)));
  return { child, exited, out: () => stdout, err: () => stderr };
}

async function until(check: () => boolean, timeoutMs: number) {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error("timed out");
    await new Promise((r) => setTimeout(r, 50));
  }
}

describe("npm start as a process", () => {
  let telegram: StartedFakeTelegram | null = null;
  afterEach(async () => {
    await telegram?.close();
    telegram = null;
  });

  it("refuses bad configuration with one line per problem, exit code 2, no stack trace and no secret", async () => {
    const secret = "this-is-not-a-valid-secret-key";
    const proc = run({ BOT_TOKEN: "malformed", SECRET_KEY: secret, PORT: "http", BOT_MODE: "both" });
    const code = await proc.exited;
    expect(code).toBe(2);
    const lines = proc.err().trim().split("\n");
    for (const name of ["BOT_TOKEN", "SECRET_KEY", "PORT", "BOT_MODE"]) expect(lines.some((line) => line.trim().startsWith(`${name}:`))).toBe(true);
    expect(proc.err()).not.toContain(secret);
    expect(proc.err()).not.toContain("malformed");
    expect(proc.err()).not.toMatch(/\bat .*\.ts:\d+/);
  }, 30_000);

  it("starts with BOT_TOKEN on the embedded sandbox, says which marketplace, generates SECRET_KEY (0600) and stops cleanly on SIGTERM", async () => {
    telegram = await startFakeTelegram({ token: TOKEN });
    const dir = mkdtempSync(join(tmpdir(), "bot-proc-"));
    const proc = run({ BOT_TOKEN: TOKEN, TELEGRAM_API_ROOT: telegram.apiRoot, DATABASE_URL: `file:${join(dir, "bot.db")}`, PORT: "0", HOST: "127.0.0.1" });
    await until(() => proc.out().includes("long polling started"), 20_000);
    expect(proc.out()).toContain("embedded sandbox");
    expect(proc.out()).toContain("SECRET_KEY is not set");
    const keyFile = join(dir, "secret.key");
    expect(existsSync(keyFile)).toBe(true);
    expect(statSync(keyFile).mode & 0o777).toBe(0o600);
    expect(proc.out()).not.toContain(TOKEN);
    const started = Date.now();
    proc.child.kill("SIGTERM");
    expect(await proc.exited).toBe(0);
    expect(Date.now() - started).toBeLessThan(10_000);
    expect(proc.out()).toContain('"msg":"stopped"');
  }, 40_000);
});
