import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { Kysely } from "kysely";
import { refFor, resolveRef } from "#src/db/repos/callback-refs";
import {
  createPendingAction,
  findPendingAction,
  markPendingActionAttempted,
  transitionPendingAction,
} from "#src/db/repos/pending-actions";
import { countUpdateInWindow } from "#src/db/repos/update-windows";
import { setFlow } from "#src/db/repos/flows";
import { findOpenRuleCards, recordOpenRuleCard } from "#src/db/repos/open-rule-cards";
import { upsertUser } from "#src/db/repos/users";
import type { Database } from "#src/db/schema";
import { createLogger } from "#src/logger";
import { enqueueAlert, markDropped, markSent } from "#src/db/repos/outbox";
import { RETENTION, runRetention } from "#src/push/retention";
import { UnknownTokenLimiter } from "#src/push/unknown-token-limit";
import { addressKey } from "#src/server/client-address";
import { OptionsCache } from "#src/bot/options-cache";
import type { MarketplaceClient } from "#src/marketplace/index";
import { openMigratedTestDatabase } from "../kit/test-database";
import { describeEachDialect } from "../kit/test-database-dialects";

const DAY = 86_400_000;
const T0 = 1_900_000_000_000;
const USER = 41;
const logger = createLogger({ level: "silent" });

describeEachDialect("retention against the repositories (%s)", (dialect) => {
  let db: Kysely<Database>;
  let close: () => Promise<void>;
  beforeEach(async () => {
    ({ db, close } = await openMigratedTestDatabase(dialect, "bot_retention"));
    await upsertUser(db, USER, USER, T0);
  });
  afterEach(() => close());

  /** One retention pass at `now`; the wall clock for Telegram update turns is the same moment. */
  const retain = (now: number, chunk?: number) =>
    runRetention({ db, logger, now: () => now, wallNow: () => now }, chunk);

  let cardCount = 0;
  /** A card created at `at`, moved to `state` then (attempted: an outcome never learned). */
  async function card(at: number, state: string, attempted = false): Promise<string> {
    const id = `card${++cardCount}`;
    await createPendingAction(db, {
      id,
      telegramId: USER,
      kind: "order",
      payload: { volume: 65000 },
      idempotencyKey: `key-${id}`,
      chatId: USER,
      now: at,
    });
    if (state !== "pending") expect(await transitionPendingAction(db, id, ["pending"], state, at)).toBe(true);
    if (attempted) await markPendingActionAttempted(db, id, at);
    return id;
  }
  const cardsLeft = async () =>
    (await db.selectFrom("pending_actions").select("id").orderBy("id").execute()).map((row) => row.id);

  it("keeps every card for 30 days after its last change, and a card mid-Confirm or with an unknown outcome never younger", async () => {
    const now = T0 + 400 * DAY;
    const edge = await card(now - RETENTION.cardsMs, "pending");
    const pastEdge = await card(now - RETENTION.cardsMs - 1, "pending");
    const unknownYoung = await card(now - 29 * DAY, "pending", true);
    const unknownOld = await card(now - 31 * DAY, "pending", true);
    const processingOld = await card(now - 300 * DAY, "processing", true);
    const doneYoung = await card(now - 10 * DAY, "done");
    const doneOld = await card(now - 31 * DAY, "done");
    const cancelledOld = await card(now - 90 * DAY, "cancelled");
    // Created long ago, pressed yesterday: its last change is what counts.
    const pressedLately = await card(now - 200 * DAY, "pending");
    expect(await transitionPendingAction(db, pressedLately, ["pending"], "failed", now - DAY)).toBe(true);

    const report = await retain(now);
    expect(report.pending_actions).toBe(4);
    expect(await cardsLeft()).toEqual([edge, unknownYoung, processingOld, doneYoung, pressedLately].sort());
    expect(await cardsLeft()).not.toContain(pastEdge);
    for (const gone of [unknownOld, doneOld, cancelledOld])
      expect(await findPendingAction(db, USER, gone)).toBeUndefined();
    // The unknown-outcome card that stayed still carries its Idempotency-Key and its attempt mark.
    const kept = await findPendingAction(db, USER, unknownYoung);
    expect(kept?.idempotency_key).toBe(`key-${unknownYoung}`);
    expect(kept?.result).not.toBeNull();
  });

  it("keeps a callback reference as long as the last button carrying it, however old the reference itself", async () => {
    const old = await refFor(db, USER, "rule-7d3e1a52-old", T0);
    const renewed = await refFor(db, USER, "rule-renewed", T0);
    // Handed out again 40 days later (a fresh menu): the same short id, now good for another 30 days.
    expect(await refFor(db, USER, "rule-renewed", T0 + 40 * DAY)).toBe(renewed);
    // Within a day of the last hand-out nothing is written (a menu render stays a read).
    const issued = async (id: string) =>
      Number(
        (await db.selectFrom("callback_refs").select("issued_at").where("id", "=", id).executeTakeFirstOrThrow())
          .issued_at,
      );
    await refFor(db, USER, "rule-renewed", T0 + 40 * DAY + DAY - 1);
    expect(await issued(renewed)).toBe(T0 + 40 * DAY);

    // A button shown at the end of that day is still good 30 days later.
    await retain(T0 + 40 * DAY + DAY - 1 + RETENTION.callbackRefsMs);
    expect(await resolveRef(db, USER, renewed)).toBe("rule-renewed");
    expect(await resolveRef(db, USER, old)).toBeUndefined();

    await retain(T0 + 40 * DAY + DAY + RETENTION.callbackRefsMs + 1);
    expect(await resolveRef(db, USER, renewed)).toBeUndefined();
    // The value gets a fresh reference the next time a button needs one.
    const fresh = await refFor(db, USER, "rule-renewed", T0 + 80 * DAY);
    expect(await resolveRef(db, USER, fresh)).toBe("rule-renewed");
  });

  it("deletes sent alerts 7 days after sending and dropped ones 7 days after their last attempt, never a queued one", async () => {
    const now = T0 + 100 * DAY;
    const queue = async (key: string, at: number) => {
      expect(
        await enqueueAlert(db, {
          telegramId: USER,
          chatId: USER,
          dedupeKey: key,
          payload: { method: "sendMessage", params: { text: key } },
          now: at,
        }),
      ).toBe(true);
      return Number(
        (await db.selectFrom("outbox").select("id").where("dedupe_key", "=", key).executeTakeFirstOrThrow()).id,
      );
    };
    await queue("queued-for-months", now - 90 * DAY);
    await markSent(db, await queue("sent-old", now - 30 * DAY), now - 7 * DAY - 1);
    // Queued long ago, delivered only at the edge of the window (Telegram was down): kept.
    await markSent(db, await queue("sent-late", now - 30 * DAY), now - 7 * DAY);
    await markDropped(db, await queue("dropped-old", now - 8 * DAY), "Bad Request: chat not found");
    await markDropped(db, await queue("dropped-young", now - 6 * DAY), "Bad Request: chat not found");

    const report = await retain(now);
    expect(report.outbox).toBe(2);
    const left = await db.selectFrom("outbox").select(["dedupe_key", "status"]).orderBy("dedupe_key").execute();
    expect(left).toEqual([
      { dedupe_key: "dropped-young", status: "dropped" },
      { dedupe_key: "queued-for-months", status: "queued" },
      { dedupe_key: "sent-late", status: "sent" },
    ]);
    // A queued alert survives any number of passes, however old.
    await retain(now + 1_000 * DAY);
    expect((await db.selectFrom("outbox").select("dedupe_key").execute()).map((row) => row.dedupe_key)).toEqual([
      "queued-for-months",
    ]);
  });

  it("keeps webhook dedupe keys 4 days and finished Telegram updates a day, never an update being handled", async () => {
    const now = T0 + 10 * DAY;
    await db
      .insertInto("webhook_events")
      .values([
        { dedupe_key: `${USER}:order:a:order.filled`, received_at: now - 4 * DAY },
        { dedupe_key: `${USER}:order:b:order.filled`, received_at: now - 4 * DAY - 1 },
      ])
      .execute();
    await db
      .insertInto("telegram_updates")
      .values([
        { update_id: 1, chat_id: USER, owner: "r1", lease_until: now - DAY - 1, done: 1, received_at: now - DAY - 1 },
        { update_id: 2, chat_id: USER, owner: "r1", lease_until: now - DAY + 1, done: 1, received_at: now - DAY + 1 },
        // A handler still running (its lease renewed) on an update received long ago.
        { update_id: 3, chat_id: USER, owner: "r2", lease_until: now + 10_000, done: 2, received_at: now - 3 * DAY },
        // One whose replica died mid-handling: its lease ran out long ago.
        { update_id: 4, chat_id: USER, owner: "r3", lease_until: now - 2 * DAY, done: 2, received_at: now - 2 * DAY },
      ])
      .execute();
    const report = await retain(now);
    expect(report.webhook_events).toBe(1);
    expect(report.telegram_updates).toBe(2);
    expect((await db.selectFrom("webhook_events").select("dedupe_key").execute()).map((row) => row.dedupe_key)).toEqual(
      [`${USER}:order:a:order.filled`],
    );
    expect(
      (await db.selectFrom("telegram_updates").select("update_id").orderBy("update_id").execute()).map((row) =>
        Number(row.update_id),
      ),
    ).toEqual([2, 3]);
  });

  it("keeps finished follows 30 days and open ones always, the newest poll cycle always, /connect attempts, flood windows and open first questions a day", async () => {
    const now = T0 + 60 * DAY;
    await db
      .insertInto("followed_orders")
      .values([
        {
          order_id: "open-old",
          telegram_id: USER,
          attempts: 9,
          next_check_at: now,
          done: 0,
          created_at: now - 50 * DAY,
        },
        {
          order_id: "done-old",
          telegram_id: USER,
          attempts: 1,
          next_check_at: now,
          done: 1,
          created_at: now - 31 * DAY,
        },
        {
          order_id: "done-young",
          telegram_id: USER,
          attempts: 1,
          next_check_at: now,
          done: 1,
          created_at: now - 29 * DAY,
        },
      ])
      .execute();
    // A quiet bot: the newest cycle is days old and still the one the next id counts from.
    await db
      .insertInto("poll_cycles")
      .values([
        { id: 1, opened_by: "r1", opened_at: now - 5 * DAY },
        { id: 2, opened_by: "r1", opened_at: now - 3 * DAY },
      ])
      .execute();
    await db
      .insertInto("connect_attempts")
      .values([
        { id: "old", telegram_id: USER, attempted_at: now - DAY - 1 },
        { id: "young", telegram_id: USER, attempted_at: now - 3_600_000 },
      ])
      .execute();
    await countUpdateInWindow(db, USER, now - DAY - 1, 10_000);
    await countUpdateInWindow(db, USER + 1, now - 60_000, 10_000);
    // A first question never answered, and the key step of another user an hour ago.
    await upsertUser(db, USER + 1, USER + 1, now);
    await setFlow(
      db,
      USER,
      { flow: "quote", step: "quote/resource", data: { args: [{}], asked: { askedAt: now - DAY - 1 } } },
      now - DAY - 1,
    );
    await setFlow(db, USER + 1, { flow: "connect", step: "key", data: { askedAt: now - 3_600_000 } }, now - 3_600_000);

    const report = await retain(now);
    expect(report).toMatchObject({
      followed_orders: 1,
      poll_cycles: 1,
      connect_attempts: 1,
      update_windows: 1,
      flows: 1,
    });
    expect(
      (await db.selectFrom("flows").select("telegram_id").execute()).map((row) => Number(row.telegram_id)),
    ).toEqual([USER + 1]);
    expect(
      (await db.selectFrom("followed_orders").select("order_id").orderBy("order_id").execute()).map(
        (row) => row.order_id,
      ),
    ).toEqual(["done-young", "open-old"]);
    expect((await db.selectFrom("poll_cycles").select("id").execute()).map((row) => Number(row.id))).toEqual([2]);
    expect((await db.selectFrom("connect_attempts").select("id").execute()).map((row) => row.id)).toEqual(["young"]);
    expect(
      (await db.selectFrom("update_windows").select("telegram_id").execute()).map((row) => Number(row.telegram_id)),
    ).toEqual([USER + 1]);
  });

  it("keeps a chat's open rule card 30 days after it was last drawn, in chunks of a two-column key", async () => {
    const now = T0 + 100 * DAY;
    const ref = await refFor(db, USER, "rule-open-card", now);
    const draw = (messageId: number, at: number) =>
      recordOpenRuleCard(
        db,
        { chatId: USER, messageId, ruleRef: ref, payload: `${ref}.0`, text: "Auto-refill", keyboard: "[]" },
        at,
      );
    for (let messageId = 1; messageId <= 7; messageId++)
      await draw(messageId, now - RETENTION.openRuleCardsMs - messageId);
    await draw(8, now - RETENTION.openRuleCardsMs);
    // Drawn long ago, drawn again (a tap, a redraw) yesterday: its last drawing counts.
    await draw(9, now - 90 * DAY);
    await draw(9, now - DAY);

    const report = await retain(now, 3);
    expect(report.open_rule_cards).toBe(7);
    expect((await findOpenRuleCards(db, USER, USER, "rule-open-card")).map((card) => card.messageId)).toEqual([8, 9]);
  });

  it("works a backlog off in chunks within one pass, and a second pass finds nothing", async () => {
    const now = T0 + 100 * DAY;
    for (let i = 0; i < 11; i++) await card(now - 40 * DAY, "done");
    const report = await retain(now, 3);
    expect(report.pending_actions).toBe(11);
    expect(await cardsLeft()).toEqual([]);
    expect(Object.values(await retain(now, 3)).every((count) => count === 0)).toBe(true);
  });

  it("counts a user's updates in one window across concurrent writers: each place given once", async () => {
    const places = await Promise.all(Array.from({ length: 30 }, () => countUpdateInWindow(db, USER, T0, 10_000)));
    expect([...places].sort((a, b) => a - b)).toEqual(Array.from({ length: 30 }, (_, i) => i + 1));
    // Still the same window at exactly 10 s; a new one just after.
    expect(await countUpdateInWindow(db, USER, T0 + 10_000, 10_000)).toBe(31);
    expect(await countUpdateInWindow(db, USER, T0 + 10_001, 10_000)).toBe(1);
    expect(await countUpdateInWindow(db, USER + 1, T0 + 10_001, 10_000)).toBe(1);
  });
});

describe("limits held in memory", () => {
  it("lets an address name 30 unknown tokens a minute, then asks it to wait until its window ends", () => {
    const limiter = new UnknownTokenLimiter({ limit: 30, windowMs: 60_000 });
    for (let i = 0; i < 30; i++) {
      expect(limiter.waitFor("203.0.113.9", T0 + i)).toBe(0);
      limiter.record("203.0.113.9", T0 + i);
    }
    expect(limiter.waitFor("203.0.113.9", T0 + 1_000)).toBe(59_000);
    expect(limiter.waitFor("198.51.100.4", T0 + 1_000)).toBe(0);
    expect(limiter.waitFor("203.0.113.9", T0 + 60_000)).toBe(0);
  });

  it("remembers a bounded number of addresses, forgetting expired windows first", () => {
    const limiter = new UnknownTokenLimiter({ limit: 2, windowMs: 1_000 }, 100);
    for (let i = 0; i < 1_000; i++) limiter.record(`10.0.${i >> 8}.${i & 255}`, T0 + i);
    expect(limiter.size).toBeLessThanOrEqual(100);
    for (let i = 0; i < 50; i++) limiter.record(`192.0.2.${i}`, T0 + 5_000);
    // Every window from before T0 + 4_000 has expired and is gone.
    expect(limiter.size).toBe(50);
  });

  it("keys an IPv6 client by its /64 and an IPv4-mapped one by its IPv4 address", () => {
    expect(addressKey("2001:db8:1:2:aaaa::1")).toBe("2001:db8:1:2::/64");
    expect(addressKey("2001:db8:1:2:ffff:ffff:ffff:ffff")).toBe("2001:db8:1:2::/64");
    expect(addressKey("2001:db8::1")).toBe("2001:db8:0:0::/64");
    expect(addressKey("::ffff:203.0.113.9")).toBe("203.0.113.9");
    expect(addressKey("203.0.113.9")).toBe("203.0.113.9");
  });

  it("lets options cache entries expire: a user who asked once is not held forever", async () => {
    let now = T0;
    const cache = new OptionsCache(() => now, 60_000);
    const client = {
      orderOptions: async () => ({}),
      automationOptions: async () => ({}),
    } as unknown as MarketplaceClient;
    for (let user = 1; user <= 500; user++) await cache.orderOptions(user, client);
    expect(cache.size).toBe(500);
    now += 60_000;
    await cache.automationOptions(9_999, client);
    expect(cache.size).toBe(1);
  });
});
