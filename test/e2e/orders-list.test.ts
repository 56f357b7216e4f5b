import { describe, expect, it } from "vitest";
import { ADDRESS_A, ADDRESS_B, linkKey, manageWorld, type World } from "../kit/world";
import { timeText, trxText } from "#src/chat/format";
import type { ChatMessage } from "#src/telegram-fake/index";

/** The 8-character id prefixes listed on an /orders page, top to bottom. */
function listedIds(message: ChatMessage): string[] {
  return [...(message.text ?? "").matchAll(/^• ([0-9a-f]{8}) /gm)].map((match) => match[1]!);
}

describe("/orders: pages, an order card, stats", () => {
  let world: World;
  manageWorld((started) => (world = started));

  /** Twelve orders a second apart: one bandwidth, one that fails on settlement, the newest to an unactivated address. */
  async function twelveOrders() {
    const { accountId, apiKey } = world.newAccount({ trx: "100000", usdt: "0" });
    const client = world.app.deps.marketplace(() => apiKey);
    for (let i = 0; i < 12; i++) {
      if (i === 7) world.sandbox.control.failNextOrder({ accountId, mode: "async" });
      if (i === 11) world.sandbox.control.markUnactivated({ address: ADDRESS_B });
      const resource = i === 3 ? "bandwidth" : "energy";
      await client.createOrder(
        { resource, targetAddress: i === 11 ? ADDRESS_B : ADDRESS_A, volume: 65000 + i * 1000, duration: "1h" },
        `order-${i}`,
      );
      world.advance(1000);
    }
    world.sandbox.control.settleNow({ accountId });
    return { accountId, apiKey };
  }

  it("Next twice and Prev back show 5, 5 and 2 distinct orders, newest first, editing one message", async () => {
    const { accountId, apiKey } = await twelveOrders();
    const user = world.user(801);
    await linkKey(world, user, apiKey);
    const newestFirst = world.sandbox.control.listOrders(accountId).map((order) => order.id.slice(0, 8));
    expect(newestFirst).toHaveLength(12);

    user.send("/orders");
    const first = await user.nextMessage();
    expect(first.text).toContain("page 1 of 3, 12 in all");
    expect(listedIds(first)).toEqual(newestFirst.slice(0, 5));
    const labels = (message: ChatMessage) => message.replyMarkup!.inline_keyboard.flat().map((button) => button.text);
    expect(labels(first).some((text) => /Prev/.test(text))).toBe(false);
    expect(labels(first).some((text) => /Next/.test(text))).toBe(true);

    user.press(/Next/);
    const second = await user.nextBotEvent();
    expect(second.kind).toBe("edit");
    expect(second.message.messageId).toBe(first.messageId);
    expect(second.message.text).toContain("page 2 of 3");
    expect(listedIds(second.message)).toEqual(newestFirst.slice(5, 10));

    user.press(/Next/);
    const third = await user.nextBotEvent();
    expect(third.message.text).toContain("page 3 of 3");
    expect(listedIds(third.message)).toEqual(newestFirst.slice(10, 12));
    expect(labels(third.message).some((text) => /Next/.test(text))).toBe(false);

    user.press(/Prev/);
    const back = await user.nextBotEvent();
    expect(back.message.messageId).toBe(first.messageId);
    expect(back.message.text).toContain("page 2 of 3");
    expect(listedIds(back.message)).toEqual(newestFirst.slice(5, 10));

    const seen = [...listedIds(first), ...listedIds(second.message), ...listedIds(third.message)];
    expect(new Set(seen).size).toBe(12);
  });

  it("an order card shows every field, the sandbox's made-up transaction without an explorer link; Back returns to its page", async () => {
    const { accountId, apiKey } = await twelveOrders();
    const user = world.user(802);
    await linkKey(world, user, apiKey);
    const order = world.sandbox.control.listOrders(accountId)[0]!;
    expect(order.volume).toBe(76000);
    expect(order.txId).toMatch(/^[0-9a-f]{64}$/);
    expect(Number(order.activationTrx)).toBeGreaterThan(0);

    user.send("/orders");
    await user.nextMessage();
    user.press(/76,000/);
    const card = (await user.nextBotEvent()).message;
    for (const line of [
      `Order ${order.id}`,
      "Status: Filled",
      "Resource: Energy",
      "Volume: 76,000",
      "Duration: 1h",
      ADDRESS_B,
      `Price: ${trxText(order.priceTrx, "en")}`,
      `Activation: ${trxText(order.activationTrx, "en")}`,
      `Total: ${trxText(order.totalTrx, "en")}`,
      "Transaction: sandbox transaction",
      `Created: ${timeText(order.createdAt)}`,
    ]) {
      expect(card.text).toContain(line);
    }
    expect(card.entities?.some((entity) => entity.type === "text_link")).toBe(false);

    user.press(/Back/);
    const back = await user.nextBotEvent();
    expect(back.message.messageId).toBe(card.messageId);
    expect(back.message.text).toContain("page 1 of 3");
  });

  it("Stats equal the marketplace's totalOrders and energyDeliveredThisMonth", async () => {
    const { apiKey } = await twelveOrders();
    const user = world.user(803);
    await linkKey(world, user, apiKey);
    const response = await fetch(`${world.marketplaceUrl}/api/v1/orders/stats`, { headers: { "X-Api-Key": apiKey } });
    const stats = (await response.json()) as { totalOrders: number; energyDeliveredThisMonth: number | string };
    // one bandwidth order and one failed order do not count as energy delivered
    const energy = Array.from({ length: 12 }, (_, i) => 65000 + i * 1000)
      .filter((_, i) => i !== 3 && i !== 7)
      .reduce((sum, volume) => sum + volume, 0);
    expect(stats).toMatchObject({ totalOrders: 12 });
    expect(Number(stats.energyDeliveredThisMonth)).toBe(energy);

    user.send("/orders");
    await user.nextMessage();
    user.press(/Stats/);
    const shown = (await user.nextBotEvent()).message.text ?? "";
    expect(shown).toContain(`Total orders: ${stats.totalOrders}`);
    expect(shown).toContain(`Energy delivered this month: ${energy.toLocaleString("en-US")}`);
  });
});
