import { execFileSync, spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdtempSync, statSync, existsSync, readFileSync, writeFileSync } from "node:fs";
import { connect } from "node:net";
import { networkInterfaces, tmpdir } from "node:os";
import { join } from "node:path";
import { stripVTControlCharacters } from "node:util";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { startFakeTelegram, type StartedFakeTelegram } from "../kit/telegram-driver";
import { removeDatabaseDir } from "../kit/temp-dir";

const TOKEN = "123456789:AAEexampleexampleexampleexample0000";

// What `npm start` runs: the bundle `npm run build` writes, on plain Node.
beforeAll(() => {
  execFileSync("npm", ["run", "build", "--silent"], { stdio: ["ignore", "ignore", "inherit"] });
}, 60_000);

function run(env: Record<string, string>) {
  const child = spawn(process.execPath, ["--enable-source-maps", "dist/main.mjs"], {
    env: { PATH: process.env.PATH ?? "", NODE_ENV: "production", ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
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
  /** The test's temporary folders (each bot's SQLite file), removed after it. */
  const dirs: string[] = [];
  const tempDir = (prefix: string) => {
    const dir = mkdtempSync(join(tmpdir(), prefix));
    dirs.push(dir);
    return dir;
  };
  afterEach(async () => {
    await telegram?.close();
    telegram = null;
    for (const dir of dirs.splice(0)) await removeDatabaseDir(dir);
  });

  it.each([
    ["on a terminal, readable lines", undefined, false],
    ["on a terminal with LOG_FORMAT=json, JSON lines", "json", true],
  ] as const)(
    "logs %s",
    async (_, format, json) => {
      telegram = await startFakeTelegram({ token: TOKEN });
      const dir = tempDir("bot-tty-");
      const env = {
        PATH: process.env.PATH ?? "",
        BOT_TOKEN: TOKEN,
        TELEGRAM_API_ROOT: telegram.apiRoot,
        DATABASE_URL: `file:${join(dir, "bot.db")}`,
        PORT: "0",
        HOST: "127.0.0.1",
        ...(format ? { LOG_FORMAT: format } : {}),
      };
      // script(1) gives the bot a terminal as its stdout, as a person running npm start has.
      const child = spawn("script", ["-qfec", `${process.execPath} dist/main.mjs`, "/dev/null"], {
        env,
        stdio: ["ignore", "pipe", "pipe"],
      });
      let out = "";
      child.stdout.on("data", (chunk) => (out += chunk));
      try {
        await until(() => out.includes("long polling started"), 20_000);
      } finally {
        child.kill("SIGKILL");
      }
      expect(out.includes('{"level":30')).toBe(json);
      if (!json) expect(out).toMatch(/INFO.*long polling started/);
    },
    30_000,
  );

  it("the playground's start on a terminal: the box and what a person acts on; leases, replicas and polling only at debug", async () => {
    const start = async (level?: string) => {
      // A database of its own each time: the lease a killed start held would stand until it ran out.
      const env = {
        PATH: process.env.PATH ?? "",
        DATABASE_URL: `file:${join(tempDir("bot-play-tty-"), "bot.db")}`,
        PORT: "0",
        ...(level ? { LOG_LEVEL: level } : {}),
      };
      const child = spawn("script", ["-qfec", `${process.execPath} dist/main.mjs`, "/dev/null"], {
        env,
        stdio: ["ignore", "pipe", "pipe"],
      });
      let out = "";
      child.stdout.on("data", (chunk) => (out += chunk));
      try {
        await until(() => out.includes("└─"), 20_000);
        // Whatever start-up logs after the box has its moment to appear.
        await new Promise((resolve) => setTimeout(resolve, 1500));
      } finally {
        child.kill("SIGKILL");
      }
      return stripVTControlCharacters(out);
    };
    const out = await start();
    expect(out).toMatch(/│ Open http:\/\/127\.0\.0\.1:\d+\/play/);
    expect(out).toContain("│ Demo API key: sk_sandbox_");
    const infoLines = out.split("\n").filter((line) => /^\[[\d:.]+\] (INFO|WARN|ERROR)/.test(line));
    expect(
      infoLines.filter((line) =>
        /lease|replica|leads|polling|playground ready|embedded sandbox marketplace/i.test(line),
      ),
    ).toEqual([]);
    // Moved to debug, not gone: an operator who asks for it still reads them.
    const debug = await start("debug");
    for (const line of ["took the lease: this replica leads", "long polling started", "local playground ready"])
      expect(debug).toMatch(new RegExp(`DEBUG: ${line}`));
  }, 60_000);

  it("refuses bad configuration with one line per problem, exit code 2, no stack trace and no secret", async () => {
    const secret = "this-is-not-a-valid-secret-key";
    const proc = run({ BOT_TOKEN: "malformed", SECRET_KEY: secret, PORT: "http", BOT_MODE: "both" });
    const code = await proc.exited;
    expect(code).toBe(2);
    const lines = proc.err().trim().split("\n");
    for (const name of ["BOT_TOKEN", "SECRET_KEY", "PORT", "BOT_MODE"])
      expect(lines.some((line) => line.trim().startsWith(`${name}:`))).toBe(true);
    expect(proc.err()).not.toContain(secret);
    expect(proc.err()).not.toContain("malformed");
    expect(proc.err()).not.toMatch(/\bat .*\.ts:\d+/);
  }, 30_000);

  it("starts with BOT_TOKEN on the embedded sandbox, says which marketplace, generates SECRET_KEY (0600) and stops cleanly on SIGTERM", async () => {
    telegram = await startFakeTelegram({ token: TOKEN });
    const dir = tempDir("bot-proc-");
    const proc = run({
      BOT_TOKEN: TOKEN,
      TELEGRAM_API_ROOT: telegram.apiRoot,
      DATABASE_URL: `file:${join(dir, "bot.db")}`,
      PORT: "0",
      HOST: "127.0.0.1",
    });
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

  it("on SQLite holds neither the PostgreSQL driver nor the QR encoder after start (both are loaded when first needed)", async () => {
    telegram = await startFakeTelegram({ token: TOKEN });
    const dir = tempDir("bot-proc-");
    // A preload that writes, as the process exits, every CommonJS module it loaded (pg and qrcode are CommonJS).
    const probe = join(dir, "loaded-probe.cjs");
    const loaded = join(dir, "loaded.txt");
    writeFileSync(
      probe,
      `process.on("exit", () => require("node:fs").writeFileSync(${JSON.stringify(loaded)}, Object.keys(require.cache).join("\\n")));\n`,
    );
    const proc = run({
      BOT_TOKEN: TOKEN,
      TELEGRAM_API_ROOT: telegram.apiRoot,
      DATABASE_URL: `file:${join(dir, "bot.db")}`,
      PORT: "0",
      HOST: "127.0.0.1",
      NODE_OPTIONS: `--require ${probe}`,
    });
    await until(() => proc.out().includes("long polling started"), 20_000);
    proc.child.kill("SIGTERM");
    expect(await proc.exited).toBe(0);
    const modules = readFileSync(loaded, "utf8").split("\n");
    // The probe saw the app's own CommonJS dependencies, so an absence below means something.
    expect(modules.some((file) => file.includes("/node_modules/better-sqlite3/"))).toBe(true);
    expect(modules.filter((file) => /\/node_modules\/(pg|pg-pool|qrcode)\//.test(file))).toEqual([]);
  }, 40_000);

  it(`runs the playground with no BOT_TOKEN: names the /play URL, the simulation and the demo key; ${NON_LOOPBACK ? `is not reachable on ${NON_LOOPBACK}` : "(this machine has no non-loopback IPv4 address to check that it is unreachable there)"}; keeps the linked demo key working after a restart`, async () => {
    const dir = tempDir("bot-play-");
    const env = { DATABASE_URL: `file:${join(dir, "bot.db")}`, PORT: "0" };

    const first = run(env);
    const url = await playgroundUrl(first);
    expect(new URL(url).hostname).toBe("127.0.0.1");
    expect(first.out()).toContain("local simulation");
    expect(first.out()).toContain("embedded sandbox (no real TRX)");
    const demoKey = /Demo API key: (\S+)/.exec(first.out())?.[1];
    expect(demoKey).toMatch(/^sk_sandbox_/);
    // The box says it all: the structured log does not repeat it at info, and never holds the key.
    const logged = first
      .out()
      .split("\n")
      .filter((line) => line.startsWith("{"));
    expect(
      logged.filter(
        (line) => (JSON.parse(line) as { level: number }).level >= 30 && line.includes("local playground ready"),
      ),
    ).toEqual([]);
    expect(logged.filter((line) => line.includes(demoKey!))).toEqual([]);
    expect(first.out()).not.toMatch(/"level":40.*non-loopback/);
    const page = await fetch(url);
    expect(page.status).toBe(200);
    expect(await page.text()).toContain("/play/app.js");
    expect((await fetch(`${url}/`)).status).toBe(200);

    if (NON_LOOPBACK) expect(await connects(NON_LOOPBACK, Number(new URL(url).port))).toBe(false);

    let api = new URL("/play/api/send", url).href;
    const say = async (text: string) => {
      const response = await fetch(api, {
        method: "POST",
        headers: { "content-type": "application/json", origin: new URL(api).origin },
        body: JSON.stringify({ userId: 31337, text, waitMs: 4000 }),
      });
      expect(response.status).toBe(200);
      const { replies } = (await response.json()) as { replies: Array<{ kind: string; message?: { text?: string } }> };
      return replies
        .flatMap((reply) => (reply.kind === "message" && reply.message?.text ? [reply.message.text] : []))
        .join("\n");
    };
    expect(await say(`/connect ${demoKey}`)).toContain(demoKey!.slice(-4));
    const stateFile = join(dir, "sandbox-state.json");
    expect(statSync(stateFile).mode & 0o777).toBe(0o600);
    first.child.kill("SIGTERM");
    expect(await first.exited).toBe(0);

    const second = run(env);
    api = new URL("/play/api/send", await playgroundUrl(second)).href;
    expect(/Demo API key: (\S+)/.exec(second.out())?.[1]).toBe(demoKey);
    expect(second.out()).toContain("Sandbox state restored");
    const wallet = await say("/wallet");
    expect(wallet).toMatch(/1,?000/);
    expect(wallet).toContain("TRX");
    expect(wallet).not.toMatch(/no longer works|relink/);
    expect(readFileSync(stateFile, "utf8")).toContain(demoKey);
    second.child.kill("SIGTERM");
    expect(await second.exited).toBe(0);
  }, 90_000);

  it("started like the Docker image (HOST=0.0.0.0, no BOT_TOKEN, no PLAYGROUND_PUBLIC), refuses to serve the playground: exit code 2 and how to allow it", async () => {
    const dir = tempDir("bot-exposed-");
    const proc = run({ DATABASE_URL: `file:${join(dir, "bot.db")}`, HOST: "0.0.0.0", PORT: "0" });
    expect(await proc.exited).toBe(2);
    expect(proc.err()).toContain("Cannot start: the configuration has problems.");
    const line = proc
      .err()
      .split("\n")
      .find((candidate) => candidate.trim().startsWith("PLAYGROUND_PUBLIC:"));
    expect(line).toContain("HOST=0.0.0.0 is not a loopback address");
    expect(line).toContain("anyone who can reach the port acts as any simulated user");
    expect(line).toContain("set PLAYGROUND_PUBLIC=true");
    expect(proc.out()).not.toContain("Demo API key");
    expect(existsSync(join(dir, "secret.key"))).toBe(false);
    expect(proc.err()).not.toMatch(/\bat .*\.ts:\d+/);
  }, 30_000);

  it("with PLAYGROUND_PUBLIC=true, warns loudly, on the console and in the log, when the playground listens on a non-loopback HOST", async () => {
    const proc = run({
      DATABASE_URL: ":memory:",
      PORT: "0",
      HOST: "0.0.0.0",
      PLAYGROUND_PUBLIC: "true",
      SECRET_KEY: randomBytes(32).toString("base64"),
    });
    const url = await playgroundUrl(proc);
    expect(new URL(url).hostname).toBe("127.0.0.1");
    expect(proc.out()).toContain("│ WARNING: HOST=0.0.0.0 is not a loopback address and PLAYGROUND_PUBLIC=true");
    // The log's line may reach stdout a moment after the console's box.
    const warningLine = () =>
      proc
        .out()
        .split("\n")
        .find((line) => line.includes("non-loopback address"));
    await expect.poll(warningLine).toBeDefined();
    expect(JSON.parse(warningLine()!)).toMatchObject({ level: 40, host: "0.0.0.0" });
    proc.child.kill("SIGTERM");
    expect(await proc.exited).toBe(0);
  }, 40_000);
});

/** The first non-internal IPv4 address of this machine, if it has one. */
const NON_LOOPBACK = Object.values(networkInterfaces())
  .flat()
  .find((address) => address && address.family === "IPv4" && !address.internal)?.address;

/** The /play URL from the start-up box, printed once the bot is up (it polls its Bot API stand-in by then). */
async function playgroundUrl(proc: ReturnType<typeof run>): Promise<string> {
  await until(() => /Open http\S+\/play\n[\s\S]*└─/.test(proc.out()), 30_000);
  return /Open (http\S+\/play)/.exec(proc.out())![1]!;
}

function connects(host: string, port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ host, port, timeout: 2000 });
    socket.once("connect", () => {
      socket.destroy();
      resolve(true);
    });
    socket.once("error", () => resolve(false));
    socket.once("timeout", () => {
      socket.destroy();
      resolve(false);
    });
  });
}
