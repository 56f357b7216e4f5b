import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { Kysely } from "kysely";
import { migrateToLatest, openDatabase } from "#src/db/connection";
import type { Database } from "#src/db/schema";
import { ArrivalWindow } from "#src/scale/arrival-window";
import { DEFAULT_CHAT_PACE, recordChatSendAt, takeChatSlot, takeChatTurn } from "#src/db/repos/chat-send";
import { sharedBudgetTransformer } from "#src/scale/budget-transformer";
import { memorySendBudget } from "#src/scale/memory-send-budget";
import type { SendBudgetStore } from "#src/scale/send-budget-store";

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

describe("a reply counted from Telegram's answer only when the answer came later than the pace's slack", () => {
  /** Sends one reply per `every` ms of app time through the transformer; Telegram answers each `answerMs` after it leaves. */
  async function replies(answerMs: number, count: number, every: number) {
    let clock = 4_000_000;
    const inner = memorySendBudget();
    const recorded: number[] = [];
    const store: SendBudgetStore = {
      ...inner,
      recordChatSendAt: async (exec, chatId, answeredAt, pace) => {
        recorded.push(answeredAt);
        return inner.recordChatSendAt(exec, chatId, answeredAt, pace);
      },
    };
    const send = sharedBudgetTransformer(store, () => clock, { chatPace: DEFAULT_CHAT_PACE });
    const answered: number[] = [];
    const start = clock;
    for (let i = 0; i < count; i++) {
      clock = Math.max(clock, start + i * every);
      await send(
        async () => {
          clock += answerMs;
          answered.push(clock);
          return { ok: true, result: true } as never;
        },
        "sendMessage",
        { chat_id: 31, text: `reply ${i}` },
      );
    }
    return { recorded, answered, store, clock };
  }

  it("answered within 50 ms of its turn: not written again (the turn's spacing already covers it)", async () => {
    const { recorded, answered } = await replies(DEFAULT_CHAT_PACE.answerSlackMs!, 6, 1_200);
    expect(answered).toHaveLength(6);
    expect(recorded).toEqual([]);
  });

  it("answered later: counted from the answer, so the chat's next turn comes an interval after it", async () => {
    const late = DEFAULT_CHAT_PACE.answerSlackMs! + 1;
    const { recorded, answered, store, clock } = await replies(late, 6, 1_200);
    expect(recorded).toEqual(answered);
    // The burst's other turns count from the last answer: the chat's next turn is due an
    // interval after it (less the burst's two turns), not an interval after the turn.
    const last = answered.at(-1)!;
    expect(await store.takeChatSlot(null, 31, clock, DEFAULT_CHAT_PACE)).toBeNull();
    expect(await store.takeChatSlot(null, 31, clock, DEFAULT_CHAT_PACE)).toBeNull();
    expect(await store.takeChatSlot(null, 31, clock, DEFAULT_CHAT_PACE)).toBe(last + DEFAULT_CHAT_PACE.intervalMs);
  });

  it("a pace without slack counts every reply from its answer, however quick", async () => {
    let clock = 5_000_000;
    const inner = memorySendBudget();
    let recorded = 0;
    const store: SendBudgetStore = {
      ...inner,
      recordChatSendAt: async (...args) => {
        recorded += 1;
        return inner.recordChatSendAt(...args);
      },
    };
    const send = sharedBudgetTransformer(store, () => clock, { chatPace: { intervalMs: 1_000, burst: 1 } });
    for (let i = 0; i < 3; i++) {
      clock += 1_000;
      await send(async () => ({ ok: true, result: true }) as never, "sendMessage", { chat_id: 32, text: "x" });
    }
    expect(recorded).toBe(3);
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
