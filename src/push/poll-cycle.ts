import type { PollOutcome } from "#src/db/repos/poll-outcomes";
import { recordPollOutcomes } from "#src/db/repos/poll-outcomes";
import { claimUsersToPoll, findPollCycle, releaseUnpolledUsers, type PollCycle } from "#src/db/repos/poll-cycles";
import { scheduleCommit } from "#src/db/write-batcher";
import { loadTargets, pollTarget, type PollTarget } from "./poll-target";
import { DEFAULT_IDLE_INTERVAL_MS, type PollerDeps } from "./poller-deps";

// A poll cycle worked on by this replica: users claimed in batches, polled at the poll rate, their outcomes group-committed.

/**
 * Works on one poll cycle with the other replicas: claims batches of due users until none is
 * left (the next batch is claimed while the current one is still being polled), polls each with
 * bounded concurrency and at most `ratePerSecond` marketplace requests per second from this
 * replica, and records the outcomes in group commits (one transaction for every user finished
 * meanwhile). Users a dead replica held come back when their lease runs out.
 */
export async function pollCycle(
  deps: PollerDeps,
  owner: string,
  cycleId: number,
  leaseMs = 60_000,
  signal?: AbortSignal,
): Promise<{ users: number; queued: number }> {
  const cycle = await findPollCycle(deps.db, cycleId);
  if (!cycle) return { users: 0, queued: 0 };
  const concurrency = deps.concurrency ?? 16;
  const pace = pacer(deps.ratePerSecond, signal);
  const claims = new UserClaims(deps, owner, cycle, Math.max(concurrency * 2, 32), leaseMs, signal);
  const writer = new OutcomeWriter(deps, deps.idleIntervalMs ?? DEFAULT_IDLE_INTERVAL_MS, { owner, id: cycle.id });
  let polled = 0;
  /** Users claimed but not polled when the cycle was stopped: their leases are let go at the end. */
  const unpolled: number[] = [];
  const worker = async () => {
    for (;;) {
      if (signal?.aborted) {
        claims.exhausted = true;
        unpolled.push(...claims.queue.splice(0).map((target) => target.telegramId));
        return;
      }
      if (claims.queue.length < claims.batchSize / 2 && !claims.exhausted) void claims.refill();
      const target = claims.queue.shift();
      if (!target) {
        if (claims.exhausted && !claims.claiming) return;
        await (claims.claiming ?? claims.refill());
        continue;
      }
      await pace();
      if (signal?.aborted) {
        unpolled.push(target.telegramId);
        continue;
      }
      polled += 1;
      const outcome = await pollTarget(deps, target, pace).catch((error: unknown): PollOutcome => {
        deps.logger.warn({ err: error }, "notification poll of one user failed");
        return { telegramId: target.telegramId, kind: "skipped" };
      });
      writer.add(outcome);
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  while (claims.claiming) await claims.claiming;
  unpolled.push(...claims.queue.splice(0).map((target) => target.telegramId));
  await writer.flush();
  if (unpolled.length > 0) {
    // Stopped: hand these users back now rather than when the lease runs out, so another
    // replica (or the next start) polls them in this cycle.
    await releaseUnpolledUsers(deps.db, owner, unpolled);
  }
  return { users: polled, queued: writer.queued };
}

/** Request slots taken at the poll rate: one per user, and one per further page or rule list read. */
function pacer(ratePerSecond: number, signal?: AbortSignal): () => Promise<void> {
  const interval = 1000 / ratePerSecond;
  const started = Date.now();
  let slots = 0;
  return async () => {
    const wait = started + slots++ * interval - Date.now();
    if (wait > 0) await abortableSleep(wait, signal);
  };
}

/** Batches of due users claimed for this replica; the next batch is claimed while the current one is polled. */
class UserClaims {
  readonly queue: PollTarget[] = [];
  /** No user left to claim (or claiming failed, or the cycle was stopped). */
  exhausted = false;
  /** The claim in flight, if any. */
  claiming: Promise<void> | null = null;

  constructor(
    private readonly deps: PollerDeps,
    private readonly owner: string,
    private readonly cycle: PollCycle,
    readonly batchSize: number,
    private readonly leaseMs: number,
    private readonly signal?: AbortSignal,
  ) {}

  /** Claims the next batch, unless a claim is already in flight (then that one is returned). */
  refill(): Promise<void> {
    if (this.signal?.aborted) {
      this.exhausted = true;
      return Promise.resolve();
    }
    this.claiming ??= (async () => {
      try {
        const ids = await claimUsersToPoll(
          this.deps.db,
          this.owner,
          this.cycle,
          this.deps.now(),
          this.batchSize,
          this.leaseMs,
        );
        if (ids.length === 0) this.exhausted = true;
        else this.queue.push(...(await loadTargets(this.deps.db, ids)));
      } catch (error) {
        this.deps.logger.warn(
          { err: error },
          "could not claim users to poll; the rest of this cycle is left to the next tick",
        );
        this.exhausted = true;
      } finally {
        this.claiming = null;
      }
    })();
    return this.claiming;
  }
}

/** Poll outcomes recorded in group commits: one transaction for every user finished meanwhile. */
class OutcomeWriter {
  /** Alerts queued by the commits so far. */
  queued = 0;
  private readonly pending: PollOutcome[] = [];
  private writing: Promise<void> | null = null;
  private lastCommitAt = -Infinity;

  constructor(
    private readonly deps: PollerDeps,
    private readonly idleMs: number,
    private readonly cycle: { owner: string; id: number },
  ) {}

  /** Adds an outcome to the next commit. */
  add(outcome: PollOutcome): void {
    this.pending.push(outcome);
    void this.write();
  }

  /** Resolves once every outcome added so far is committed (or given up on). */
  async flush(): Promise<void> {
    while (this.writing || this.pending.length > 0) await (this.writing ?? this.write());
  }

  private write(): Promise<void> {
    this.writing ??= (async () => {
      // Let the outcomes finishing in this turn of the loop, and up to commitGapMs after the last
      // commit, join the same commit.
      await new Promise<void>((resolve) =>
        scheduleCommit(this.lastCommitAt, this.deps.commitGapMs ?? 25, this.pending.length >= 256, resolve),
      );
      while (this.pending.length > 0) {
        this.lastCommitAt = performance.now();
        const batch = this.pending.splice(0, 256);
        try {
          const added = await recordPollOutcomes(this.deps.db, batch, this.deps.now(), this.idleMs, this.cycle);
          this.queued += added;
          if (added > 0) this.deps.onQueued();
        } catch (error) {
          this.deps.logger.warn(
            { err: error, users: batch.length },
            "could not record polls; those users' leases will run out and they are polled again",
          );
        }
      }
      this.writing = null;
    })();
    return this.writing;
  }
}

function abortableSleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal?.aborted) return resolve();
    const done = () => {
      clearTimeout(timer);
      signal?.removeEventListener("abort", done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal?.addEventListener("abort", done, { once: true });
  });
}
