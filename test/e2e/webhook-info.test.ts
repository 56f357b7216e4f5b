import { readFileSync } from "node:fs";
import { afterEach, describe, expect, it } from "vitest";
import { telegramWebhookSecret } from "#src/app";
import { freePort } from "../kit/net";
import { BOT_TOKEN, startWorld, type World } from "../kit/world";

/**
 * Telegram's own view of the webhook (getWebhookInfo), read by the bot in webhook mode and shown in
 * /metrics: a webhook Telegram cannot reach brings no traffic at all, so only this says so.
 */
let world: World | null = null;
afterEach(async () => {
  await world?.stop();
  world = null;
});

async function metricsText(started: World): Promise<string> {
  return (await fetch(`${started.app.url}/metrics`)).text();
}

/** The value of a label-less series in the Prometheus text, or undefined when it is absent. */
function sample(text: string, name: string): number | undefined {
  const match = new RegExp(`^${name} (\\S+)$`, "m").exec(text);
  return match ? Number(match[1]) : undefined;
}

async function eventually(check: () => Promise<boolean>, what: string, timeoutMs = 8_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting until ${what}`);
    await new Promise((done) => setTimeout(done, 50));
  }
}

/** Points Telegram (the fake) at `url`, as the bot's setWebhook would. */
async function pointWebhookAt(started: World, url: string): Promise<void> {
  const body = { url, secret_token: telegramWebhookSecret(started.env.SECRET_KEY!) };
  const answer = await fetch(`${started.telegram.apiRoot}/bot${BOT_TOKEN}/setWebhook`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(body),
  });
  expect(answer.ok).toBe(true);
}

const webhookInfoCalls = (started: World) =>
  started.fake.calls.filter((call) => call.method === "getWebhookInfo").length;
const count = (text: string, needle: string) => text.split(needle).length - 1;

describe("getWebhookInfo in /metrics, webhook mode", () => {
  it("shows the updates Telegram holds and how long ago its last delivery failed, and logs Telegram's error", async () => {
    world = await startWorld({
      env: { BOT_MODE: "webhook", PUBLIC_URL: "https://bot.example.com" },
      webhookInfoEveryMs: 100,
      telegramServerErrorRetries: 0,
      allowRejectedCalls: true,
    });
    const started = world;
    // Telegram cannot reach the bot: nothing listens where the webhook points.
    await pointWebhookAt(started, `http://127.0.0.1:${await freePort()}/telegram`);
    const user = started.user(5101);
    user.send("/start");
    user.send("/help");
    await eventually(async () => {
      const text = await metricsText(started);
      return (
        sample(text, "telegram_webhook_pending_updates") === 2 &&
        sample(text, "telegram_webhook_last_error_age_seconds") !== undefined
      );
    }, "the gauges show 2 pending updates and a last error");
    const age = sample(await metricsText(started), "telegram_webhook_last_error_age_seconds")!;
    expect(age).toBeGreaterThanOrEqual(0);
    expect(age).toBeLessThan(30);
    expect(started.logs()).toContain("Telegram reports a failed delivery to the webhook");
    expect(started.logs()).toContain("Connection refused");

    // Telegram reaches the bot again: the held updates are handled and nothing is pending any more.
    await pointWebhookAt(started, `${started.app.url}/telegram`);
    await user.nextMessage({ timeoutMs: 8_000 });
    await eventually(
      async () => sample(await metricsText(started), "telegram_webhook_pending_updates") === 0,
      "no update is pending",
    );
    expect(started.logs()).not.toContain(BOT_TOKEN);
    // The rules read these series by these names (test/e2e/prometheus.test.ts scrapes a polling bot, which has none).
    const text = await metricsText(started);
    for (const metric of new Set(readFileSync("deploy/prometheus/alerts.yml", "utf8").match(/telegram_webhook_\w+/g)))
      expect(text, metric).toMatch(new RegExp(`^${metric} `, "m"));
  });

  it("keeps the last values while getWebhookInfo fails, says so once, and stops asking when the app stops", async () => {
    world = await startWorld({
      env: { BOT_MODE: "webhook", PUBLIC_URL: "https://bot.example.com" },
      webhookInfoEveryMs: 100,
      telegramServerErrorRetries: 0,
      allowRejectedCalls: true,
    });
    const started = world;
    await pointWebhookAt(started, `http://127.0.0.1:${await freePort()}/telegram`);
    started.user(5102).send("/start");
    await eventually(async () => {
      const text = await metricsText(started);
      return (
        sample(text, "telegram_webhook_pending_updates") === 1 &&
        sample(text, "telegram_webhook_last_error_age_seconds") !== undefined
      );
    }, "the gauges show 1 pending update and a last error");

    started.fake.setDown("5xx");
    const before = webhookInfoCalls(started);
    await eventually(async () => webhookInfoCalls(started) >= before + 4, "getWebhookInfo was asked 4 more times");
    const text = await metricsText(started);
    expect(sample(text, "telegram_webhook_pending_updates")).toBe(1);
    expect(sample(text, "telegram_webhook_last_error_age_seconds")).toBeGreaterThanOrEqual(0);
    expect(count(started.logs(), "getWebhookInfo failed")).toBe(1);
    started.fake.setDown(null);
    await eventually(
      async () => started.logs().includes("getWebhookInfo answers again"),
      "the bot says getWebhookInfo answers again",
    );

    expect(started.logs()).not.toContain(BOT_TOKEN);

    await started.app.stop();
    const atStop = webhookInfoCalls(started);
    await new Promise((done) => setTimeout(done, 400));
    expect(webhookInfoCalls(started)).toBe(atStop);
  });

  it("polling mode neither asks for getWebhookInfo nor shows its gauges; it shows the polling leader instead", async () => {
    world = await startWorld();
    const started = world;
    await eventually(
      async () => sample(await metricsText(started), "replica_polling_leader") === 1,
      "this replica leads polling",
    );
    const text = await metricsText(started);
    expect(text).not.toContain("telegram_webhook_");
    expect(webhookInfoCalls(started)).toBe(0);
  });

  it("webhook mode shows no polling leader series (nobody polls there, so no rule may page for it)", async () => {
    world = await startWorld({
      env: { BOT_MODE: "webhook", PUBLIC_URL: "https://bot.example.com" },
      webhookInfoEveryMs: 100,
      allowRejectedCalls: true,
    });
    const started = world;
    await eventually(
      async () => sample(await metricsText(started), "telegram_webhook_pending_updates") !== undefined,
      "the webhook gauges appear",
    );
    expect(await metricsText(started)).not.toMatch(/^replica_polling_leader/m);
  });
});
