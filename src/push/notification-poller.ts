import { nextPollCycleId, openPollCycle } from "#src/db/repos/poll-cycles";
import { recordPollOutcomes } from "#src/db/repos/poll-outcomes";
import { resetPollState } from "#src/db/repos/poll-schedule";
import { pollCycle } from "./poll-cycle";
import { loadTargets, pollTarget } from "./poll-target";
import { DEFAULT_IDLE_INTERVAL_MS, type PollerDeps } from "./poller-deps";

// The notification poller's entry points outside a cron cycle: priming at link time, one user now, everyone now.

/**
 * Records a user's existing notifications as seen (at link time), so they are not replayed as
 * alerts, and reads their rule list (the key may belong to another account than before).
 */
export async function primeNotifications(deps: PollerDeps, telegramId: number): Promise<void> {
  await resetPollState(deps.db, telegramId, deps.now());
  await pollUser(deps, telegramId).catch((error: unknown) =>
    deps.logger.warn({ err: error, userId: telegramId }, "priming notifications failed; the first poll will do it"),
  );
}

/** Polls one user now (at link time, to prime); queues the notifications not yet relayed. */
export async function pollUser(deps: PollerDeps, telegramId: number): Promise<number> {
  const [target] = await loadTargets(deps.db, [telegramId]);
  const outcome = await pollTarget(deps, target!);
  const queued = await recordPollOutcomes(
    deps.db,
    [outcome],
    deps.now(),
    deps.idleIntervalMs ?? DEFAULT_IDLE_INTERVAL_MS,
  );
  if (queued > 0) deps.onQueued();
  return queued;
}

/** One on-demand poll cycle over every active linked user whose back-off has passed, whatever their schedule (single-replica helper). */
export async function pollAll(deps: PollerDeps, owner = "local"): Promise<{ users: number; queued: number }> {
  const cycle = await openPollCycle(deps.db, owner, await nextPollCycleId(deps.db, Date.now()), deps.now(), {
    everyone: true,
  });
  return pollCycle(deps, owner, cycle);
}
