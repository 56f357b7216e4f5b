import { type Kysely, type Transaction } from "kysely";
import type { Database } from "./schema";
import { isPostgres } from "./dialect";

/**
 * When the next group commit runs: on the next turn of the loop, or, while the last commit
 * started less than `gapMs` ago and the batch is not full yet, once that gap has passed (so a
 * steady stream of writes shares commits instead of paying one fsync each).
 */
export function scheduleCommit(lastCommitAt: number, gapMs: number, full: boolean, run: () => void): void {
  const wait = lastCommitAt + gapMs - performance.now();
  if (wait > 0 && !full) setTimeout(run, wait);
  else setImmediate(run);
}

type Write<T> = (db: Kysely<Database> | Transaction<Database>) => Promise<T>;

interface Queued {
  write: Write<unknown>;
  resolve(value: unknown): void;
  reject(error: unknown): void;
}

/**
 * Group commit for the small writes of concurrent updates (a guided flow's step, a new user): on
 * SQLite with synchronous=FULL every commit is an fsync that holds the event loop, so the writes
 * asked for in one turn of the loop share one transaction. Each caller's promise settles only
 * after the transaction holding its write has committed, exactly as a commit of its own would.
 * A write must touch the database only (no network inside). If the shared transaction fails,
 * every write is retried in a transaction of its own, so one bad write never fails its neighbours.
 * On PostgreSQL each write runs at once on the pool (commits there do not hold the event loop).
 */
export class WriteBatcher {
  private queue: Queued[] = [];
  private scheduled = false;
  private running = false;
  private readonly direct: boolean;

  constructor(
    private readonly db: Kysely<Database>,
    private readonly maxBatch = 128,
  ) {
    this.direct = isPostgres(db);
  }

  /** Runs a write on its own (PostgreSQL) or in the next shared commit (SQLite). */
  run<T>(write: Write<T>): Promise<T> {
    if (this.direct) return write(this.db);
    return this.enqueue(write);
  }

  /**
   * Runs `work` inside a transaction: a transaction of its own on PostgreSQL, the next shared
   * commit on SQLite (one writer: the writes of a batch run one after another, each seeing the
   * ones before it).
   */
  transaction<T>(work: (trx: Transaction<Database>) => Promise<T>): Promise<T> {
    if (this.direct) return this.db.transaction().execute(work);
    return this.enqueue((trx) => work(trx as Transaction<Database>));
  }

  private enqueue<T>(write: Write<T>): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      this.queue.push({ write, resolve: resolve as (value: unknown) => void, reject });
      this.kick();
    });
  }

  private kick(): void {
    if (this.scheduled || this.running || this.queue.length === 0) return;
    this.scheduled = true;
    setImmediate(() => {
      this.scheduled = false;
      void this.flush();
    });
  }

  private async flush(): Promise<void> {
    this.running = true;
    const batch = this.queue.splice(0, this.maxBatch);
    try {
      if (batch.length === 1) {
        await this.alone(batch[0]!);
        return;
      }
      let results: unknown[];
      try {
        results = await this.db.transaction().execute(async (trx) => {
          const out: unknown[] = [];
          for (const item of batch) out.push(await item.write(trx));
          return out;
        });
      } catch {
        for (const item of batch) await this.alone(item);
        return;
      }
      batch.forEach((item, index) => item.resolve(results[index]));
    } finally {
      this.running = false;
      this.kick();
    }
  }

  private async alone(item: Queued): Promise<void> {
    try {
      item.resolve(await this.db.transaction().execute((trx) => item.write(trx)));
    } catch (error) {
      item.reject(error);
    }
  }
}
