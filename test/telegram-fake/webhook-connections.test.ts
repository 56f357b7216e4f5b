import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import type { FakeTelegramOptions, FakeUser } from "#src/telegram-fake/index";
import { world } from "./grammy-helpers";

const users: FakeUser[] = [1, 2, 3].map((n) => ({ id: 5000 + n, firstName: `U${n}` }));
const HOLD_MS = 150;

interface Delivery {
  updateId: number;
  chat: number;
  start: number;
  end: number;
}

const servers: Server[] = [];
afterEach(async () => {
  for (const server of servers.splice(0)) await new Promise<void>((resolve) => server.close(() => resolve()));
});

/** A webhook that takes HOLD_MS per update and fails the first attempt of `failOnce`. */
async function webhook(options: Partial<FakeTelegramOptions>, failOnce = new Set<number>()) {
  const deliveries: Delivery[] = [];
  const server = createServer((req, res) => {
    let body = "";
    req.on("data", (chunk: Buffer) => (body += chunk.toString()));
    req.on("end", () => {
      const update = JSON.parse(body) as { update_id: number; message: { chat: { id: number } } };
      const start = Date.now();
      setTimeout(() => {
        deliveries.push({ updateId: update.update_id, chat: update.message.chat.id, start, end: Date.now() });
        const fail = failOnce.delete(update.update_id);
        res.writeHead(fail ? 500 : 200).end();
      }, HOLD_MS);
    });
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", () => resolve()));
  const telegram = await world(options);
  await telegram.bot.api.setWebhook(`http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`);
  return { ...telegram, deliveries };
}

const overlap = (a: Delivery, b: Delivery) => a.start < b.end && b.start < a.end;
const maxInFlight = (deliveries: Delivery[]) =>
  Math.max(...deliveries.map((d) => deliveries.filter((o) => overlap(d, o)).length));

describe("webhook delivery", () => {
  it("posts one update at a time, oldest first, by default", async () => {
    const { fake, deliveries } = await webhook({});
    for (const user of users) fake.sendText(user, "hi");
    await expect.poll(() => deliveries.length, { timeout: 5_000 }).toBe(3);
    expect(maxInFlight(deliveries)).toBe(1);
    expect(deliveries.map((d) => d.updateId)).toEqual([1, 2, 3]);
  });

  it("with maxConnections posts different chats in parallel, one chat's updates one at a time and in order, a failed one retried before its chat moves on", async () => {
    const { fake, deliveries } = await webhook({ webhook: { maxConnections: 3 } }, new Set([1]));
    fake.sendText(users[0]!, "first");
    fake.sendText(users[0]!, "second");
    fake.sendText(users[1]!, "x");
    fake.sendText(users[2]!, "y");
    await expect.poll(() => deliveries.length, { timeout: 5_000 }).toBe(5);
    const ofChat = (chat: number) => deliveries.filter((d) => d.chat === chat);
    expect(ofChat(users[0]!.id).map((d) => d.updateId)).toEqual([1, 1, 2]);
    const [failed, retried, second] = ofChat(users[0]!.id);
    expect(retried!.start).toBeGreaterThanOrEqual(failed!.end + 900);
    expect(second!.start).toBeGreaterThanOrEqual(retried!.end);
    // the other chats did not wait for chat 1's retry
    expect(ofChat(users[1]!.id)[0]!.start).toBeLessThan(failed!.end);
    expect(ofChat(users[2]!.id)[0]!.start).toBeLessThan(failed!.end);
    expect(maxInFlight(deliveries)).toBe(3);
  });

  it("with sameChatInParallel posts two updates of one chat at once, each once", async () => {
    const { fake, deliveries } = await webhook({ webhook: { maxConnections: 2, sameChatInParallel: true } });
    fake.sendText(users[0]!, "first");
    fake.sendText(users[0]!, "second");
    await expect.poll(() => deliveries.length, { timeout: 5_000 }).toBe(2);
    expect(overlap(deliveries[0]!, deliveries[1]!)).toBe(true);
    expect(deliveries.map((d) => d.updateId).sort()).toEqual([1, 2]);
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(deliveries).toHaveLength(2);
  });
});
