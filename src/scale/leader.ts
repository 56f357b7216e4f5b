import type { Kysely } from "kysely";
import type { Database } from "#src/db/schema";
import type { Logger } from "#src/logger";
import { releaseNamedLease, tryLease } from "#src/db/repos/leases";
import { databaseHealth } from "#src/db/health";

export interface LeaderOptions {
  db: Kysely<Database>;
  logger: Logger;
  /** The lease row's name, e.g. "telegram-polling". */
  name: string;
  owner: string;
  /** How long a lease lasts without renewal (a dead leader is replaced within this). */
  ttlMs?: number;
  /** How often the holder renews and the others try to take over. */
  renewMs?: number;
  onLead: () => Promise<void> | void;
  onLose: () => Promise<void> | void;
  /** The level of "took the lease" (default info; debug where one replica is all there is, as in the playground). */
  leadLogLevel?: "info" | "debug";
}

export interface LeaderHandle {
  isLeader(): boolean;
  stop(): Promise<void>;
}

/**
 * Leader election by a lease row: the holder renews it every `renewMs`; when it stops renewing
 * (crash, network split) the lease expires after `ttlMs` and the next replica to try takes it.
 * A holder that fails to renew steps down at once (before the lease can pass to another).
 */
export async function startLeaderElection(options: LeaderOptions): Promise<LeaderHandle> {
  const ttlMs = options.ttlMs ?? 10_000;
  const renewMs = options.renewMs ?? 3_000;
  let leader = false;
  let stopped = false;
  let busy: Promise<void> = Promise.resolve();

  const tick = async () => {
    let holds = false;
    try {
      holds = await tryLease(options.db, options.name, options.owner, Date.now(), ttlMs);
    } catch (error) {
      // An unreachable database is logged once by its health tracker, not on every tick.
      const level = databaseHealth(options.db)?.explains(error) ? "debug" : "warn";
      options.logger[level](
        { err: error, lease: options.name },
        "could not renew or take the lease; acting as follower",
      );
    }
    if (stopped) return;
    if (holds && !leader) {
      leader = true;
      options.logger[options.leadLogLevel ?? "info"]({ lease: options.name }, "took the lease: this replica leads");
      await options.onLead();
    } else if (!holds && leader) {
      leader = false;
      options.logger.warn({ lease: options.name }, "lost the lease: this replica stops leading");
      await options.onLose();
    }
  };

  await tick();
  if (!leader)
    options.logger.info({ lease: options.name }, "another replica holds the lease; standing by to take over");
  const timer = setInterval(() => {
    busy = busy
      .then(tick)
      .catch((error: unknown) => options.logger.error({ err: error }, "leader election tick failed"));
  }, renewMs);
  timer.unref();

  return {
    isLeader: () => leader,
    async stop() {
      stopped = true;
      clearInterval(timer);
      await busy;
      if (leader) {
        leader = false;
        await options.onLose();
        await releaseNamedLease(options.db, options.name, options.owner).catch(() => undefined);
      }
    },
  };
}
