import { execFileSync, spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdtempSync } from "node:fs";
import type { Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { serve } from "@hono/node-server";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { createSandbox } from "#src/sandbox/index";
import { createFakeTelegram, type FakeTelegram } from "#src/telegram-fake/index";
import { createChatUser, expectNoRejectedCalls } from "../kit/telegram-driver";
import { freePort } from "../kit/net";
import { removeDatabaseDir } from "../kit/temp-dir";

const TOKEN = "123456789:AAEexampleexampleexampleexample0000";
const USER_ID = 4242;
const ORDER_IDS = ["a1a1a1a1", "b2b2b2b2", "c3c3c3c3", "d4d4d4d4"].map(
  (prefix) => `${prefix}-8f0e-4d7b-9c1a-3e2f4a5b6c7d`,
);

// What `npm start` runs: the bundle, on plain Node, so SIGKILL hits the real process.
beforeAll(() => {
  execFileSync("npm", ["run", "build", "--silent"], { stdio: ["ignore", "ignore", "inherit"] });
}, 60_000);

function runBot(env: Record<string, string>) {
  const child = spawn(process.execPath, ["--enable-source-maps", "dist/main.mjs"], {
    env: { PATH: process.env.PATH ?? "", NODE_ENV: "production", ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let stdout = "";
  child.stdout.on("data", (chunk) => (stdout += chunk));
  child.stderr.on("data", (chunk) => (stdout += chunk));
  const exited = new Promise<NodeJS.Signals | number | null>((resolve) =>
    child.on("exit", (code, signal) => resolve(signal ?? code)),
  );
  return { child, exited, out: () => stdout };
}

async function until(check: () => boolean, what: string, timeoutMs = 20_000) {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

async function listen(
  fetch: (request: Request) => Response | Promise<Response>,
): Promise<{ server: Server; url: string }> {
  return new Promise((resolve) => {
    const server = serve({ fetch, hostname: "127.0.0.1", port: 0 }, (info: AddressInfo) =>
      resolve({ server: server as Server, url: `http://127.0.0.1:${info.port}` }),
    );
  });
}

/**
 * The fake Bot API behind a switch: while Telegram is "down", the first sendMessage gets a 500
 * (a retry is scheduled) and later ones hang (the crash then finds an alert in flight, leased by
 * the dying process). Neither reaches the fake, so nothing counts as delivered.
 */
async function startSwitchableTelegram() {
  const fake: FakeTelegram = createFakeTelegram({ token: TOKEN });
  const state = { down: false, refused: 0, hanging: 0 };
  const { server, url } = await listen((request) => {
    const method = /\/bot[^/]+\/([A-Za-z]+)$/.exec(new URL(request.url).pathname)?.[1];
    if (state.down && method === "sendMessage") {
      state.refused += 1;
      if (state.refused === 1)
        return Response.json({ ok: false, error_code: 500, description: "Internal Server Error" }, { status: 500 });
      state.hanging += 1;
      return new Promise<Response>(() => undefined);
    }
    return fake.app.fetch(request);
  });
  return {
    fake,
    apiRoot: url,
    state,
    async close() {
      fake.close();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

describe("a crash of the bot with alerts queued (SQLite)", () => {
  const cleanups: Array<() => Promise<void> | void> = [];
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  });

  it("after SIGKILL and a restart on the same database, every acknowledged alert arrives exactly once", async () => {
    const telegram = await startSwitchableTelegram();
    cleanups.push(() => telegram.close());
    const sandbox = createSandbox({ settleDelayMs: 0 });
    const market = await listen((request) => sandbox.app.fetch(request));
    cleanups.push(() => {
      market.server.closeAllConnections();
      return new Promise<void>((resolve) => market.server.close(() => resolve()));
    });
    const dir = mkdtempSync(join(tmpdir(), "bot-crash-"));
    cleanups.push(() => removeDatabaseDir(dir));
    const port = await freePort();
    const env = {
      BOT_TOKEN: TOKEN,
      TELEGRAM_API_ROOT: telegram.apiRoot,
      MARKETPLACE_URL: market.url,
      DATABASE_URL: `file:${join(dir, "bot.db")}`,
      SECRET_KEY: randomBytes(32).toString("base64"),
      PUBLIC_URL: "https://bot.example",
      HOST: "127.0.0.1",
      PORT: String(port),
      NOTIFICATIONS_POLL: "0 0 1 1 *",
      // A lease held by the killed process runs out in 2 s instead of 30.
      LEASE_MS: "2000",
    };

    const first = runBot(env);
    cleanups.push(() => void first.child.kill("SIGKILL"));
    await until(() => first.out().includes("long polling started"), "the first start");
    const user = createChatUser(telegram.fake, { id: USER_ID, firstName: "Crash", languageCode: "en" });
    const { accountId } = sandbox.control.createAccount({ trx: "1000", usdt: "50" });
    user.send(`/connect ${sandbox.control.createKey({ accountId, scope: "purchase" }).apiKey}`);
    expect((await user.nextMessage({ timeoutMs: 10_000 })).text).toContain("linked");
    user.send("/webhook");
    const shown = (await user.nextMessage({ timeoutMs: 10_000 })).text ?? "";
    const path = /https:\/\/bot\.example(\/webhooks\/marketplace\/\S+)/.exec(shown)?.[1];
    expect(path).toBeDefined();
    const deliver = async (orderId: string, index: number) => {
      const event = index % 2 === 0 ? "order.filled" : "order.failed";
      const order = {
        id: orderId,
        resource: "energy",
        targetAddress: "TNPeeaaFB7K9cmo4uQpcU32zGK8G1NYqeL",
        volume: "65000",
        duration: "1h",
        priceTrx: "4.6475",
        activationTrx: "0",
        totalTrx: "4.6475",
        status: event === "order.filled" ? "Filled" : "Failed",
        txId: null,
        createdAt: "2026-11-22T05:00:00Z",
      };
      const response = await fetch(`http://127.0.0.1:${port}${path}`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ event, data: order }),
      });
      expect(response.status).toBe(200);
      return (await response.json()) as { ok: boolean; duplicate?: boolean };
    };

    telegram.state.down = true;
    for (const [index, orderId] of ORDER_IDS.entries())
      expect(await deliver(orderId, index)).toEqual({ ok: true, duplicate: false });
    // The crash must find one alert refused (retry scheduled) and one in flight (leased).
    await until(() => telegram.state.refused >= 1 && telegram.state.hanging >= 1, "a refused and a hanging alert send");
    first.child.kill("SIGKILL");
    expect(await first.exited).toBe("SIGKILL");
    const alertTexts = () =>
      telegram.fake
        .messages(USER_ID)
        .filter((m) => m.from === "bot" && /Order /.test(m.text ?? ""))
        .map((m) => m.text ?? "");
    expect(alertTexts()).toEqual([]);

    telegram.state.down = false;
    const second = runBot(env);
    cleanups.push(() => void second.child.kill("SIGKILL"));
    await until(() => second.out().includes("long polling started"), "the restart");
    await until(() => alertTexts().length >= ORDER_IDS.length, "every alert after the restart", 30_000);
    // Senders retry: the same events again are acknowledged as duplicates and queue nothing.
    for (const [index, orderId] of ORDER_IDS.entries())
      expect(await deliver(orderId, index)).toEqual({ ok: true, duplicate: true });
    // Past another lease period, nothing more arrives.
    await new Promise((resolve) => setTimeout(resolve, 3_000));
    const alerts = alertTexts();
    expect(alerts).toHaveLength(ORDER_IDS.length);
    for (const [index, orderId] of ORDER_IDS.entries()) {
      const mine = alerts.filter((text) => text.includes(orderId.slice(0, 8)));
      expect(mine).toHaveLength(1);
      expect(mine[0]).toContain(index % 2 === 0 ? "filled" : "failed");
    }
    expectNoRejectedCalls(telegram.fake);

    second.child.kill("SIGTERM");
    expect(await second.exited).toBe(0);
  }, 90_000);
});
