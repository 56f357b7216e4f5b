import { createServer } from "node:http";
import type { IncomingHttpHeaders, Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { createSandboxWorld, newCustomer, orderBody } from "./sandbox-world";
import type { SandboxWorld } from "./sandbox-world";

interface Received {
  headers: IncomingHttpHeaders;
  body: unknown;
}

let server: Server | undefined;

interface DeliveryState {
  state: string;
  attempts: number;
  url: string;
  lastError: string | null;
}

/** The account's queued webhook deliveries, from the sandbox's state dump. */
async function webhooksOf(world: SandboxWorld, accountId: string): Promise<DeliveryState[]> {
  const response = await world.sandbox.app.request(`/_sandbox/state?accountId=${accountId}`);
  const state = (await response.json()) as { accounts: { webhooks: DeliveryState[] }[] };
  return state.accounts[0]!.webhooks;
}

afterEach(async () => {
  await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
  server = undefined;
});

/** A local receiver on port 0 that answers the given statuses in turn (then 200). */
async function startReceiver(statuses: number[]): Promise<{ url: string; received: Received[] }> {
  const received: Received[] = [];
  server = createServer((request, response) => {
    let text = "";
    request.on("data", (chunk: Buffer) => (text += chunk.toString("utf8")));
    request.on("end", () => {
      received.push({ headers: request.headers, body: JSON.parse(text) });
      response.writeHead(statuses.shift() ?? 200).end("ok");
    });
  });
  await new Promise<void>((resolve) => server!.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}/hooks/marketplace/secret-token`, received };
}

describe("order webhooks", () => {
  it("posts order.filled to the account's URL at settlement and retries a failing receiver after 1s", async () => {
    const world = createSandboxWorld();
    const { accountId, apiKey } = newCustomer(world);
    const receiver = await startReceiver([500]);
    world.control.setWebhookUrl({ accountId, url: receiver.url });
    const order = (
      await world.call("POST", "/api/v1/orders", {
        key: apiKey,
        body: orderBody(),
        headers: { "Idempotency-Key": "w" },
      })
    ).body;

    world.advance(3000);
    await world.sandbox.tick();
    expect(receiver.received).toHaveLength(1);
    await world.sandbox.tick(); // the retry is not due yet
    expect(receiver.received).toHaveLength(1);
    world.advance(1000);
    await world.sandbox.tick();
    expect(receiver.received).toHaveLength(2);
    world.advance(60_000);
    await world.sandbox.tick();
    expect(receiver.received).toHaveLength(2); // delivered: no more attempts

    const [first, second] = receiver.received;
    expect(second!.body).toEqual(first!.body);
    expect(second!.body).toMatchObject({
      event: "order.filled",
      createdAt: "2025-03-10T12:00:03.000Z",
      data: { order: { id: order.id, status: "Filled" } },
    });
    expect((second!.body as { id: string }).id).toMatch(/^[0-9a-f-]{36}$/);
    expect(second!.headers["content-type"]).toBe("application/json");
    expect(second!.headers["x-marketplace-event"]).toBe("order.filled");
    expect(second!.headers["x-marketplace-delivery"]).toBe((second!.body as { id: string }).id);
  });

  it("posts order.failed for an asynchronous failure", async () => {
    const world = createSandboxWorld();
    const { accountId, apiKey } = newCustomer(world);
    const receiver = await startReceiver([]);
    world.control.setWebhookUrl({ accountId, url: receiver.url });
    world.control.failNextOrder({ accountId, mode: "async" });
    await world.call("POST", "/api/v1/orders", { key: apiKey, body: orderBody(), headers: { "Idempotency-Key": "f" } });
    world.control.settleNow({ accountId });
    await world.sandbox.tick();
    expect(receiver.received).toHaveLength(1);
    expect(receiver.received[0]!.body).toMatchObject({
      event: "order.failed",
      data: { order: { status: "Failed", txId: null } },
    });
  });

  it("backs off 1s, 2s, 4s, 8s, 16s on network errors and gives up after six attempts", async () => {
    const attempts: number[] = [];
    const world = createSandboxWorld("2025-03-10T12:00:00.000Z", {
      webhookFetch: async () => {
        attempts.push(world.now().getTime());
        throw new TypeError("fetch failed");
      },
    });
    const { accountId, apiKey } = newCustomer(world);
    world.control.setWebhookUrl({ accountId, url: "http://127.0.0.1:9/unreachable" });
    await world.call("POST", "/api/v1/orders", { key: apiKey, body: orderBody(), headers: { "Idempotency-Key": "n" } });
    world.control.settleNow({ accountId });
    for (let second = 0; second <= 60; second++) {
      await world.sandbox.tick();
      world.advance(1000);
    }
    const start = attempts[0]!;
    expect(attempts.map((time) => (time - start) / 1000)).toEqual([0, 1, 3, 7, 15, 31]);
  });

  it("sends nothing when no URL is set, and drops pending retries once the URL is cleared", async () => {
    const calls: string[] = [];
    const world = createSandboxWorld("2025-03-10T12:00:00.000Z", {
      webhookFetch: async (input) => {
        calls.push(String(input));
        return new Response("down", { status: 503 });
      },
    });
    const { accountId, apiKey } = newCustomer(world);
    await world.call("POST", "/api/v1/orders", { key: apiKey, body: orderBody(), headers: { "Idempotency-Key": "1" } });
    world.control.settleNow({ accountId });
    await world.sandbox.tick();
    expect(calls).toHaveLength(0);

    world.control.setWebhookUrl({ accountId, url: "http://127.0.0.1:9/x" });
    await world.call("POST", "/api/v1/orders", { key: apiKey, body: orderBody(), headers: { "Idempotency-Key": "2" } });
    world.control.settleNow({ accountId });
    await world.sandbox.tick();
    expect(calls).toEqual(["http://127.0.0.1:9/x"]); // failed: a retry is due in 1 s

    world.control.setWebhookUrl({ accountId, url: null });
    for (let second = 0; second < 40; second++) {
      world.advance(1000);
      await world.sandbox.tick();
    }
    expect(calls).toHaveLength(1);
    const [delivery] = await webhooksOf(world, accountId);
    expect(delivery).toMatchObject({ state: "failed", attempts: 1, lastError: expect.stringContaining("cleared") });

    // Setting a URL again does not revive the dropped delivery.
    world.control.setWebhookUrl({ accountId, url: "http://127.0.0.1:9/y" });
    world.advance(60_000);
    await world.sandbox.tick();
    expect(calls).toHaveLength(1);
    expect(() => world.control.setWebhookUrl({ accountId, url: "ftp://x" })).toThrow(/url/);
  });

  it("sends each retry to the URL set at that moment", async () => {
    const calls: string[] = [];
    const world = createSandboxWorld("2025-03-10T12:00:00.000Z", {
      webhookFetch: async (input) => {
        calls.push(String(input));
        return new Response("", { status: calls.length === 1 ? 500 : 200 });
      },
    });
    const { accountId, apiKey } = newCustomer(world);
    world.control.setWebhookUrl({ accountId, url: "http://127.0.0.1:9/old" });
    await world.call("POST", "/api/v1/orders", { key: apiKey, body: orderBody(), headers: { "Idempotency-Key": "1" } });
    world.control.settleNow({ accountId });
    await world.sandbox.tick();
    world.control.setWebhookUrl({ accountId, url: "http://127.0.0.1:9/new" });
    world.advance(1000);
    await world.sandbox.tick();
    expect(calls).toEqual(["http://127.0.0.1:9/old", "http://127.0.0.1:9/new"]);
    expect((await webhooksOf(world, accountId))[0]).toMatchObject({
      state: "delivered",
      attempts: 2,
      url: "http://127.0.0.1:9/new",
    });
  });

  it("a receiver that hangs holds up neither settlement nor other deliveries, and is not sent twice meanwhile", async () => {
    const calls: string[] = [];
    let release: (() => void) | undefined;
    const world = createSandboxWorld("2025-03-10T12:00:00.000Z", {
      webhookFetch: async (input) => {
        calls.push(String(input));
        if (String(input).endsWith("/hangs")) {
          await new Promise<void>((resolve) => (release = resolve));
        }
        return new Response("ok");
      },
    });
    const slow = newCustomer(world);
    const fast = newCustomer(world);
    world.control.setWebhookUrl({ accountId: slow.accountId, url: "http://127.0.0.1:9/hangs" });
    world.control.setWebhookUrl({ accountId: fast.accountId, url: "http://127.0.0.1:9/fast" });
    await world.call("POST", "/api/v1/orders", {
      key: slow.apiKey,
      body: orderBody(),
      headers: { "Idempotency-Key": "s" },
    });
    world.advance(3000);
    let firstTickDone = false;
    const firstTick = world.sandbox.tick().then(() => (firstTickDone = true));
    expect(calls).toEqual(["http://127.0.0.1:9/hangs"]);

    const order = await world.call("POST", "/api/v1/orders", {
      key: fast.apiKey,
      body: orderBody(),
      headers: { "Idempotency-Key": "f" },
    });
    world.advance(3000);
    await world.sandbox.tick(); // resolves while the first receiver still hangs
    expect(firstTickDone).toBe(false);
    expect((await world.call("GET", `/api/v1/orders/${order.body.id}`, { key: fast.apiKey })).body.status).toBe(
      "Filled",
    );
    expect(calls).toEqual(["http://127.0.0.1:9/hangs", "http://127.0.0.1:9/fast"]);

    release!();
    await firstTick;
    expect((await webhooksOf(world, slow.accountId))[0]).toMatchObject({ state: "delivered", attempts: 1 });
  });
});
