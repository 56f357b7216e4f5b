import { setMaxListeners } from "node:events";
import type { Kysely } from "kysely";
import type { Database } from "#src/db/schema";
import type { Logger } from "#src/logger";
import type { Metrics } from "#src/metrics";
import { currentPollCycle, cycleHasClaimableUsers, nextPollCycleId, openPollCycle } from "#src/db/repos/poll-cycles";
import { pollCycle } from "./poll-cycle";
import type { PollerDeps } from "./poller-deps";

// This replica's share of the notification polls: cron ticks, the open cycle joined, polls on demand.

type CycleResult = { users: number; queued: number };

/** This replica's poll work, one cycle at a time (a new cycle waits for the one in progress). */
export class PollWork {
  private chain: Promise<unknown> = Promise.resolve();
  /** Poll work queued or running on this replica: a cron tick is skipped while there is any. */
  private polling = 0;
  private closed = false;
  /** Aborted by stop(): the running cycle claims no more users and hands back the ones it holds. */
  private readonly stopPolling = new AbortController();

  constructor(
    private readonly deps: {
      db: Kysely<Database>;
      logger: Logger;
      now: () => number;
      metrics: Pick<Metrics, "pollTicksSkipped" | "pollCycleSeconds">;
    },
    private readonly pollerDeps: PollerDeps,
    private readonly replicaId: string,
    private readonly leaseMs: number,
  ) {
    // Every poll worker waiting for its rate slot listens for the abort (and stops listening after
    // the wait): more than Node's default of 10 at once is expected, not a leak.
    setMaxListeners(0, this.stopPolling.signal);
  }

  /**
   * A cron tick. Skipped while this replica's cycle is unfinished; works on the open cycle while
   * it has users this replica can claim, and otherwise opens the tick's cycle: when every user left
   * is held by another replica (finishing its last batch, or stopped without handing them back),
   * the users due meanwhile are polled in the new cycle rather than waiting on those leases. Every
   * replica's tick names the same cycle (its scheduled second), so the first to open it wins.
   */
  async onTick(tick: number): Promise<CycleResult | null> {
    if (this.closed) return null;
    if (this.polling > 0) {
      this.deps.metrics.pollTicksSkipped.inc();
      this.deps.logger.info({ tick }, "poll cycle still running; this cron tick is skipped");
      return null;
    }
    const { db, logger, now } = this.deps;
    return this.queue(async () => {
      const open = await currentPollCycle(db);
      if (open !== null && open >= tick) {
        // The tick's own cycle (or a later one) is already open: another replica's tick opened it first.
        logger.debug({ cycle: open }, "another replica opened this tick's poll cycle; working on it too");
      } else if (open !== null && (await cycleHasClaimableUsers(db, open, now()))) {
        logger.info(
          { cycle: open },
          "the open poll cycle still has users left; working on it instead of opening another",
        );
      } else {
        await openPollCycle(db, this.replicaId, tick, now());
      }
      const cycle = await currentPollCycle(db);
      return cycle === null ? null : this.workOn(cycle);
    });
  }

  /** A cron tick now, for the next cycle id (see PushHandle.pollTick). */
  async pollTick(): Promise<CycleResult | null> {
    return this.onTick(await nextPollCycleId(this.deps.db, Date.now()));
  }

  /** Joins the open cycle (another replica's tick, or users left by a replica that died). */
  async joinPoll(): Promise<CycleResult | null> {
    if (this.polling > 0 || this.closed) return null;
    const cycle = await currentPollCycle(this.deps.db);
    // Only a cycle with users left to claim is joined, so a tick skipped meanwhile had nothing to open.
    if (cycle === null || !(await cycleHasClaimableUsers(this.deps.db, cycle, this.deps.now()))) return null;
    return this.queue(() => this.workOn(cycle));
  }

  /** Opens an on-demand cycle over every linked user and works on it (see PushHandle.pollNow). */
  async pollNow(): Promise<CycleResult | null> {
    const cycle = await openPollCycle(
      this.deps.db,
      this.replicaId,
      await nextPollCycleId(this.deps.db, Date.now()),
      this.deps.now(),
      { everyone: true },
    );
    return this.queue(() => this.workOn(cycle));
  }

  /** No cron tick or join starts poll work from now on. */
  close(): void {
    this.closed = true;
  }

  /** Stops the running cycle (it claims no more users and hands back those it holds); resolves once the poll work has settled. */
  abort(): Promise<unknown> {
    this.stopPolling.abort();
    return this.chain;
  }

  /** Runs `work` after this replica's poll work in progress. */
  private queue<T>(work: () => Promise<T>): Promise<T> {
    this.polling += 1;
    const run = this.chain.then(work).finally(() => {
      this.polling -= 1;
    });
    this.chain = run.catch(() => undefined);
    return run;
  }

  private workOn(cycle: number): Promise<CycleResult> {
    return this.deps.metrics.pollCycleSeconds.timeSuccess({}, () =>
      pollCycle(this.pollerDeps, this.replicaId, cycle, this.leaseMs, this.stopPolling.signal),
    );
  }
}
