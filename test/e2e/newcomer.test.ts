import { execFileSync, spawn, type ChildProcess } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdtempSync } from "node:fs";
import { connect } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { freePort } from "../kit/net";
import { removeDatabaseDir } from "../kit/temp-dir";
import { SKIPPED_DATABASE_TESTS_LINE } from "../global-setup";
import { ADDRESS_A, BOT_TOKEN, buttonLabels, linkKey, manageWorld, type World } from "../kit/world";
import { startFakeTelegram, type StartedFakeTelegram } from "../kit/telegram-driver";
import { startApp, type App } from "#src/app";
import { createSandbox } from "#src/sandbox/index";
import { botTexts, buyThroughBot, linkedUser, waitFor } from "../kit/push-helpers";
import { txLink, txUrl } from "#src/chat/html";
import { isSandboxTxId, newTxId } from "#src/sandbox/ids";
import { readPauseReason } from "#src/chat/pause-reason";

/** What a newcomer meets in the first minutes: the texts must say what is true, and no more. */
describe("the first ten minutes", () => {
  let world: World;
  manageWorld((started) => (world = started));

  it("the filled alert says what the energy is for, asks for no payment, and names the sandbox's made-up transaction instead of linking it", async () => {
    const who = await linkedUser(world, 901);
    const orderId = await buyThroughBot(world, who);
    world.sandbox.control.settleNow({ accountId: who.accountId });
    await world.app.push.checkOrdersNow(901);
    const text = await waitFor(() =>
      botTexts(world, 901).find((t) => t.includes(`Order ${orderId.slice(0, 8)} filled`)),
    );
    expect(text).toContain("use the delegated resource instead of burning TRX");
    expect(text).not.toMatch(/send your|transfer once|pay/i);
    expect(text).toContain("Transaction: sandbox transaction");
    const message = world.fake.messages(901).find((m) => m.text === text)!;
    expect(message.html).not.toContain("tronscan");
    expect(message.entities?.some((entity) => entity.type === "text_link")).toBe(false);
  });

  it.each([
    [
      "en",
      "Copy address",
      "⚠️ Send only USDT or TRX to this address, over the TRON network (TRC20). Any other token, or a transfer over another network, is lost for good.",
    ],
    ["ru", "Копировать адрес", "⚠️ Отправляйте на этот адрес только USDT или TRX и только через сеть TRON (TRC20)."],
    ["zh", "复制地址", "⚠️ 请仅通过 TRON 网络（TRC20）向此地址发送 USDT或TRX。"],
  ])(
    "/topup in %s: the copy button carries no icon of its own (Telegram draws one) and the warning names the tokens as people say them",
    async (languageCode, copyLabel, warning) => {
      const user = world.user(910, { languageCode });
      await linkKey(world, user, world.newAccount().apiKey);
      user.send("/topup");
      const details = await user.nextMessage();
      const copyButton = (details.replyMarkup?.inline_keyboard ?? [])
        .flat()
        .find((button) => "copy_text" in button && button.copy_text);
      expect(copyButton?.text).toBe(copyLabel);
      expect(details.text).toContain(warning);
      expect(details.text).not.toContain("USDT-TRC20, TRX");
      expect(buttonLabels(details).join(" ")).not.toContain("📋");
      await user.nextMessage();
    },
  );

  it("the auto-pause alert gives its reason once, with the balance the marketplace saw and the next delivery's cost", async () => {
    const who = await linkedUser(world, 920);
    const rule = await world.app.deps.marketplace(() => who.apiKey).createSmart({ targetAddress: ADDRESS_A });
    world.sandbox.control.systemPauseRule({ ruleId: rule.id });
    await world.app.push.pollNow();
    const text = await waitFor(() =>
      botTexts(world, 920).find((t) => t.includes(rule.id.slice(0, 8)) && t.includes("paused")),
    );
    const notification = world.sandbox.control
      .listNotifications(who.accountId)
      .find((n) => n.type === "automation.paused")!;
    const cost = /next delivery \((\S+) TRX\)/.exec(notification.body)![1]!;
    expect(text).toContain(`⏸ Rule ${rule.id.slice(0, 8)} paused by the marketplace.`);
    expect(text).toContain(
      `Why: not enough balance. The marketplace saw 1,000 TRX; the next delivery costs ${cost} TRX.`,
    );
    expect(text.match(/not enough balance|cannot cover/g)).toHaveLength(1);
  });

  it("a pause notification without figures still gives one reason; one with other words is relayed in them", async () => {
    const who = await linkedUser(world, 921);
    const pausedAlerts = () => botTexts(world, 921).filter((t) => t.includes("paused by the marketplace"));
    world.sandbox.control.addNotification({
      accountId: who.accountId,
      type: "automation.paused",
      title: "Automation paused",
      body: "A rule was paused: the balance cannot cover the next delivery (4.6 TRX). It resumes by itself after a top-up.",
    });
    await world.app.push.pollNow();
    const costOnly = await waitFor(() => pausedAlerts()[0]);
    expect(costOnly).toContain("Why: not enough balance. The next delivery costs 4.6 TRX.");
    expect(costOnly).toContain("It resumes by itself after a top-up.");
    expect(costOnly).not.toContain("cannot cover");

    world.sandbox.control.addNotification({
      accountId: who.accountId,
      type: "automation.paused",
      title: "Automation paused",
      body: "Paused by support during maintenance.",
    });
    await world.app.push.pollNow();
    const other = await waitFor(() => pausedAlerts()[1]);
    expect(other).toContain("Automation paused: Paused by support during maintenance.");
    expect(other).not.toContain("not enough balance");
  });

  it("reads a pause notification's figures only where they stand beside their words", () => {
    expect(readPauseReason("the TRX balance (990 TRX) cannot cover the next delivery (4.6 TRX).")).toEqual({
      shortOfBalance: true,
      balanceTrx: "990",
      nextDeliveryTrx: "4.6",
      resumesByItself: false,
    });
    expect(readPauseReason("Balance: 0.5 TRX. Next delivery costs 12 TRX.")).toMatchObject({
      balanceTrx: "0.5",
      nextDeliveryTrx: "12",
    });
    // A cost after the word "balance" further on is not the balance.
    expect(readPauseReason("the balance cannot cover the next delivery (4.6 TRX)")).toMatchObject({
      shortOfBalance: true,
      balanceTrx: null,
      nextDeliveryTrx: "4.6",
    });
    expect(readPauseReason("Insufficient funds.")).toEqual({
      shortOfBalance: true,
      balanceTrx: null,
      nextDeliveryTrx: null,
      resumesByItself: false,
    });
    expect(readPauseReason("Paused by support.")).toMatchObject({ shortOfBalance: false });
  });

  it("only the sandbox's transaction ids lose their explorer link: a real-looking id keeps it", () => {
    const made = newTxId(Math.random);
    expect(made).toMatch(/^[0-9a-f]{64}$/);
    expect(isSandboxTxId(made)).toBe(true);
    expect(txLink(made, "sandbox transaction")).toBe("sandbox transaction");
    expect(txUrl(made)).toBeNull();
    const real = "4f2a".repeat(16);
    expect(isSandboxTxId(real)).toBe(false);
    expect(txLink(real, "sandbox transaction")).toBe(
      `<a href="https://tronscan.org/#/transaction/${real}">4f2a4f2a…2a4f2a</a>`,
    );
    expect(txUrl(real)).toBe(`https://tronscan.org/#/transaction/${real}`);
  });
});

describe("the first ten minutes, with a PUBLIC_URL", () => {
  let world: World;
  manageWorld((started) => (world = started), { env: { PUBLIC_URL: "https://bot.example" } });

  it("/webhook's copy button carries no icon of its own either", async () => {
    const user = world.user(911);
    await linkKey(world, user, world.newAccount().apiKey);
    user.send("/webhook");
    const shown = await user.nextMessage();
    expect(buttonLabels(shown)).toContain("Copy");
    expect(buttonLabels(shown).join(" ")).not.toContain("📋");
  });
});

describe("settling in the playground", () => {
  let app: App | null = null;
  let telegram: StartedFakeTelegram | null = null;
  afterEach(async () => {
    await app?.stop();
    await telegram?.close();
    app = null;
    telegram = null;
  });

  const playgroundEnv = () => ({
    DATABASE_URL: ":memory:",
    PORT: "0",
    SECRET_KEY: randomBytes(32).toString("base64"),
    LOG_LEVEL: "silent",
  });
  const placeOrder = async (started: App) => {
    const { sandbox, demoApiKey } = started.sandbox!;
    const response = await sandbox.app.request("/api/v1/orders", {
      method: "POST",
      headers: {
        "X-Api-Key": demoApiKey,
        "Content-Type": "application/json",
        "Idempotency-Key": `newcomer-${Math.random()}`,
      },
      body: JSON.stringify({ resource: "energy", volume: 65000, duration: "1h", targetAddress: ADDRESS_A }),
    });
    expect(response.ok).toBe(true);
    return ((await response.json()) as { id: string }).id;
  };
  const statusOf = (started: App, orderId: string) =>
    started
      .sandbox!.sandbox.control.listOrders(started.sandbox!.sandbox.demo.accountId)
      .find((order) => order.id === orderId)?.status;

  it("orders wait for the panel by default (the panel says so); the switch has them settle by themselves after N seconds", async () => {
    app = await startApp({ env: playgroundEnv(), perChatMinTimeMs: 0 });
    const started = app;
    const panel = async (action: string, body: object) => {
      const response = await fetch(`${started.url}/play/api/sandbox/${action}`, {
        method: "POST",
        headers: { "content-type": "application/json", origin: new URL(started.url).origin },
        body: JSON.stringify(body),
      });
      return {
        status: response.status,
        json: (await response.json()) as {
          result?: { settlement: unknown; settled: Array<{ status: string }> };
          state?: { settlement: unknown };
          error?: string;
        },
      };
    };
    const state = async () =>
      ((await (await fetch(`${started.url}/play/api/sandbox`)).json()) as { settlement: unknown }).settlement;
    expect(await state()).toEqual({ auto: false, seconds: null });

    // Past the 3 s a standalone sandbox waits, and a settlement pass after that: still waiting.
    const waiting = await placeOrder(app);
    const createdAt = Date.parse(
      app
        .sandbox!.sandbox.control.listOrders(app.sandbox!.sandbox.demo.accountId)
        .find((order) => order.id === waiting)!.createdAt,
    );
    await waitFor(() => Date.now() - createdAt > 3_200, 10_000);
    await app.sandbox!.sandbox.tick();
    expect(statusOf(app, waiting)).toBe("Created");
    const settled = await panel("settle", {});
    expect(settled.json.result!.settled.map((order) => order.status)).toEqual(["Filled"]);

    const switched = await panel("settle-mode", { seconds: 1 });
    expect(switched.status).toBe(200);
    expect(switched.json.result!.settlement).toEqual({ auto: true, seconds: 1 });
    expect(switched.json.state!.settlement).toEqual({ auto: true, seconds: 1 });
    const byItself = await placeOrder(app);
    await waitFor(() => statusOf(started, byItself) === "Filled", 6000);

    expect((await panel("settle-mode", { seconds: -1 })).status).toBe(400);
    expect((await panel("settle-mode", { seconds: "soon" })).status).toBe(400);
    expect((await panel("settle-mode", { seconds: null })).json.result!.settlement).toEqual({
      auto: false,
      seconds: null,
    });
    expect(await state()).toEqual({ auto: false, seconds: null });
  }, 40_000);

  it("npm run sandbox's sandbox, the tests' sandboxes and the bot on the embedded sandbox with a BOT_TOKEN keep settling by themselves", async () => {
    // What `npm run sandbox` builds: 3 s, changeable over its control interface.
    const standalone = createSandbox();
    expect(standalone.control.getSettleDelay()).toEqual({ settleDelayMs: 3000 });
    const response = await standalone.app.request("/_sandbox/set-settle-delay", {
      method: "POST",
      body: JSON.stringify({ ms: null }),
    });
    expect(await response.json()).toEqual({ settleDelayMs: null });
    expect(createSandbox({ settleDelayMs: 0 }).control.getSettleDelay()).toEqual({ settleDelayMs: 0 });

    // With BOT_TOKEN there is no panel to press: the embedded sandbox settles by itself.
    telegram = await startFakeTelegram({ token: BOT_TOKEN });
    app = await startApp({
      env: { ...playgroundEnv(), BOT_TOKEN, TELEGRAM_API_ROOT: telegram.apiRoot },
      perChatMinTimeMs: 0,
    });
    expect(app.playground).toBeNull();
    expect(app.sandbox!.sandbox.control.getSettleDelay()).toEqual({ settleDelayMs: 3000 });
  });
});

describe("npm test without a PostgreSQL", () => {
  it("opens with one line naming the skipped database tests and how to run them; with TEST_DATABASE_URL it says nothing", () => {
    const vitest = (env: NodeJS.ProcessEnv) =>
      execFileSync(
        process.execPath,
        [
          "node_modules/vitest/vitest.mjs",
          "run",
          "test/unit/locales.test.ts",
          "--reporter=default",
          "--passWithNoTests",
        ],
        { env, encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] },
      );
    const withoutDatabase: NodeJS.ProcessEnv = { ...process.env };
    delete withoutDatabase.TEST_DATABASE_URL;
    const output = vitest(withoutDatabase);
    const lines = output.split("\n");
    const announced = lines.findIndex((line) => line.includes("Skipped: the PostgreSQL tests"));
    expect(lines.filter((line) => line.includes("Skipped: the PostgreSQL tests"))).toEqual([
      SKIPPED_DATABASE_TESTS_LINE,
    ]);
    expect(SKIPPED_DATABASE_TESTS_LINE).toContain("TEST_DATABASE_URL=postgres://");
    expect(SKIPPED_DATABASE_TESTS_LINE).toContain(".ci/run");
    // At the start: before any test file reports.
    expect(announced).toBeLessThan(lines.findIndex((line) => line.includes("locales.test.ts")));

    // A URL no server answers: only the announcement is looked at, and the locale tests need no database.
    expect(vitest({ ...withoutDatabase, TEST_DATABASE_URL: "postgres://nobody@127.0.0.1:1/none" })).not.toContain(
      "Skipped: the PostgreSQL tests",
    );
  }, 60_000);
});

describe("npm start under a process manager", () => {
  let npm: ChildProcess | null = null;
  let tree: number[] = [];
  let dir: string | null = null;
  afterEach(async () => {
    // Whatever the test left running of what it started, by process id.
    for (const pid of [...tree, ...(npm?.pid ? [npm.pid] : [])]) if (alive(pid)) process.kill(pid, "SIGKILL");
    npm = null;
    tree = [];
    if (dir) await removeDatabaseDir(dir);
    dir = null;
  });

  it("SIGTERM to npm's own process stops the bot: no process of it is left and the port is free within the shutdown time", async () => {
    const port = await freePort();
    dir = mkdtempSync(join(tmpdir(), "bot-npm-start-"));
    const env: NodeJS.ProcessEnv = {
      ...process.env,
      PORT: String(port),
      HOST: "127.0.0.1",
      DATABASE_URL: `file:${join(dir, "bot.db")}`,
    };
    for (const name of ["BOT_TOKEN", "MARKETPLACE_URL", "TELEGRAM_API_ROOT", "PUBLIC_URL", "BOT_MODE"])
      delete env[name];
    npm = spawn("npm", ["start"], { env, stdio: ["ignore", "pipe", "pipe"] });
    let output = "";
    npm.stdout!.on("data", (chunk) => (output += chunk));
    npm.stderr!.on("data", (chunk) => (output += chunk));
    const npmExited = new Promise<void>((resolve) => npm!.once("exit", () => resolve()));
    await until(
      () => output.includes(`Open http://127.0.0.1:${port}/play`),
      60_000,
      () => output,
    );
    tree = descendantsOf(npm.pid!);
    expect(tree.length).toBeGreaterThan(0);
    expect(await connects(port)).toBe(true);

    process.kill(npm.pid!, "SIGTERM");
    // main.ts gives itself 10 s to stop before it exits anyway: within the shutdown time means it
    // stopped by itself ("stopped" logged), not by that deadline (which says so), however long a
    // loaded machine took.
    await until(
      () => tree.every((pid) => !alive(pid)),
      20_000,
      () => `still running: ${tree.filter(alive).join(", ")}\n${output}`,
    );
    expect(await connects(port)).toBe(false);
    expect(output).not.toContain("shutdown took longer than 10 s");
    expect(output).toContain('"msg":"stopped"');
    await npmExited;
  }, 90_000);
});

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** Every process below `root` (children, grandchildren, …), as `ps` lists them now. */
function descendantsOf(root: number): number[] {
  const rows = execFileSync("ps", ["-e", "-o", "pid=,ppid="], { encoding: "utf8" })
    .trim()
    .split("\n")
    .map((line) => line.trim().split(/\s+/).map(Number) as [number, number]);
  const found: number[] = [];
  const queue = [root];
  while (queue.length) {
    const parent = queue.shift()!;
    for (const [pid, ppid] of rows) {
      if (ppid === parent) {
        found.push(pid);
        queue.push(pid);
      }
    }
  }
  return found;
}

async function until(check: () => boolean, timeoutMs: number, describe: () => string): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out: ${describe()}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

function connects(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ host: "127.0.0.1", port, timeout: 2000 });
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
