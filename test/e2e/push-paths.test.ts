import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { manageWorld, type World } from "../kit/world";
import { botTexts, buyThroughBot, linkedUser, outboxOf, outboxSwept, waitFor } from "../kit/push-helpers";

/** One event reaching the bot by several paths (sandbox webhooks, the order follower, the notification poller) gives one alert. */
describe("pushed alerts: one event, one alert, whichever way it came", () => {
  let world: World;
  manageWorld((started) => (world = started));

  const settlementAlerts = (chatId: number, orderId: string) =>
    botTexts(world, chatId).filter((t) => t.includes(`Order ${orderId.slice(0, 8)}`) && /filled|failed/.test(t));

  it("the sandbox's own webhooks for one filled and one failed order give exactly one alert each", async () => {
    const who = await linkedUser(world, 501);
    world.sandbox.control.setWebhookUrl({ accountId: who.accountId, url: who.webhookUrl });
    const filled = await buyThroughBot(world, who);
    world.sandbox.control.failNextOrder({ accountId: who.accountId, mode: "async" });
    const failed = await buyThroughBot(world, who);
    world.sandbox.control.settleNow({ accountId: who.accountId });
    await world.sandbox.tick();
    await waitFor(() => settlementAlerts(501, filled).length > 0 && settlementAlerts(501, failed).length > 0);
    // The follower (every 2 s) sees the same settlements: still one alert each.
    await world.app.push.checkOrdersNow(501);
    await outboxSwept(world, 501);
    expect(settlementAlerts(501, filled)).toHaveLength(1);
    expect(settlementAlerts(501, filled)[0]).toContain("filled");
    expect(settlementAlerts(501, failed)).toHaveLength(1);
    expect(settlementAlerts(501, failed)[0]).toContain("refunded");
    expect((await outboxOf(world, 501)).filter((row) => row.dedupe_key.startsWith("order:"))).toHaveLength(2);
  });

  describe("when the bot's first answer to a webhook is lost", () => {
    let proxy: Server | null = null;
    afterEach(async () => {
      proxy?.closeAllConnections();
      await new Promise((resolve) => proxy?.close(resolve) ?? resolve(null));
      proxy = null;
    });

    it("the sandbox's retry is acknowledged as a duplicate and still gives one alert", async () => {
      const who = await linkedUser(world, 502);
      // In front of the bot: every delivery reaches it, but the first answer the sandbox sees is a 502.
      const seen: number[] = [];
      proxy = createServer((request, response) => {
        const chunks: Buffer[] = [];
        request.on("data", (chunk: Buffer) => chunks.push(chunk));
        request.on("end", () => {
          void fetch(who.webhookUrl, {
            method: "POST",
            headers: { "content-type": "application/json" },
            body: Buffer.concat(chunks),
          }).then(async (answer) => {
            seen.push(answer.status);
            await answer.arrayBuffer();
            response.writeHead(seen.length === 1 ? 502 : answer.status).end();
          });
        });
      });
      await new Promise<void>((resolve) => proxy!.listen(0, "127.0.0.1", resolve));
      world.sandbox.control.setWebhookUrl({
        accountId: who.accountId,
        url: `http://127.0.0.1:${(proxy.address() as AddressInfo).port}/hook`,
      });
      const orderId = await buyThroughBot(world, who);
      world.sandbox.control.settleNow({ accountId: who.accountId });
      await world.sandbox.tick();
      expect(seen).toEqual([200]);
      world.advance(1_000);
      await world.sandbox.tick();
      expect(seen).toEqual([200, 200]);
      await waitFor(() => settlementAlerts(502, orderId).length > 0);
      await outboxSwept(world, 502);
      expect(settlementAlerts(502, orderId)).toHaveLength(1);
      world.advance(10_000);
      await world.sandbox.tick();
      expect(seen).toHaveLength(2);
    });
  });

  it("the order follower alone (no webhook, no poll) alerts once, and a nudge checks a fresh order at once", async () => {
    const who = await linkedUser(world, 503);
    const orderId = await buyThroughBot(world, who);
    world.sandbox.control.settleNow({ accountId: who.accountId });
    // The order is younger than the follower's first check (2 s): the nudge checks it anyway.
    expect(await world.app.push.checkOrdersNow(503)).toBe(1);
    await waitFor(() => settlementAlerts(503, orderId).length > 0, 3000);
    // The settled order is followed no more: a pass that ignores back-off checks nothing, so no
    // background pass can alert again.
    expect(await world.app.push.checkOrdersNow(503)).toBe(0);
    expect(await world.app.push.checkOrdersNow()).toBe(0);
    await outboxSwept(world, 503);
    expect(settlementAlerts(503, orderId)).toHaveLength(1);
    expect(await world.app.db.selectFrom("poll_cycles").selectAll().execute()).toHaveLength(0);
  });

  it("webhook, follower and a settlement notification (read before the order settled) give one alert", async () => {
    const who = await linkedUser(world, 504);
    const orderId = await buyThroughBot(world, who);
    // A settlement notification whose order still reads Created is not relayed yet.
    world.sandbox.control.addNotification({
      accountId: who.accountId,
      type: "order.filled",
      title: "Order filled",
      body: `Order ${orderId}: delivered.`,
    });
    await world.app.push.pollNow();
    await outboxSwept(world, 504);
    expect(botTexts(world, 504).some((t) => t.includes("Order filled") || t.includes("filled."))).toBe(false);
    world.sandbox.control.settleNow({ accountId: who.accountId });
    await world.app.push.pollNow();
    await world.app.push.checkOrdersNow(504);
    const order = world.sandbox.control.listOrders(who.accountId)[0]!;
    expect((await who.post({ event: "order.filled", data: { order } })).status).toBe(200);
    await waitFor(() => settlementAlerts(504, orderId).length > 0);
    await outboxSwept(world, 504);
    expect(settlementAlerts(504, orderId)).toHaveLength(1);
    expect(botTexts(world, 504).filter((t) => t.includes("Order filled"))).toHaveLength(0);
    expect((await outboxOf(world, 504)).map((row) => row.dedupe_key)).toEqual([`order:${orderId}:filled`]);
  });

  it("/settings with Order settled switched off suppresses the alert", async () => {
    const who = await linkedUser(world, 505);
    who.user.send("/settings");
    await who.user.nextMessage();
    who.user.press(/Order settled/);
    const edit = await who.user.nextBotEvent();
    expect(edit.message.text).toContain("🔕 Order settled: off");
    const orderId = await buyThroughBot(world, who);
    world.sandbox.control.settleNow({ accountId: who.accountId });
    const order = world.sandbox.control.listOrders(who.accountId)[0]!;
    expect((await who.post({ event: "order.filled", data: { order } })).status).toBe(200);
    await world.app.push.checkOrdersNow(505);
    await world.app.push.pollNow();
    await outboxSwept(world, 505);
    expect(settlementAlerts(505, orderId)).toHaveLength(0);
    expect(await outboxOf(world, 505)).toHaveLength(0);
  });

  it("events that are not about an order are acknowledged and queue nothing; no event name is still 422", async () => {
    const who = await linkedUser(world, 506);
    expect((await who.post({ event: "ping" })).status).toBe(200);
    expect((await who.post({ event: "deposit.credited", data: { amount: "100", currency: "TRX" } })).status).toBe(200);
    expect((await who.post({ type: "constructor" })).status).toBe(200);
    expect((await who.post({ data: { amount: "1" } })).status).toBe(422);
    expect((await who.post({ event: "order.filled" })).status).toBe(422);
    await outboxSwept(world, 506);
    expect(await outboxOf(world, 506)).toHaveLength(0);
    expect(world.logs()).toContain("acknowledged without an alert");
  });

  it("a revoked key is told once, whether the poller or the follower meets it, and polling stops", async () => {
    const who = await linkedUser(world, 507);
    await buyThroughBot(world, who);
    world.sandbox.control.revokeKey({ apiKey: who.apiKey });
    await world.app.push.pollNow();
    await world.app.push.checkOrdersNow(507);
    await waitFor(() => botTexts(world, 507).some((t) => t.includes("refused your API key")));
    expect((await world.app.push.pollNow())?.users).toBe(0);
    expect(await world.app.push.checkOrdersNow(507)).toBe(0);
    await outboxSwept(world, 507);
    const told = botTexts(world, 507).filter((t) => t.includes("refused your API key"));
    expect(told).toHaveLength(1);
    expect(told[0]).toContain(who.apiKey.slice(-4));
    expect(told[0]).toContain("/connect");
    const credential = await world.app.db
      .selectFrom("credentials")
      .selectAll()
      .where("telegram_id", "=", 507)
      .executeTakeFirstOrThrow();
    expect(credential.broken_at).not.toBeNull();
  });

  it("a System pause whose rule cannot be matched names no empty id: the reason, a /rules hint and Top up", async () => {
    const who = await linkedUser(world, 508);
    world.sandbox.control.addNotification({
      accountId: who.accountId,
      type: "automation.paused",
      title: "Automation paused",
      body: "A rule was paused: the balance cannot cover the next delivery.",
    });
    await world.app.push.pollNow();
    const alert = await waitFor(() =>
      world.fake.messages(508).find((m) => m.from === "bot" && m.text?.includes("paused")),
    );
    expect(alert.html).not.toContain("<code></code>");
    expect(alert.text).toContain("One of your rules was paused");
    // The reason once, in the bot's words (this text names no figures).
    expect(alert.text).toContain("Why: not enough balance for the next delivery.");
    expect(alert.text).not.toContain("cannot cover");
    expect(alert.text).toContain("/rules");
    expect(alert.replyMarkup!.inline_keyboard.flat().map((b) => b.text)).toEqual(["💳 Top up"]);
  });
});
