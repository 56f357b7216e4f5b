import { describe, expect, it } from "vitest";
import type { FakeTelegram, InlineAnswer } from "#src/telegram-fake/index";
import { FLOOD_MAX_UPDATES, FLOOD_WINDOW_MS } from "#src/bot/middleware/rate-limit";
import { createWatch } from "#src/db/repos/watches";
import { MAX_WATCH_RENTS_PER_TICK } from "#src/push/price-watch-job";
import { STATS_FRESH_MS } from "#src/reports/cache";
import { MAX_PUBLIC_QUOTES_IN_FLIGHT } from "#src/marketplace/public-quotes";
import { linkedUser, manageWorld, type World } from "../kit/world";

/** The bot's answer to an inline query, once it gave one. */
async function answerTo(fake: FakeTelegram, inlineQueryId: string, timeoutMs = 15_000): Promise<InlineAnswer> {
  for (
    const started = Date.now();
    Date.now() - started < timeoutMs;
    await new Promise((resolve) => setTimeout(resolve, 20))
  ) {
    const answer = fake.inlineAnswer(inlineQueryId);
    if (answer) return answer;
  }
  throw new Error(`inline query ${inlineQueryId} was not answered within ${timeoutMs} ms`);
}

const QUOTE = "GET /api/v1/pricing/quote";
const quoteCalls = (world: World) => world.sandboxRequests.filter((request) => request === QUOTE).length;
const marketplaceCalls = (world: World, since: number) =>
  world.sandboxRequests.slice(since).filter((request) => request.includes("/api/v1/"));

/** The value /metrics shows for one bound of public work (0 before it first bites). */
async function limited(world: World, limit: string): Promise<number> {
  const text = await (await fetch(`${world.app.url}/metrics`)).text();
  const line = text.split("\n").find((each) => each.startsWith(`public_work_limited_total{limit="${limit}"} `));
  return line ? Number(line.split(" ").at(-1)) : 0;
}

describe("public work is bounded: inline queries, quotes, watches and /stats", () => {
  let world: World;
  manageWorld((started) => (world = started));

  it("forty inline queries 65001…65040 from one user: the flood limit answers past it with 'slow down', and the rest share one quote", async () => {
    const user = world.user(6201);
    world.sandboxRequests.length = 0;
    const ids = Array.from(
      { length: 40 },
      (_, index) => world.fake.sendInlineQuery(user.user, `${65_001 + index} 1h`).inlineQueryId,
    );
    const answers = await Promise.all(ids.map((id) => answerTo(world.fake, id)));
    const priced = answers.filter((answer) => answer.results.length > 0);
    expect(priced).toHaveLength(FLOOD_MAX_UPDATES);
    // The volume the answer shows is the one quoted and cached: all forty are the same rent.
    expect(new Set(priced.map((answer) => answer.results[0]!.title))).toEqual(
      new Set(["65,100 Energy for 1h: 4.2315 TRX"]),
    );
    const slowed = answers.filter((answer) => answer.results.length === 0);
    expect(slowed).toHaveLength(40 - FLOOD_MAX_UPDATES);
    expect(slowed.every((answer) => answer.button?.text === "Too many requests: wait a few seconds")).toBe(true);
    expect(quoteCalls(world)).toBe(1);
    expect(await limited(world, "flood")).toBe(40 - FLOOD_MAX_UPDATES);

    // The same window holds the user's messages: a /quote now is dropped, after the window it is answered.
    user.send("/quote energy 65k 1h");
    await expect(user.nextBotEvent({ timeoutMs: 800 })).rejects.toThrow(/No bot message/);
    world.shiftAppClock(FLOOD_WINDOW_MS + 1);
    user.send("/quote energy 65k 1h");
    expect((await user.nextMessage()).text).toContain("4.225 TRX");
  });

  it("users asking the same rent at the same moment share one marketplace call", async () => {
    world.sandbox.control.injectFault({ pathPrefix: "/pricing/quote", delayMs: 1_500 });
    const users = [6211, 6212, 6213, 6214, 6215].map((id) => world.user(id));
    world.sandboxRequests.length = 0;
    for (const user of users) user.send("/quote energy 65k 1h");
    const replies = await Promise.all(users.map((user) => user.nextMessage({ timeoutMs: 10_000 })));
    for (const reply of replies) expect(reply.text).toContain("Price: 4.225 TRX");
    expect(quoteCalls(world)).toBe(1);
    expect(await limited(world, "quote_shared")).toBe(users.length - 1);
  });

  it("at most MAX_PUBLIC_QUOTES_IN_FLIGHT public quotes are in flight at once; the others wait their turn and are answered", async () => {
    const asking = MAX_PUBLIC_QUOTES_IN_FLIGHT + 2;
    world.sandbox.control.injectFault({ pathPrefix: "/pricing/quote", delayMs: 1_500, times: asking });
    const users = Array.from({ length: asking }, (_, index) => world.user(6241 + index));
    // Each asks another rent, so none shares another's call.
    users.forEach((user, index) => user.send(`/quote energy ${65 + index}k 1h`));
    const replies = await Promise.all(users.map((user) => user.nextMessage({ timeoutMs: 15_000 })));
    for (const reply of replies) expect(reply.text).toContain("Price:");
    expect(await limited(world, "quote_waited")).toBe(asking - MAX_PUBLIC_QUOTES_IN_FLIGHT);
  });

  it("an inline answer past its deadline cancels its quote and the retries still to come", async () => {
    // Every attempt outlives the client's 3 s timeout: attempts start at about 0, 3 and 6 s, and
    // the answer's 7 s deadline ends the third; a fourth would start at about 9 s.
    world.sandbox.control.injectFault({ pathPrefix: "/pricing/quote", delayMs: 4_000, times: 10 });
    const user = world.user(6221);
    world.sandboxRequests.length = 0;
    const answer = await answerTo(world.fake, world.fake.sendInlineQuery(user.user, "131k 1d").inlineQueryId);
    expect(answer.results).toEqual([]);
    expect(answer.button?.startParameter).toBe("quote");
    const atAnswer = quoteCalls(world);
    expect(atAnswer).toBe(3);
    await new Promise((resolve) => setTimeout(resolve, 3_500));
    expect(quoteCalls(world)).toBe(atAnswer);
    expect(await limited(world, "inline_deadline")).toBe(1);
    world.sandbox.control.clearFaults();
  }, 30_000);

  it("many distinct watched rents: at most the cap quoted per tick, the rest checked on the next ticks in turn", async () => {
    const total = MAX_WATCH_RENTS_PER_TICK + 10;
    const now = Date.now();
    // Throwaway accounts, ten watches each (the most one user may have), every one on another rent.
    for (let index = 0; index < total; index++) {
      const watch = {
        id: `w${index}`,
        telegramId: 6300 + Math.floor(index / 10),
        resource: "energy",
        volume: String(65_000 + index * 1_000),
        duration: "1h",
        address: null,
        thresholdSun: 1n,
        lastPriceSun: null,
      };
      expect(await createWatch(world.app.db, watch, now)).toBe(true);
    }
    const unchecked = async () =>
      (await world.app.db.selectFrom("price_watches").select("id").where("last_checked_at", "is", null).execute()).map(
        (row) => row.id,
      );
    world.sandboxRequests.length = 0;
    expect(await world.app.push.checkPriceWatches()).toMatchObject({
      targets: total,
      quoted: MAX_WATCH_RENTS_PER_TICK,
      deferred: 10,
    });
    expect(quoteCalls(world)).toBe(MAX_WATCH_RENTS_PER_TICK);
    expect(await unchecked()).toHaveLength(10);

    expect(await world.app.push.checkPriceWatches()).toMatchObject({
      targets: total,
      quoted: MAX_WATCH_RENTS_PER_TICK,
      deferred: 10,
    });
    expect(quoteCalls(world)).toBe(2 * MAX_WATCH_RENTS_PER_TICK);
    expect(await unchecked()).toEqual([]);
    expect(await limited(world, "watch_rents_deferred")).toBe(20);
  });

  it("rents whose quote fails are tried after the others on the next tick, so they never hold the rest back", async () => {
    const total = MAX_WATCH_RENTS_PER_TICK + 10;
    for (let index = 0; index < total; index++) {
      const watch = {
        id: `f${index}`,
        telegramId: 6400 + Math.floor(index / 10),
        resource: "energy",
        volume: String(70_000 + index * 1_000),
        duration: "1d",
        address: null,
        thresholdSun: 1n,
        lastPriceSun: null,
      };
      await createWatch(world.app.db, watch, Date.now());
    }
    // The first tick's quotes are all refused (a 400 is never retried).
    world.sandbox.control.injectFault({ pathPrefix: "/pricing/quote", status: 400, times: MAX_WATCH_RENTS_PER_TICK });
    expect(await world.app.push.checkPriceWatches()).toMatchObject({ quoted: 0, deferred: 10 });
    const failed = world
      .logs()
      .split("\n")
      .filter((line) => line.includes("price quote for watches failed"))
      .map((line) => (JSON.parse(line) as { volume: string }).volume);
    expect(failed).toHaveLength(MAX_WATCH_RENTS_PER_TICK);

    expect(await world.app.push.checkPriceWatches()).toMatchObject({ quoted: MAX_WATCH_RENTS_PER_TICK, deferred: 10 });
    const unchecked = await world.app.db
      .selectFrom("price_watches")
      .select("volume")
      .where("last_checked_at", "is", null)
      .execute();
    // The ten never tried were checked; what is left is ten of the first tick's failures.
    expect(unchecked).toHaveLength(10);
    for (const { volume } of unchecked) expect(failed).toContain(volume);
  });

  it("two /stats within a minute read the marketplace once; a minute later it reads again", async () => {
    const { user } = await linkedUser(world, 6231);
    user.send("/stats");
    const first = await user.nextMessage({ timeoutMs: 15_000 });
    expect(first.text).toContain("Spending, last 7 days");
    const afterFirst = world.sandboxRequests.length;
    user.send("/stats");
    const second = await user.nextMessage({ timeoutMs: 15_000 });
    expect(second.text).toBe(first.text);
    expect(marketplaceCalls(world, afterFirst)).toEqual([]);
    expect(await limited(world, "stats_reused")).toBe(1);

    world.shiftAppClock(STATS_FRESH_MS);
    const afterSecond = world.sandboxRequests.length;
    user.send("/stats");
    await user.nextMessage({ timeoutMs: 15_000 });
    expect(marketplaceCalls(world, afterSecond).length).toBeGreaterThan(0);
  });
});
