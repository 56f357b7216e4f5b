import { execFileSync, spawn } from "node:child_process";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createChatUser, startFakeTelegram, type StartedFakeTelegram } from "../kit/telegram-driver";
import { removeDatabaseDir } from "../kit/temp-dir";

/**
 * The README's "Deploying for real", step by step, with the fake Bot API standing in for Telegram:
 * a token from @BotFather and nothing else (`BOT_TOKEN=<token> npm start`) gives the real bot on
 * the embedded sandbox marketplace, whose demo key the log prints; a first /quote, /connect and a
 * /buy card work as a person in Telegram would see them. Then webhook mode registers PUBLIC_URL's
 * /telegram with Telegram.
 */
const TOKEN = "987654321:AAEwalkwalkwalkwalkwalkwalkwalkwalk00";
const ADDRESS = "TNPeeaaFB7K9cmo4uQpcU32zGK8G1NYqeL";

function start(env: Record<string, string>) {
  const child = spawn(process.execPath, ["--enable-source-maps", "dist/main.mjs"], {
    env: { PATH: process.env.PATH ?? "", NODE_ENV: "production", ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let out = "";
  child.stdout.on("data", (chunk) => (out += chunk));
  child.stderr.on("data", (chunk) => (out += chunk));
  const exited = new Promise<number | null>((resolve) => child.on("exit", (code) => resolve(code)));
  return { child, exited, out: () => out };
}

async function until<T>(read: () => T | undefined | null | false, timeoutMs: number): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = read();
    if (value) return value;
    if (Date.now() > deadline) throw new Error("timed out");
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

describe("from a @BotFather token to a first /quote (README: Deploying for real)", () => {
  let telegram: StartedFakeTelegram;
  const dirs: string[] = [];
  beforeAll(async () => {
    // What `npm start` runs: the bundle `npm run build` writes.
    execFileSync("npm", ["run", "build", "--silent"], { stdio: ["ignore", "ignore", "inherit"] });
    telegram = await startFakeTelegram({ token: TOKEN });
  }, 90_000);
  afterAll(async () => {
    await telegram?.close();
    for (const dir of dirs) await removeDatabaseDir(dir);
  });
  const dataDir = () => {
    const dir = mkdtempSync(join(tmpdir(), "bot-walk-"));
    dirs.push(dir);
    return dir;
  };

  it("BOT_TOKEN alone: real Telegram (here the fake) on the sandbox; the log's demo key links; /quote, /connect and /buy answer", async () => {
    const bot = start({
      BOT_TOKEN: TOKEN,
      TELEGRAM_API_ROOT: telegram.apiRoot,
      DATABASE_URL: `file:${join(dataDir(), "bot.db")}`,
      PORT: "0",
      HOST: "127.0.0.1",
    });
    try {
      await until(() => bot.out().includes("long polling started"), 30_000);
      const demoKey = await until(() => /Demo API key: (\S+)/.exec(bot.out())?.[1], 5_000);
      expect(bot.out()).toContain("no real TRX");
      expect(bot.out()).not.toContain(TOKEN);

      const person = createChatUser(telegram.fake, { id: 7_700_001, firstName: "Ada", languageCode: "en" });
      person.send("/quote energy 65k 1h");
      const quote = await person.nextMessage({ timeoutMs: 15_000 });
      expect(quote.text).toContain("65,000");
      expect(quote.text).toMatch(/\d TRX/);

      person.send(`/connect ${demoKey}`);
      const linked = await person.nextMessage({ timeoutMs: 15_000 });
      expect(linked.text).toContain(demoKey.slice(-4));
      expect(linked.text).not.toContain(demoKey);

      person.send(`/buy energy 65k 1h ${ADDRESS}`);
      const card = await person.nextMessage({ timeoutMs: 15_000 });
      expect(card.text).toContain(ADDRESS);
      expect(JSON.stringify(card.replyMarkup)).toContain("Confirm");
    } finally {
      bot.child.kill("SIGTERM");
      expect(await bot.exited).toBe(0);
    }
  }, 60_000);

  it("webhook mode with an https PUBLIC_URL registers PUBLIC_URL/telegram with its secret at start", async () => {
    const bot = start({
      BOT_TOKEN: TOKEN,
      TELEGRAM_API_ROOT: telegram.apiRoot,
      DATABASE_URL: `file:${join(dataDir(), "bot.db")}`,
      PORT: "0",
      HOST: "127.0.0.1",
      BOT_MODE: "webhook",
      PUBLIC_URL: "https://bot.example.com",
    });
    try {
      const webhook = await until(() => telegram.fake.webhook, 30_000);
      expect(webhook.url).toBe("https://bot.example.com/telegram");
      expect(webhook.secretToken).toMatch(/^[A-Za-z0-9_-]{16,256}$/);
    } finally {
      bot.child.kill("SIGTERM");
      expect(await bot.exited).toBe(0);
    }
  }, 60_000);
});
