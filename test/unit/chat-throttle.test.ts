import { describe, expect, it } from "vitest";
import type { Transformer } from "grammy";
import { chatThrottler, ThrottleQueueFullError, type ChatThrottleOptions } from "#src/bot/chat-throttle";

type Prev = Parameters<Transformer>[0];

/** A Bot API beneath the throttler: records when each call started; each call ends when released (or at once). */
function fakeApi(options: { hold?: boolean } = {}) {
  const started: { method: string; chatId: unknown; text: unknown; at: number }[] = [];
  const releases: (() => void)[] = [];
  const prev = ((method: string, payload: Record<string, unknown>) => {
    started.push({ method, chatId: payload?.chat_id, text: payload?.text, at: performance.now() });
    if (!options.hold) return Promise.resolve({ ok: true, result: true });
    return new Promise((resolve) => releases.push(() => resolve({ ok: true, result: true })));
  }) as unknown as Prev;
  return { prev, started, releaseNext: () => releases.shift()?.() };
}

const LOOSE: ChatThrottleOptions = {
  overall: { perSecond: 1_000, maxConcurrent: 100, highWater: 1_000 },
  private: { minTimeMs: 0, highWater: 100 },
  group: { minTimeMs: 0, highWater: 100 },
};

function call(throttle: Transformer, prev: Prev, method: string, payload: Record<string, unknown>) {
  return throttle(prev, method as never, payload as never, undefined);
}

const tick = () => new Promise((resolve) => setImmediate(resolve));

describe("the Telegram call throttler", () => {
  it("starts a call that no limit holds back in the same tick (no timer on the way)", () => {
    const api = fakeApi();
    const throttle = chatThrottler(LOOSE);
    void call(throttle, api.prev, "sendMessage", { chat_id: 1, text: "a" });
    expect(api.started).toHaveLength(1);
  });

  it("spaces one chat's calls by minTimeMs, in the order they were made, without holding back other chats", async () => {
    const api = fakeApi();
    const throttle = chatThrottler({ ...LOOSE, private: { minTimeMs: 60, highWater: 100 } });
    const calls = ["a", "b", "c"].map((text) => call(throttle, api.prev, "sendMessage", { chat_id: 7, text }));
    const other = call(throttle, api.prev, "sendMessage", { chat_id: 8, text: "other" });
    expect(api.started.map((s) => s.text)).toEqual(["a", "other"]);
    await Promise.all([...calls, other]);
    const seven = api.started.filter((s) => s.chatId === 7);
    expect(seven.map((s) => s.text)).toEqual(["a", "b", "c"]);
    for (let i = 1; i < seven.length; i++) expect(seven[i]!.at - seven[i - 1]!.at).toBeGreaterThanOrEqual(58);
  });

  it("runs one call of a chat at a time: the next starts only once the previous has been answered", async () => {
    const api = fakeApi({ hold: true });
    const throttle = chatThrottler(LOOSE);
    const first = call(throttle, api.prev, "sendMessage", { chat_id: 1, text: "first" });
    const second = call(throttle, api.prev, "editMessageText", { chat_id: 1, text: "second" });
    await tick();
    expect(api.started.map((s) => s.text)).toEqual(["first"]);
    api.releaseNext();
    await first;
    await tick();
    expect(api.started.map((s) => s.text)).toEqual(["first", "second"]);
    api.releaseNext();
    await expect(second).resolves.toEqual({ ok: true, result: true });
  });

  it("lets at most perSecond calls start in any second, across chats", async () => {
    const api = fakeApi();
    const throttle = chatThrottler({ ...LOOSE, overall: { perSecond: 4, maxConcurrent: 100, highWater: 1_000 } });
    const calls = Array.from({ length: 6 }, (_, i) =>
      call(throttle, api.prev, "sendMessage", { chat_id: 100 + i, text: String(i) }),
    );
    expect(api.started).toHaveLength(4);
    await Promise.all(calls);
    expect(api.started).toHaveLength(6);
    expect(api.started[4]!.at - api.started[0]!.at).toBeGreaterThanOrEqual(990);
    // Waiting lanes are served in the order they came.
    expect(api.started.map((s) => s.text)).toEqual(["0", "1", "2", "3", "4", "5"]);
  });

  it("keeps at most maxConcurrent calls in flight, starting the next one when a call ends", async () => {
    const api = fakeApi({ hold: true });
    const throttle = chatThrottler({ ...LOOSE, overall: { perSecond: 1_000, maxConcurrent: 2, highWater: 1_000 } });
    const calls = [1, 2, 3].map((chatId) =>
      call(throttle, api.prev, "sendMessage", { chat_id: chatId, text: String(chatId) }),
    );
    await tick();
    expect(api.started.map((s) => s.chatId)).toEqual([1, 2]);
    api.releaseNext();
    await calls[0];
    await tick();
    expect(api.started.map((s) => s.chatId)).toEqual([1, 2, 3]);
    api.releaseNext();
    api.releaseNext();
    await Promise.all(calls);
  });

  it("holds a group to its window (count starts per windowMs) on top of its spacing", async () => {
    const api = fakeApi();
    const throttle = chatThrottler({
      ...LOOSE,
      group: { minTimeMs: 0, perWindow: { count: 2, windowMs: 150 }, highWater: 100 },
    });
    const calls = ["a", "b", "c"].map((text) => call(throttle, api.prev, "sendMessage", { chat_id: -100123, text }));
    await Promise.all(calls);
    expect(api.started.map((s) => s.text)).toEqual(["a", "b", "c"]);
    expect(api.started[2]!.at - api.started[0]!.at).toBeGreaterThanOrEqual(148);
  });

  it("refuses the newest call when a chat's queue is full, and the calls already queued still go out in order", async () => {
    const api = fakeApi({ hold: true });
    const throttle = chatThrottler({ ...LOOSE, private: { minTimeMs: 0, highWater: 2 } });
    const first = call(throttle, api.prev, "sendMessage", { chat_id: 5, text: "1" });
    const queued = [
      call(throttle, api.prev, "sendMessage", { chat_id: 5, text: "2" }),
      call(throttle, api.prev, "sendMessage", { chat_id: 5, text: "3" }),
    ];
    await expect(call(throttle, api.prev, "sendMessage", { chat_id: 5, text: "4" })).rejects.toBeInstanceOf(
      ThrottleQueueFullError,
    );
    // Another chat is not affected.
    void call(throttle, api.prev, "sendMessage", { chat_id: 6, text: "other" });
    for (let i = 0; i < 4; i++) {
      api.releaseNext();
      await tick();
    }
    await Promise.all([first, ...queued]);
    expect(api.started.filter((s) => s.chatId === 5).map((s) => s.text)).toEqual(["1", "2", "3"]);
  });

  it("passes calls without a chat (callback answers, polls) straight through, whatever the chats wait for", async () => {
    const api = fakeApi({ hold: true });
    const throttle = chatThrottler({ ...LOOSE, overall: { perSecond: 1, maxConcurrent: 1, highWater: 1_000 } });
    void call(throttle, api.prev, "sendMessage", { chat_id: 1, text: "a" });
    void call(throttle, api.prev, "sendMessage", { chat_id: 2, text: "b" });
    void call(throttle, api.prev, "answerCallbackQuery", { callback_query_id: "x" });
    expect(api.started.map((s) => s.method)).toEqual(["sendMessage", "answerCallbackQuery"]);
  });

  it("passes an error of the call to its caller and goes on with the chat's next call", async () => {
    const started: string[] = [];
    const prev = ((_method: string, payload: { text: string }) => {
      started.push(payload.text);
      return payload.text === "bad"
        ? Promise.reject(new Error("refused"))
        : Promise.resolve({ ok: true, result: true });
    }) as unknown as Prev;
    const throttle = chatThrottler(LOOSE);
    const bad = call(throttle, prev, "sendMessage", { chat_id: 1, text: "bad" });
    const good = call(throttle, prev, "sendMessage", { chat_id: 1, text: "good" });
    await expect(bad).rejects.toThrow("refused");
    await expect(good).resolves.toEqual({ ok: true, result: true });
    expect(started).toEqual(["bad", "good"]);
  });
});
