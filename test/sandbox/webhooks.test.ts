import { createServer } from "node:http";
import type { IncomingHttpHeaders, Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { createSandboxWorld, newCustomer, orderBody } from "./sandbox-world";

interface Received {
  headers: IncomingHttpHeaders;
  body: unknown;
}

let server: Server | undefined;

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
    const order = (await world.call("POST", "/api/v1/orders", { key: apiKey, body: orderBody(), headers: { "Idempotency-Key": "w" } })).body;

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
    expect(second!.body).toMatchObject({ event: "order.filled", createdAt: "2025-03-10T12:00:03.000Z", data: { order: { id: order.id, status: "Filled" } } });
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
    expect(receiver.received[0]!.body).toMatchObject({ event: "order.failed", data: { order: { status: "Failed", txId: null } } });
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

  it("sends nothing when no URL is set and stops after the URL is cleared", async () => {
    let calls = 0;
    const world = createSandboxWorld("2025-03-10T12:00:00.000Z", {
      webhookFetch: async () => {
        calls += 1;
        return new Response("ok");
      },
    });
    const { accountId, apiKey } = newCustomer(world);
    await world.call("POST", "/api/v1/orders", { key: apiKey, body: orderBody(), headers: { "Idempotency-Key": "1" } });
    world.control.settleNow({ accountId });
    await world.sandbox.tick();
    expect(calls).toBe(0);
    world.control.setWebhookUrl({ accountId, url: "http://127.0.0.1:9/x" });
    await world.call("POST", "/api/v1/orders", { key: apiKey, body: orderBody(), headers: { "Idempotency-Key": "2" } });
    world.control.settleNow({ accountId });
    await world.sandbox.tick();
    expect(calls).toBe(1);
    expect(() => world.control.setWebhookUrl({ accountId, url: "ftp://x" })).toThrow(/url/);
  });
});
