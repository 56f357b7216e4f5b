import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { Api } from "grammy";
import { afterEach, describe, expect, it } from "vitest";
import { BOT_TOKEN, manageWorld, type World } from "../kit/world";
import { botTexts, linkedUser, outboxOf, outboxSwept, waitFor } from "../kit/push-helpers";

const filled = (id: string) => ({
  event: "order.filled",
  data: { id, status: "Filled", resource: "energy", volume: "65000", totalTrx: "4.6475" },
});

/**
 * A Bot API in front of the fake: answers with a fault when `fault` says so (the fake never sees
 * those calls), forwards everything else. Records every sendMessage attempt with its time.
 */
async function faultyTelegram(
  world: World,
  fault: (chatId: number, attempt: number) => { status: number; description: string; retryAfter?: number } | null,
) {
  const attempts: Array<{ chatId: number; at: number; status: number }> = [];
  const server: Server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on("data", (chunk: Buffer) => chunks.push(chunk));
    request.on("end", () => {
      const body = Buffer.concat(chunks);
      const params = (request.headers["content-type"] ?? "").includes("json")
        ? (JSON.parse(body.toString() || "{}") as { chat_id?: number })
        : {};
      const chatId = Number(params.chat_id);
      const injected = request.url?.endsWith("/sendMessage")
        ? fault(chatId, attempts.filter((a) => a.chatId === chatId).length)
        : null;
      if (injected) {
        attempts.push({ chatId, at: Date.now(), status: injected.status });
        const parameters = injected.retryAfter ? { parameters: { retry_after: injected.retryAfter } } : {};
        response.writeHead(injected.status, { "content-type": "application/json" }).end(
          JSON.stringify({
            ok: false,
            error_code: injected.status,
            description: injected.description,
            ...parameters,
          }),
        );
        return;
      }
      void fetch(`${world.telegram.apiRoot}${request.url}`, {
        method: request.method,
        headers: { "content-type": request.headers["content-type"] ?? "application/json" },
        body,
      }).then(async (answer) => {
        if (request.url?.endsWith("/sendMessage")) attempts.push({ chatId, at: Date.now(), status: answer.status });
        response
          .writeHead(answer.status, { "content-type": "application/json" })
          .end(Buffer.from(await answer.arrayBuffer()));
      });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  // The running sender now talks to Telegram through the proxy.
  await world.app.push.sender.stop(0);
  world.app.push.sender.start(
    new Api(BOT_TOKEN, { apiRoot: `http://127.0.0.1:${(server.address() as AddressInfo).port}` }),
  );
  return { attempts, server };
}

describe("pushed alerts: delivery through Telegram's answers", () => {
  let world: World;
  let proxy: Server | null = null;
  manageWorld((started) => (world = started));
  afterEach(async () => {
    proxy?.closeAllConnections();
    await new Promise((resolve) => proxy?.close(resolve) ?? resolve(null));
    proxy = null;
  });

  it("429 with retry_after is waited out before the next attempt, then sent once", async () => {
    const who = await linkedUser(world, 601);
    const faulty = await faultyTelegram(world, (chatId, attempt) =>
      chatId === 601 && attempt === 0
        ? { status: 429, description: "Too Many Requests: retry after 2", retryAfter: 2 }
        : null,
    );
    proxy = faulty.server;
    await who.post(filled("60100000-0000-4000-8000-000000000001"));
    // The proxy records a forwarded attempt once the fake has answered it, a moment after the text appears.
    await waitFor(
      () =>
        botTexts(world, 601).some((t) => t.includes("Order 60100000")) &&
        faulty.attempts.filter((a) => a.chatId === 601).length >= 2,
      8000,
    );
    const tries = faulty.attempts.filter((a) => a.chatId === 601);
    expect(tries.map((a) => a.status)).toEqual([429, 200]);
    expect(tries[1]!.at - tries[0]!.at).toBeGreaterThanOrEqual(1950);
    await outboxSwept(world, 601);
    expect(botTexts(world, 601).filter((t) => t.includes("Order 60100000"))).toHaveLength(1);
  });

  it("400 drops the row without a retry; the chat's next alert still goes out", async () => {
    const who = await linkedUser(world, 602);
    const faulty = await faultyTelegram(world, (chatId, attempt) =>
      chatId === 602 && attempt === 0 ? { status: 400, description: "Bad Request: message is too long" } : null,
    );
    proxy = faulty.server;
    await who.post(filled("60200000-0000-4000-8000-000000000001"));
    await waitFor(async () => (await outboxOf(world, 602)).some((row) => row.status === "dropped"));
    await who.post(filled("60200000-0000-4000-8000-000000000002"));
    await waitFor(() => botTexts(world, 602).some((t) => t.includes("Order 60200000")));
    // Sent and dropped, and a pass of the sender after that: a retry of the dropped row would have gone by now.
    await outboxSwept(world, 602);
    expect(faulty.attempts.filter((a) => a.chatId === 602).map((a) => a.status)).toEqual([400, 200]);
    const rows = await outboxOf(world, 602);
    expect(rows.map((row) => row.status).sort()).toEqual(["dropped", "sent"]);
    expect(rows.find((row) => row.status === "dropped")?.last_error).toContain("message is too long");
  });

  it("403 drops that user's other queued alerts without calling Telegram again", async () => {
    await linkedUser(world, 603);
    world.fake.blockUser(603);
    await world.app.push.sender.stop(0);
    const now = Date.now();
    const rows = [1, 2, 3].map((i) => ({
      telegram_id: 603,
      chat_id: 603,
      dedupe_key: `blocked:${i}`,
      payload: JSON.stringify({ method: "sendMessage", params: { text: `alert ${i}` } }),
      status: "queued",
      attempts: 0,
      next_attempt_at: now,
      last_error: null,
      lease_owner: null,
      lease_until: null,
      created_at: now,
      sent_at: null,
    }));
    await world.app.db.insertInto("outbox").values(rows).execute();
    const before = world.fake.calls.length;
    world.app.push.sender.start(new Api(BOT_TOKEN, { apiRoot: world.telegram.apiRoot }));
    await waitFor(async () => (await outboxOf(world, 603)).every((row) => row.status === "dropped"));
    await outboxSwept(world, 603);
    const sends = world.fake.calls
      .slice(before)
      .filter((c) => c.method === "sendMessage" && Number(c.params.chat_id) === 603);
    expect(sends).toHaveLength(1);
    expect(sends[0]!.errorCode).toBe(403);
    const user = await world.app.db
      .selectFrom("users")
      .selectAll()
      .where("telegram_id", "=", 603)
      .executeTakeFirstOrThrow();
    expect(user.active).toBe(0);
  });
});

describe("pushed alerts: Telegram down and back up in one running process", () => {
  let world: World;
  manageWorld((started) => (world = started), { timeScale: 10 });

  it("every alert queued while Telegram was down goes out once when it is back", async () => {
    const who = await linkedUser(world, 604);
    // The sender tries while Telegram is down (a failed attempt is recorded, with how it failed),
    // not merely queues: a chat's alerts go out in order, so the second waits behind the first.
    const failedWith = async (error: (lastError: string) => boolean) =>
      (await outboxOf(world, 604)).some(
        (row) => row.status === "queued" && row.attempts >= 1 && error(row.last_error ?? ""),
      );
    world.fake.setDown("5xx");
    await who.post(filled("60400000-0000-4000-8000-000000000001"));
    await waitFor(() => failedWith((error) => error !== "" && error !== "network error"));
    world.fake.setDown("refuse");
    await who.post(filled("60400000-0000-4000-8000-000000000002"));
    await waitFor(() => failedWith((error) => error === "network error"));
    expect(botTexts(world, 604).filter((t) => t.includes("Order 60400000"))).toHaveLength(0);
    world.fake.setDown(null);
    await waitFor(() => botTexts(world, 604).filter((t) => t.includes("Order 60400000")).length >= 2, 15_000);
    await outboxSwept(world, 604);
    expect(botTexts(world, 604).filter((t) => t.includes("Order 60400000"))).toHaveLength(2);
    expect(
      (await outboxOf(world, 604))
        .filter((row) => row.dedupe_key.startsWith("order:"))
        .every((row) => row.status === "sent"),
    ).toBe(true);
  }, 30_000);
});
