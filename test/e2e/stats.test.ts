import { randomBytes } from "node:crypto";
import { afterEach, describe, expect, it } from "vitest";
import { startApp, type App } from "#src/app";
import { PNG } from "pngjs";
import { linkKey, manageWorld, type World } from "../kit/world";
import { groupThousands } from "#src/marketplace/money";
import { expectedFigures } from "../kit/spending-oracle";
import { CHART_PIXELS } from "#src/reports/report";
import { lastDays } from "#src/reports/time-zones";
import { STATS_REQUEST_LIMIT } from "#src/reports/collect";
import { STATS_FRESH_MS } from "#src/reports/cache";
import type { ChatMessage } from "#src/telegram-fake/index";

const DAY = 86_400_000;

function decodePng(message: ChatMessage): PNG {
  expect(message.photo).toBeDefined();
  const bytes = Buffer.from(message.photo!.bytes);
  expect(bytes.subarray(0, 8).equals(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]))).toBe(true);
  return PNG.sync.read(bytes);
}

const labels = (message: ChatMessage) =>
  (message.replyMarkup?.inline_keyboard ?? []).flat().map((button) => button.text);

describe("/stats", () => {
  let world: World;
  manageWorld((started) => (world = started));

  async function linkedUser(id: number) {
    const account = world.newAccount({ trx: "2000", usdt: "0" });
    const user = world.user(id);
    await linkKey(world, user, account.apiKey);
    return { ...account, user };
  }

  it("charts a month of the sandbox's orders, firings and ledger: a PNG of the stated size, figures equal to the sandbox's records, and 30 days edits the same message from memory", async () => {
    const { accountId, apiKey, user } = await linkedUser(7101);
    const filled = world.sandbox.control.fillHistory({ accountId, days: 30 });
    expect(filled.orders).toBeGreaterThan(10);
    expect(filled.failedOrders).toBeGreaterThan(0);
    expect(filled.firings).toBeGreaterThan(30);

    const before = world.sandboxRequests.length;
    user.send("/stats");
    const chart = await user.nextMessage({ timeoutMs: 15_000 });
    const png = decodePng(chart);
    expect({ width: png.width, height: png.height }).toEqual(CHART_PIXELS);
    expect({ width: chart.photo!.width, height: chart.photo!.height }).toEqual(CHART_PIXELS);
    // not a blank picture: the card's background and bars of other colours
    const colours = new Set<number>();
    for (let offset = 0; offset < png.data.length; offset += 4 * 97) colours.add(png.data.readUInt32BE(offset));
    expect(colours.size).toBeGreaterThan(8);

    const read = world.sandboxRequests.slice(before).filter((request) => request.includes("/api/v1/"));
    expect(read.length).toBeLessThanOrEqual(STATS_REQUEST_LIMIT);
    expect(read.some((request) => request === "GET /api/v1/orders")).toBe(true);
    expect(read.some((request) => request === "GET /api/v1/wallet/transactions")).toBe(true);
    expect(read.some((request) => /^GET \/api\/v1\/automations\/[^/]+\/fires$/.test(request))).toBe(true);
    expect(read).toContain("GET /api/v1/orders/stats");

    const week = await expectedFigures(world, accountId, lastDays("UTC", 7, Date.now()));
    expect(week.spent).toBeGreaterThan(0n);
    const caption = chart.caption ?? "";
    expect(caption).toContain("Spending, last 7 days");
    for (const line of Object.values(week.lines)) expect(caption).toContain(line);
    // the saving says how it is estimated, and the marketplace's own order stats are shown as stated
    expect(caption).toContain("burn cost (210 sun a unit, from an order preview now)");
    const stats = (await (
      await fetch(`${world.marketplaceUrl}/api/v1/orders/stats`, { headers: { "X-Api-Key": apiKey } })
    ).json()) as { totalOrders: number; energyDeliveredThisMonth: number };
    expect(caption).toContain(
      `The marketplace's own figures for your key: ${groupThousands(stats.totalOrders)} ${Number(stats.totalOrders) === 1 ? "order" : "orders"} in all · ${groupThousands(stats.energyDeliveredThisMonth)} energy delivered this calendar month`,
    );
    expect(caption).not.toContain("Partial");
    expect(labels(chart)).toEqual(["✅ 7 days", "30 days"]);

    const beforeSwitch = world.sandboxRequests.length;
    user.press("30 days");
    const edit = await user.nextBotEvent({ timeoutMs: 15_000 });
    expect(edit.kind).toBe("edit");
    expect(edit.message.messageId).toBe(chart.messageId);
    expect(edit.message.photo!.fileId).not.toBe(chart.photo!.fileId);
    expect(decodePng(edit.message).width).toBe(CHART_PIXELS.width);
    const month = await expectedFigures(world, accountId, lastDays("UTC", 30, Date.now()));
    expect(month.spent).toBeGreaterThan(week.spent);
    for (const line of Object.values(month.lines)) expect(edit.message.caption).toContain(line);
    expect(edit.message.caption).toContain("Spending, last 30 days");
    expect(labels(edit.message)).toEqual(["7 days", "✅ 30 days"]);
    // served from the few minutes' cache: the switch read nothing again
    expect(world.sandboxRequests.slice(beforeSwitch).filter((request) => request.includes("/api/v1/"))).toEqual([]);

    user.press("7 days");
    const back = await user.nextBotEvent({ timeoutMs: 15_000 });
    expect(back.kind).toBe("edit");
    expect(back.message.messageId).toBe(chart.messageId);
    for (const line of Object.values(week.lines)) expect(back.message.caption).toContain(line);
  });

  it("says nothing was spent instead of drawing an empty chart; the switch edits that text, and a window with spending replaces it with the chart", async () => {
    const { accountId, user } = await linkedUser(7102);
    user.send("/stats");
    const empty = await user.nextMessage({ timeoutMs: 15_000 });
    expect(empty.photo).toBeUndefined();
    expect(empty.text).toContain("Spending, last 7 days");
    expect(empty.text).toContain("Nothing spent in this period.");
    expect(world.fake.calls.some((call) => call.method === "sendPhoto")).toBe(false);

    user.press("30 days");
    const edited = await user.nextBotEvent({ timeoutMs: 15_000 });
    expect(edited.kind).toBe("edit");
    expect(edited.message.messageId).toBe(empty.messageId);
    expect(edited.message.text).toContain("last 30 days");
    expect(edited.message.text).toContain("Nothing spent in this period.");

    // history from 30 to 12 days ago: the last 7 days stay empty, the last 30 do not
    world.advance(-12 * DAY);
    world.sandbox.control.fillHistory({ accountId, days: 18 });
    world.advance(12 * DAY);
    // a new /stats a minute later reads again (the switch alone reuses the last read for longer)
    world.shiftAppClock(STATS_FRESH_MS);
    user.send("/stats");
    const stillEmpty = await user.nextMessage({ timeoutMs: 15_000 });
    expect(stillEmpty.text).toContain("Nothing spent in this period.");
    user.press("30 days");
    const deleted = await user.nextBotEvent({ timeoutMs: 15_000 });
    expect(deleted.kind).toBe("delete");
    expect(deleted.message.messageId).toBe(stillEmpty.messageId);
    const chart = await user.nextMessage({ timeoutMs: 15_000 });
    expect(decodePng(chart).height).toBe(CHART_PIXELS.height);
    const month = await expectedFigures(world, accountId, lastDays("UTC", 30, Date.now()));
    expect(chart.caption).toContain(month.lines.spent);
    expect(chart.caption).toContain(month.lines.orders);
  });

  it("says the figures are partial when a window needs more than the bounded requests (a rule's firings past the 50 listed)", async () => {
    const { apiKey, user } = await linkedUser(7103);
    const response = await fetch(`${world.marketplaceUrl}/api/v1/automations/smart`, {
      method: "POST",
      headers: { "X-Api-Key": apiKey, "Content-Type": "application/json" },
      body: JSON.stringify({ targetAddress: "TNPeeaaFB7K9cmo4uQpcU32zGK8G1NYqeL" }),
    });
    const rule = (await response.json()) as { id: string };
    for (let i = 0; i < 55; i++) expect(world.sandbox.control.fireRule({ ruleId: rule.id }).fired).toBe(true);
    user.send("/stats");
    const chart = await user.nextMessage({ timeoutMs: 15_000 });
    expect(chart.caption).toContain(`⚠️ Partial figures: more rule firings than ${STATS_REQUEST_LIMIT} requests read.`);
    // what could be read is shown: the 50 firings listed
    expect(chart.caption).toContain("Rule firings: 50");
  });

  it("while the marketplace is down says so and sends no chart, and caches nothing: once it answers, /stats charts", async () => {
    const { accountId, user } = await linkedUser(7105);
    world.sandbox.control.fillHistory({ accountId, days: 10 });
    world.sandbox.control.injectFault({ pathPrefix: "/api/v1/orders", status: 503, times: 50 });
    user.send("/stats");
    const down = await user.nextMessage({ timeoutMs: 15_000 });
    expect(down.text).toContain("not answering");
    expect(down.photo).toBeUndefined();
    expect(world.fake.calls.some((call) => call.method === "sendPhoto" && Number(call.params.chat_id) === 7105)).toBe(
      false,
    );

    world.sandbox.control.clearFaults();
    user.send("/stats");
    const chart = await user.nextMessage({ timeoutMs: 15_000 });
    expect(decodePng(chart).width).toBe(CHART_PIXELS.width);
    const week = await expectedFigures(world, accountId, lastDays("UTC", 7, Date.now()));
    for (const line of Object.values(week.lines)) expect(chart.caption).toContain(line);
  });

  it("without a linked key, asks to connect one", async () => {
    const user = world.user(7104);
    user.send("/stats");
    const reply = await user.nextMessage();
    expect(reply.text).toContain("/connect");
    expect(world.fake.calls.some((call) => call.method === "sendPhoto")).toBe(false);
  });
});

describe("/stats in the local playground", () => {
  let app: App | undefined;
  afterEach(async () => {
    await app?.stop();
    app = undefined;
  });

  it("the panel fills a month of history in one press, and the chat shows the chart, switched in place to 30 days", async () => {
    app = await startApp({
      env: { DATABASE_URL: ":memory:", PORT: "0", SECRET_KEY: randomBytes(32).toString("base64"), LOG_LEVEL: "silent" },
      perChatMinTimeMs: 0,
    });
    const base = `${app.url}/play/api`;
    const headers = { "content-type": "application/json", origin: new URL(app.url).origin };
    const post = async (path: string, body: object) => {
      const response = await fetch(`${base}${path}`, { method: "POST", headers, body: JSON.stringify(body) });
      expect(response.status, `${path}: ${await response.clone().text()}`).toBe(200);
      return (await response.json()) as Record<string, unknown>;
    };
    type View = {
      messageId: number;
      from: string;
      deleted: boolean;
      caption?: string;
      photo?: { src: string | null; width?: number; height?: number };
      replyMarkup?: { inline_keyboard: Array<Array<{ text: string; callback_data?: string }>> };
    };
    const userId = 515151;
    const botMessages = async () =>
      ((await (await fetch(`${base}/chat?userId=${userId}`)).json()) as { messages: View[] }).messages.filter(
        (m) => m.from === "bot" && !m.deleted,
      );
    const waitFor = async <T>(read: () => Promise<T | undefined>, what: string): Promise<T> => {
      for (let i = 0; i < 300; i++) {
        const value = await read();
        if (value) return value;
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      throw new Error(`timed out waiting for ${what}`);
    };

    const config = (await (await fetch(`${base}/config`)).json()) as { demo: { apiKey: string } };
    await post("/send", { userId, text: `/connect ${config.demo.apiKey}` });
    await waitFor(async () => (await botMessages()).find((m) => /linked/i.test(JSON.stringify(m))), "the key linked");
    const filled = (await post("/sandbox/fill-history", { days: 30 })) as {
      result: { orders: number; firings: number };
    };
    expect(filled.result.firings).toBeGreaterThan(30);

    await post("/send", { userId, text: "/stats" });
    const chart = await waitFor(
      async () => (await botMessages()).find((m) => m.photo?.src && m.caption?.includes("last 7 days")),
      "the chart",
    );
    expect({ width: chart.photo!.width, height: chart.photo!.height }).toEqual(CHART_PIXELS);
    const image = await fetch(`${app.url}${chart.photo!.src}`);
    expect(image.headers.get("content-type")).toBe("image/png");
    expect(PNG.sync.read(Buffer.from(await image.arrayBuffer())).width).toBe(CHART_PIXELS.width);

    const button = chart.replyMarkup!.inline_keyboard.flat().find((b) => b.text === "30 days")!;
    await post("/press", { userId, messageId: chart.messageId, callbackData: button.callback_data });
    const switched = await waitFor(
      async () =>
        (await botMessages()).find((m) => m.messageId === chart.messageId && m.caption?.includes("last 30 days")),
      "the 30-day chart",
    );
    // the same message, a new picture at a new address (a browser's cached copy is not shown)
    expect(switched.photo!.src).not.toBe(chart.photo!.src);
  });
});
