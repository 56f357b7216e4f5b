import { randomBytes } from "node:crypto";
import { request as httpRequest, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { Writable } from "node:stream";
import { serve } from "@hono/node-server";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startApp, telegramWebhookSecret, type App } from "#src/app";
import { createSandbox } from "#src/sandbox/index";
import { manageWorld, BOT_TOKEN, type World } from "../kit/world";
import { botTexts, linkedUser, waitFor } from "../kit/push-helpers";
import { createChatUser, startFakeTelegram, type StartedFakeTelegram } from "../kit/telegram-driver";
import { createPostgresTestDatabase, TEST_DATABASE_URL, type TestDatabase } from "../kit/test-database";
import { closeServer, startBalancer, waitUntil, type Replica } from "../scale/replica-kit";

/** A POST to `url` whose connection comes from `localAddress` (any 127.x.y.z reaches loopback). */
function postFrom(
  localAddress: string,
  url: string,
  body: unknown = { event: "ping" },
): Promise<{ status: number; retryAfter: string | undefined }> {
  const target = new URL(url);
  const payload = JSON.stringify(body);
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      {
        host: target.hostname,
        port: target.port,
        path: target.pathname,
        method: "POST",
        localAddress,
        agent: false,
        headers: { "content-type": "application/json", "content-length": Buffer.byteLength(payload) },
      },
      (res) => {
        res.resume();
        res.on("end", () =>
          resolve({ status: res.statusCode ?? 0, retryAfter: res.headers["retry-after"] as string | undefined }),
        );
      },
    );
    req.on("error", reject);
    req.end(payload);
  });
}

const unknownToken = () => randomBytes(24).toString("base64url");

describe("requests for unknown marketplace webhook tokens are limited per client address", () => {
  let world: World;
  manageWorld((started) => (world = started));

  const ORDER = {
    id: "5c1d2e3f-4a5b-4c6d-8e7f-9a0b1c2d3e4f",
    resource: "energy",
    targetAddress: "TNPeeaaFB7K9cmo4uQpcU32zGK8G1NYqeL",
    volume: "65000",
    duration: "1h",
    totalTrx: "4.6475",
    status: "Filled",
    txId: "c".repeat(64),
  };

  it("a flood from one address gets 429 after 30 unknown tokens, another address still gets 404, and a known token from the flooding address is refused alike (served from another)", async () => {
    const who = await linkedUser(world, 731);
    const at = (token: string) => `${world.app.url}/webhooks/marketplace/${token}`;

    for (let i = 0; i < 30; i++) expect((await postFrom("127.0.0.2", at(unknownToken()))).status).toBe(404);
    const refused = await postFrom("127.0.0.2", at(unknownToken()));
    expect(refused.status).toBe(429);
    const retryAfter = Number(refused.retryAfter);
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBeLessThanOrEqual(60);
    // A token too short to be one is refused the same way, without a lookup of its own.
    expect((await postFrom("127.0.0.2", at("short"))).status).toBe(429);

    // Another client is not affected by the first one's flood.
    expect((await postFrom("127.0.0.3", at(unknownToken()))).status).toBe(404);

    // Past the limit a known token is refused like any other (no lookup tells them apart; see
    // unknown-token-uniform.test.ts); the marketplace's retry from elsewhere is served.
    expect((await postFrom("127.0.0.2", at(who.token), { event: "order.filled", data: ORDER })).status).toBe(429);
    expect((await postFrom("127.0.0.3", at(who.token), { event: "order.filled", data: ORDER })).status).toBe(200);
    await waitFor(() => botTexts(world, 731).some((text) => text.includes("5c1d2e3f") && text.includes("filled")));
    // And the flooding address stays limited for unknown tokens.
    expect((await postFrom("127.0.0.2", at(unknownToken()))).status).toBe(429);
    expect(world.logs()).not.toContain(who.token);
  });
});

const replicasName = TEST_DATABASE_URL
  ? "the per-user update limit with two replicas on one PostgreSQL"
  : "the per-user update limit with two replicas (skipped: TEST_DATABASE_URL is unset; this needs a PostgreSQL server, CI always sets it)";

describe.skipIf(!TEST_DATABASE_URL)(replicasName, () => {
  let database: TestDatabase;
  let telegram: StartedFakeTelegram;
  let sandboxServer: Server;
  let balancer: Awaited<ReturnType<typeof startBalancer>>;
  const apps: App[] = [];
  const backends: Replica[] = [];
  const secretKey = randomBytes(32).toString("base64");
  // Both replicas' clock: real time plus what the test moves it by.
  let offset = 0;
  const now = () => Date.now() + offset;

  beforeAll(async () => {
    database = await createPostgresTestDatabase("bot_flood");
    const sandbox = createSandbox({ now: () => new Date(), settleDelayMs: 0 });
    sandboxServer = await new Promise((resolve) => {
      const started = serve({ fetch: sandbox.app.fetch, port: 0, hostname: "127.0.0.1" }, () =>
        resolve(started as Server),
      );
    });
    telegram = await startFakeTelegram({ token: BOT_TOKEN });
    balancer = await startBalancer(() => backends);
    const quiet = new Writable({ write: (_chunk, _encoding, callback) => callback() });
    for (const id of ["flood-1", "flood-2"]) {
      const app = await startApp({
        env: {
          BOT_TOKEN,
          TELEGRAM_API_ROOT: telegram.apiRoot,
          MARKETPLACE_URL: `http://127.0.0.1:${(sandboxServer.address() as AddressInfo).port}`,
          DATABASE_URL: database.url,
          DATABASE_POOL_MAX: "4",
          SECRET_KEY: secretKey,
          BOT_MODE: "webhook",
          PUBLIC_URL: "https://bot.example.com",
          HOST: "127.0.0.1",
          PORT: "0",
          NOTIFICATIONS_POLL: "0 0 1 1 *",
          LOG_LEVEL: "warn",
          REPLICA_ID: id,
        },
        logDestination: quiet,
        perChatMinTimeMs: 0,
        now,
      });
      apps.push(app);
      backends.push({ id, port: Number(new URL(app.url).port), url: app.url, alive: true } as Replica);
    }
    // Each replica registered the public https URL; point the fake Telegram at the balancer instead.
    const answer = await fetch(`${telegram.apiRoot}/bot${BOT_TOKEN}/setWebhook`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ url: `${balancer.url}/telegram`, secret_token: telegramWebhookSecret(secretKey) }),
    });
    expect(answer.ok).toBe(true);
  }, 60_000);

  afterAll(async () => {
    for (const app of apps) await app.stop();
    await telegram?.close();
    await closeServer(balancer?.server);
    await closeServer(sandboxServer);
    await database?.drop();
  }, 60_000);

  it("25 messages in a burst, spread over both replicas: 20 answered and one warning in all, and the user is answered again once the window has passed", async () => {
    const user = createChatUser(telegram.fake, { id: 3_300_001, firstName: "Flooder", languageCode: "en" });
    const isHelp = (text: string) => text.includes("/quote");
    const isWarning = (text: string) => text.includes("too fast");
    const sent = Array.from({ length: 25 }, () => user.send("/help"));
    const ids = new Set(sent.map((update) => update.updateId));
    const routed = () =>
      balancer.routed.filter(
        (route) => route.path === "/telegram" && ids.has((JSON.parse(route.body) as { update_id: number }).update_id),
      );
    // A replica answers Telegram once it has handled the update, so every reply is out by then.
    await waitUntil(
      () => new Set(routed().map((route) => route.body)).size === 25,
      30_000,
      () => `the burst to be handled (${routed().length} answered)`,
    );
    await new Promise((resolve) => setTimeout(resolve, 300));

    // Both replicas took part, so a limit kept in each one's memory would have let all 25 through.
    expect(new Set(routed().map((route) => route.replica))).toEqual(new Set(["flood-1", "flood-2"]));
    const texts = user.botMessages().map((message) => message.text ?? "");
    expect(texts.filter(isHelp)).toHaveLength(20);
    expect(texts.filter(isWarning)).toHaveLength(1);
    expect(texts).toHaveLength(21);

    // The window is 10 s of the replicas' clock: moved past it, the next message is answered.
    offset += 10_001;
    user.send("/help");
    await waitUntil(() => user.botMessages().length === 22, 10_000, "the answer after the window");
    expect(isHelp(user.botMessages().at(-1)!.text ?? "")).toBe(true);
  }, 60_000);
});
