import { afterEach, describe, expect, it } from "vitest";
import { telegramWebhookSecret } from "#src/app";
import { buttonLabels, nextBotText, startWorld, BOT_TOKEN, type World } from "../kit/world";
import { createPostgresTestDatabase, TEST_DATABASE_URL, type TestDatabase } from "../kit/test-database";

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const MARKETPLACE_WEBHOOK_SECRET = "mws-shared-secret-4f9a2c7e1b";
const DATABASE_PASSWORD = "db-pass-8d1e6b0c3a77";
// A Buffer or typed array of 32 bytes (the AES data key) as JSON: [12,250,3,…].
const BYTE_ARRAY_32 = /\[\s*\d{1,3}(?:\s*,\s*\d{1,3}){31}\s*\]/;
const SENDS = ["sendmessage", "editmessagetext", "answercallbackquery", "deletemessage", "editmessagereplymarkup"];

async function until(check: () => boolean, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error("timed out waiting");
    await sleep(25);
  }
}

/** Waits until `count` grew past `before` and then stayed put for `quietMs` (retries are over). */
async function grownAndQuiet(count: () => number, before: number, quietMs: number): Promise<void> {
  await until(() => count() > before);
  for (let last = count(); ; last = count()) {
    await sleep(quietMs);
    if (count() === last) return;
  }
}

/**
 * Telegram fails every send (5xx, 400 or 403) while a user links a key, pastes one, asks for
 * their personal webhook and rotates it: the failures are logged, and no secret is in the logs.
 */
describe.each(["polling", "webhook"] as const)("no secret in the logs in %s mode", (mode) => {
  let world: World;
  let database: TestDatabase | null = null;
  afterEach(async () => {
    await world.stop();
    await database?.drop();
    database = null;
  });

  it.each([500, 400, 403] as const)(
    "with Telegram answering %i to every send",
    { timeout: 120_000 },
    async (status) => {
      let databaseUrl: string | undefined;
      if (TEST_DATABASE_URL) {
        database = await createPostgresTestDatabase();
        const url = new URL(database.url);
        url.password = DATABASE_PASSWORD;
        databaseUrl = url.toString();
      }
      world = await startWorld({
        allowRejectedCalls: true,
        // A 5xx reaches the error paths at once instead of after the bot's own backoff (3 s, 6 s, 12 s).
        telegramServerErrorRetries: 0,
        env: {
          BOT_MODE: mode,
          PUBLIC_URL: "https://bot.example.com",
          MARKETPLACE_WEBHOOK_SECRET,
          ...(databaseUrl ? { DATABASE_URL: databaseUrl } : {}),
        },
      });
      const webhookSecret = telegramWebhookSecret(world.env.SECRET_KEY!);
      if (mode === "webhook") {
        // Updates reach this app's /telegram as Telegram would post them.
        const answer = await fetch(`${world.telegram.apiRoot}/bot${BOT_TOKEN}/setWebhook`, {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify({ url: `${world.app.url}/telegram`, secret_token: webhookSecret }),
        });
        expect(answer.ok).toBe(true);
      }
      const failAll = () => SENDS.forEach((method) => world.telegram.failing.set(method, status));
      const failNone = () => world.telegram.failing.clear();
      const { apiKey } = world.newAccount();
      const pasted = world.newAccount().apiKey;
      const user = world.user(9_100 + status);
      const failedBefore = () => world.telegram.failedBodies.length;

      // A failed update in webhook mode is redelivered by Telegram a second later: wait those out.
      const quietMs = mode === "webhook" ? 1_300 : 400;
      const step = async (act: () => unknown) => {
        const before = failedBefore();
        await act();
        await grownAndQuiet(failedBefore, before, quietMs);
      };
      failAll();
      await step(() => user.send(`/connect ${apiKey}`));
      // The guided /connect: its question fails too, then the key is pasted on its own.
      await step(() => user.send("/connect"));
      await step(() => user.send(pasted));
      // /webhook issues a personal token; the reply carrying its URL is refused.
      await step(() => user.send("/webhook"));

      // Rotate needs the button on a delivered message: let one reply through, then fail again.
      failNone();
      user.send("/webhook");
      const withRotate = await nextBotText(user, (text) => text.includes("webhook"), 20_000);
      expect(buttonLabels(withRotate).some((label) => label.includes("Rotate"))).toBe(true);
      // The press is answered, so the token is rotated; the edit showing the new URL is refused.
      for (const method of ["editmessagetext", "sendmessage"]) world.telegram.failing.set(method, status);
      await step(() => user.press(/Rotate/));
      failNone();

      const logs = world.logs();
      const failedBodies = world.telegram.failedBodies.join("\n");
      const tokens = [...failedBodies.matchAll(/webhooks\/marketplace\/([A-Za-z0-9_-]{20,})/g)].map(
        (match) => match[1]!,
      );
      expect(tokens.length).toBeGreaterThanOrEqual(2);
      // The failures themselves were logged (the test sees the paths it guards).
      expect(logs).toMatch(/update handler failed|webhook update failed|could not/);
      expect(logs).toContain(
        String(status === 500 ? "Internal Server Error" : status === 400 ? "refused by the test" : "blocked"),
      );
      const secrets = {
        apiKey,
        pasted,
        BOT_TOKEN,
        SECRET_KEY: world.env.SECRET_KEY!,
        MARKETPLACE_WEBHOOK_SECRET,
        webhookSecret,
        ...(databaseUrl ? { DATABASE_PASSWORD } : {}),
      };
      for (const [name, value] of Object.entries(secrets))
        expect(logs.includes(value), `${name} is in the logs`).toBe(false);
      for (const token of tokens) expect(logs.includes(token), "a personal webhook token is in the logs").toBe(false);
      expect(logs).not.toMatch(BYTE_ARRAY_32);
      // Structural, not only scrubbed: no context, no call payload, no text the bot tried to send.
      expect(logs).not.toMatch(/"(payload|ctx|deps|update)":/);
      expect(logs).not.toContain("personal webhook URL");
      expect(logs).not.toContain("Balance:");
    },
  );
});
