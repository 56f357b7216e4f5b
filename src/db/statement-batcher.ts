/**
 * Coalesces the same statement asked for by concurrent callers into one (PostgreSQL, where every
 * statement is a round trip whose driver work, the protocol's messages, the result's parsing and
 * the promises around them, costs the process more CPU than most of an update). While fewer than `maxInFlight` statements run and nobody waits, a call
 * runs at once on its own, exactly as without the batcher; once they all run, callers queue, and
 * each statement that ends sends the queue on as one batch. So an idle bot waits for nothing, and
 * a busy one makes fewer, larger statements the busier it is: the group commit's idea applied to
 * round trips.
 *
 * A key's calls never run at once: a batch holds each key once, and a call whose key a running
 * statement holds waits for it, so a key's calls run in order. A batch that fails is run again one
 * call at a time, so one bad input never fails its neighbours. `many` answers each input in order.
 */
export interface StatementBatcherOptions<I, O> {
  /** Calls with the same key never share a batch (an upsert may not touch a row twice). */
  key(input: I): unknown;
  /** Statements running at once before calls queue for a batch (default 2: one held by a lock leaves the other serving). */
  maxInFlight?: number;
  /** The most calls in one batch (default 64). */
  maxBatch?: number;
  one(input: I): Promise<O>;
  /** The batch's statement: one answer per input, in the inputs' order. */
  many(inputs: I[]): Promise<O[]>;
}

interface Waiting<I, O> {
  input: I;
  resolve(value: O): void;
  reject(error: unknown): void;
}

/** What a batcher did so far: statements run (a failed batch's calls run again counted too), calls answered, batches and failed batches. */
export interface BatcherCounts {
  statements: number;
  calls: number;
  batches: number;
  failedBatches: number;
}

export class StatementBatcher<I, O> {
  private readonly maxInFlight: number;
  private readonly maxBatch: number;
  private inFlight = 0;
  private queue: Array<Waiting<I, O>> = [];
  /** The keys of the calls running now. */
  private readonly running = new Set<unknown>();
  /** Read by the tests. */
  readonly counts: BatcherCounts = { statements: 0, calls: 0, batches: 0, failedBatches: 0 };

  constructor(private readonly options: StatementBatcherOptions<I, O>) {
    this.maxInFlight = options.maxInFlight ?? 2;
    this.maxBatch = options.maxBatch ?? 64;
  }

  run(input: I): Promise<O> {
    return new Promise<O>((resolve, reject) => {
      this.queue.push({ input, resolve, reject });
      this.flush();
    });
  }

  private flush(): void {
    while (this.inFlight < this.maxInFlight && this.queue.length > 0) {
      const batch = this.take();
      if (batch.length === 0) return;
      this.start(batch);
    }
  }

  /**
   * The next batch: the queue's first calls, at most one per key and none whose key a running
   * statement holds, the rest left in order (so a key's calls run one after another, in order).
   */
  private take(): Array<Waiting<I, O>> {
    const batch: Array<Waiting<I, O>> = [];
    const keys = new Set<unknown>();
    const left: Array<Waiting<I, O>> = [];
    for (const waiting of this.queue) {
      const key = this.options.key(waiting.input);
      if (batch.length < this.maxBatch && !keys.has(key) && !this.running.has(key)) batch.push(waiting);
      else left.push(waiting);
      keys.add(key);
    }
    this.queue = left;
    return batch;
  }

  private start(batch: Array<Waiting<I, O>>): void {
    this.inFlight += 1;
    this.counts.statements += 1;
    this.counts.calls += batch.length;
    const keys = batch.map((waiting) => this.options.key(waiting.input));
    for (const key of keys) this.running.add(key);
    const done = () => {
      this.inFlight -= 1;
      for (const key of keys) this.running.delete(key);
      this.flush();
    };
    if (batch.length === 1) {
      const [only] = batch as [Waiting<I, O>];
      this.options.one(only.input).then(only.resolve, only.reject).finally(done);
      return;
    }
    this.counts.batches += 1;
    this.options
      .many(batch.map((waiting) => waiting.input))
      .then(
        (answers) => {
          if (answers.length !== batch.length)
            throw new Error(`a batched statement answered ${answers.length} of ${batch.length} calls`);
          batch.forEach((waiting, index) => waiting.resolve(answers[index] as O));
        },
        // One at a time: a bad input fails only its own call.
        () => {
          this.counts.failedBatches += 1;
          this.counts.statements += batch.length;
          return Promise.all(
            batch.map((waiting) => this.options.one(waiting.input).then(waiting.resolve, waiting.reject)),
          );
        },
      )
      .catch((error: unknown) => {
        for (const waiting of batch) waiting.reject(error);
      })
      .finally(done);
  }
}

/**
 * One batcher per database for a statement: `build` makes it the first time a database asks (the
 * batchers of the update's reads and the flows' saves, one per pool they run on).
 */
export function perDatabase<D extends object, I, O>(
  build: (db: D) => StatementBatcherOptions<I, O>,
): (db: D) => StatementBatcher<I, O> {
  const batchers = new WeakMap<D, StatementBatcher<I, O>>();
  return (db) => {
    let batcher = batchers.get(db);
    if (!batcher) {
      batcher = new StatementBatcher(build(db));
      batchers.set(db, batcher);
    }
    return batcher;
  };
}
