import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { Kysely } from "kysely";
import { migrateToLatest, openDatabase } from "../../src/db/connection";
import type { Database } from "../../src/db/schema";
import { ArrivalWindow } from "../../src/scale/arrival-window";
import { DEFAULT_CHAT_PACE, recordChatSendAt, takeChatSlot, takeChatTurn } from "../../src/scale/send-budget";

/** Most events within any span of `spanMs` (both ends included). */
function mostWithin(times: number[], spanMs: number): number {
  const sorted = [...times].sort((a, b) => a - b);
  let most = 0;
  for (let i = 0, j = 0; i < sorted.length; i++) {
    while (sorted[i]! - sorted[j]! > spanMs) j++;
    most = Math.max(most, i - j + 1);
  }
  return most;
}

describe("one chat's pace (a burst of 3, then one per 1.1 s), shared through the database", () => {
  let db: Kysely<Database>;
  beforeEach(async () => {
    db = (await openDatabase(":memory:")).db;
    await migrateToLatest(db);
  });
  afterEach(async () => {
    await db.destroy();
  });

  it("grants a quiet chat three turns at once, then one per interval, to replies and alerts alike", async () => {
    const pace = DEFAULT_CHAT_PACE;
    const at = 1_000_000;
    // A reply, an alert (the sender's path), a reply: the burst.
    expect(await takeChatTurn(db, 77, at, pace)).toBeNull();
    expect(await takeChatSlot(db, 77, at, pace.intervalMs, pace.burst)).toBeNull();
    expect(await takeChatTurn(db, 77, at, pace)).toBeNull();
    // The fourth waits one interval, whoever asks.
    expect(await takeChatTurn(db, 77, at + 500, pace)).toBe(at + pace.intervalMs);
    expect(await takeChatSlot(db, 77, at + 500, pace.intervalMs, pace.burst)).toBe(at + pace.intervalMs);
    expect(await takeChatTurn(db, 77, at + pace.intervalMs, pace)).toBeNull();
    expect(await takeChatTurn(db, 77, at + pace.intervalMs + 1, pace)).toBe(at + 2 * pace.intervalMs);
    // Another chat is not held back.
    expect(await takeChatTurn(db, 78, at + 1, pace)).toBeNull();
  });

  it("counts a send from its answer: a slow send pushes the next turn back by the time it took", async () => {
    const pace = DEFAULT_CHAT_PACE;
    const at = 2_000_000;
    expect(await takeChatTurn(db, 5, at, pace)).toBeNull();
    // The send took 800 ms to be answered: it may have arrived that late, so the burst's other
    // two turns count from then, and the next one comes an interval after that.
    await recordChatSendAt(db, 5, at + 800, pace);
    expect(await takeChatTurn(db, 5, at + 100, pace)).toBeNull();
    expect(await takeChatTurn(db, 5, at + 100, pace)).toBe(at + 800);
    // Counted from the moment it left, that turn would have been free at once.
    expect(await takeChatTurn(db, 6, at, pace)).toBeNull();
    expect(await takeChatTurn(db, 6, at + 100, pace)).toBeNull();
    expect(await takeChatTurn(db, 6, at + 100, pace)).toBeNull();
  });

  it("keeps any 4 sends at least 1 s apart as the turns come, so Telegram's bucket (3, then 1/s) never runs dry", async () => {
    const pace = DEFAULT_CHAT_PACE;
    let at = 3_000_000;
    const sent: number[] = [];
    while (sent.length < 20) {
      const due = await takeChatTurn(db, 9, at, pace);
      if (due === null) sent.push(at);
      at = due ?? at + 137;
    }
    for (let i = 0; i + 3 < sent.length; i++) expect(sent[i + 3]! - sent[i]!).toBeGreaterThanOrEqual(1_000);
    expect(mostWithin(sent, 999)).toBe(3);
  });
});

describe("the process's window on arrival at Telegram", () => {
  it("never lets more than the limit arrive within one window, however late sends arrive and answers come back", async () => {
    const window = new ArrivalWindow({ limit: 5, windowMs: 200, now: () => performance.now() });
    const arrivals: number[] = [];
    const send = async (i: number) => {
      const leave = await window.enter();
      // On the way, the message arrives at some moment before its answer comes back.
      const onTheWay = (i * 37) % 60;
      await new Promise((resolve) => setTimeout(resolve, onTheWay));
      arrivals.push(performance.now());
      await new Promise((resolve) => setTimeout(resolve, (i * 13) % 25));
      leave();
    };
    await Promise.all(Array.from({ length: 40 }, (_, i) => send(i)));
    expect(arrivals).toHaveLength(40);
    expect(mostWithin(arrivals, 199)).toBeLessThanOrEqual(5);
    expect(window.counted()).toBeLessThanOrEqual(5);
  });

  it("serves waiting senders in order and lets the next one go once an answer leaves the window", async () => {
    let clock = 0;
    const window = new ArrivalWindow({ limit: 2, windowMs: 1_000, now: () => clock });
    const order: string[] = [];
    const first = await window.enter();
    const second = await window.enter();
    const third = window.enter().then((leave) => {
      order.push("third");
      return leave;
    });
    const fourth = window.enter().then((leave) => {
      order.push("fourth");
      return leave;
    });
    await new Promise((resolve) => setTimeout(resolve, 30));
    expect(order).toEqual([]);
    first();
    second();
    // Answered, but still within the window on the clock: nobody goes yet.
    await new Promise((resolve) => setTimeout(resolve, 30));
    expect(order).toEqual([]);
    clock = 1_001;
    (await third)();
    (await fourth)();
    expect(order).toEqual(["third", "fourth"]);
  });
});
