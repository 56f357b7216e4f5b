import { describe, expect, it } from "vitest";
import { StatementBatcher } from "#src/db/statement-batcher";

/** A statement that answers when the test says so, recording what each call and batch asked. */
function scripted(options: { maxInFlight: number; maxBatch?: number; failBatch?: boolean; badInput?: number }) {
  const ones: number[] = [];
  const batches: number[][] = [];
  const pending: Array<() => void> = [];
  const answer = <T>(value: () => T) =>
    new Promise<T>((resolve, reject) => {
      pending.push(() => {
        try {
          resolve(value());
        } catch (error) {
          reject(error);
        }
      });
    });
  const batcher = new StatementBatcher<{ user: number; n: number }, string>({
    key: (input) => input.user,
    maxInFlight: options.maxInFlight,
    maxBatch: options.maxBatch ?? 64,
    one: (input) => {
      ones.push(input.n);
      return answer(() => {
        if (input.n === options.badInput) throw new Error(`bad input ${input.n}`);
        return `one:${input.n}`;
      });
    },
    many: (inputs) => {
      batches.push(inputs.map((input) => input.n));
      return answer(() => {
        if (options.failBatch) throw new Error("the batch failed");
        return inputs.map((input) => `many:${input.n}`);
      });
    },
  });
  /** Answers every statement running now; returns how many there were. */
  const answerAll = async () => {
    const now = pending.splice(0);
    for (const finish of now) finish();
    // Let the answers settle and the next batch start.
    for (let i = 0; i < 5; i++) await Promise.resolve();
    await new Promise((resolve) => setImmediate(resolve));
    return now.length;
  };
  return { batcher, ones, batches, answerAll, running: () => pending.length };
}

describe("the statement batcher", () => {
  it("runs a call on its own at once while statements are free, and queues the rest for one batch", async () => {
    const { batcher, ones, batches, answerAll, running } = scripted({ maxInFlight: 2 });
    const calls = [1, 2, 3, 4, 5].map((n) => batcher.run({ user: n, n }));
    // The first two ran alone, nothing waited for a batch to fill.
    expect(ones).toEqual([1, 2]);
    expect(running()).toBe(2);
    expect(batches).toEqual([]);
    expect(await answerAll()).toBe(2);
    // The three queued meanwhile went together when the first statement ended.
    expect(batches).toEqual([[3, 4, 5]]);
    await answerAll();
    expect(await Promise.all(calls)).toEqual(["one:1", "one:2", "many:3", "many:4", "many:5"]);
    expect(batcher.counts).toEqual({ statements: 3, calls: 5, batches: 1, failedBatches: 0 });
  });

  it("never puts two calls with the same key in one batch, and keeps a key's calls in order", async () => {
    const { batcher, batches, answerAll } = scripted({ maxInFlight: 1 });
    const first = batcher.run({ user: 9, n: 0 });
    const calls = [
      { user: 1, n: 1 },
      { user: 1, n: 2 },
      { user: 2, n: 3 },
      { user: 1, n: 4 },
      { user: 3, n: 5 },
    ].map((input) => batcher.run(input));
    await answerAll();
    expect(batches).toEqual([[1, 3, 5]]);
    await answerAll();
    expect(batches).toEqual([[1, 3, 5]]);
    // The second batch holds one call: it runs as a call of its own.
    await answerAll();
    await answerAll();
    expect(await first).toBe("one:0");
    expect(await Promise.all(calls)).toEqual(["many:1", "one:2", "many:3", "one:4", "many:5"]);
  });

  it("caps a batch at maxBatch", async () => {
    const { batcher, batches, answerAll } = scripted({ maxInFlight: 1, maxBatch: 3 });
    const calls = Array.from({ length: 8 }, (_, n) => batcher.run({ user: n, n }));
    await answerAll();
    await answerAll();
    await answerAll();
    await answerAll();
    // The eighth call was left alone in the queue: it ran as a call of its own.
    expect(batches).toEqual([
      [1, 2, 3],
      [4, 5, 6],
    ]);
    expect(await Promise.all(calls)).toHaveLength(8);
  });

  it("runs a failed batch's calls again one at a time, so only the bad input fails", async () => {
    const { batcher, ones, answerAll } = scripted({ maxInFlight: 1, failBatch: true, badInput: 3 });
    const calls = [0, 1, 2, 3, 4].map((n) =>
      batcher.run({ user: n, n }).then(
        (value) => ({ value }),
        (error: Error) => ({ error: error.message }),
      ),
    );
    await answerAll();
    // The batch of 1 to 4 failed; each runs again on its own.
    await answerAll();
    await answerAll();
    expect(ones).toEqual([0, 1, 2, 3, 4]);
    // The batch and the four statements after it.
    expect(batcher.counts).toEqual({ statements: 6, calls: 5, batches: 1, failedBatches: 1 });
    expect(await Promise.all(calls)).toEqual([
      { value: "one:0" },
      { value: "one:1" },
      { value: "one:2" },
      { error: "bad input 3" },
      { value: "one:4" },
    ]);
  });

  it("holds a call back while a statement with its key runs, even with a statement free", async () => {
    const { batcher, ones, answerAll, running } = scripted({ maxInFlight: 2 });
    const first = batcher.run({ user: 1, n: 1 });
    const second = batcher.run({ user: 1, n: 2 });
    const other = batcher.run({ user: 2, n: 3 });
    // User 1's second call waits for the first; user 2's call takes the free statement.
    expect(ones).toEqual([1, 3]);
    expect(running()).toBe(2);
    await answerAll();
    expect(ones).toEqual([1, 3, 2]);
    await answerAll();
    expect(await Promise.all([first, second, other])).toEqual(["one:1", "one:2", "one:3"]);
  });
});
