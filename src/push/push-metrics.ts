import type { Kysely } from "kysely";
import type { Database } from "#src/db/schema";
import type { Metrics } from "#src/metrics";
import { countOpenFollows } from "#src/db/repos/followed-orders";
import { leasedBy, queueDepth } from "#src/db/repos/outbox";
import { oldestQueuedAlertAgeSeconds } from "#src/db/repos/outbox-age";
import { countPollLeasesHeld, countUsersLeftIn, currentPollCycle } from "#src/db/repos/poll-cycles";
import { countUsersBySchedule, MOTION_REASONS } from "#src/db/repos/poll-schedule";

// The gauges /metrics shows of pushed alerts: the outbox, this replica's leases, the poll cycles and schedules, the followed orders.

/** Registers the push gauges. */
export function registerPushGauges(
  deps: { db: Kysely<Database>; metrics: Metrics; now: () => number },
  replicaId: string,
): void {
  deps.metrics.gauge("outbox_queue_depth", "Alerts queued and not yet sent", () => queueDepth(deps.db));
  deps.metrics.gauge("replica_outbox_leases", "Outbox rows this replica holds a lease on", () =>
    leasedBy(deps.db, replicaId, deps.now()),
  );
  deps.metrics.gauge("replica_poll_leases", "Users this replica holds a poll lease on", () =>
    countPollLeasesHeld(deps.db, replicaId, deps.now()),
  );
  deps.metrics.gauge(
    "poll_cycle_pending_users",
    "Linked users due in the open cycle and not yet polled in it",
    async () => {
      const cycle = await currentPollCycle(deps.db);
      return cycle === null ? 0 : countUsersLeftIn(deps.db, cycle, deps.now());
    },
  );
  deps.metrics.labeledGauge(
    "poll_schedule_users",
    "Linked users with a working key by poll schedule: fast (every tick) with the reason (rule, order, deposit), or idle (every POLL_IDLE_INTERVAL)",
    async () => {
      const counts = await countUsersBySchedule(deps.db);
      return [
        { labels: { schedule: "idle", reason: "none" }, value: counts.idle },
        ...MOTION_REASONS.map((reason) => ({ labels: { schedule: "fast", reason }, value: counts[reason] })),
      ];
    },
  );
  deps.metrics.gauge(
    "outbox_oldest_alert_age_seconds",
    "Seconds the oldest queued alert has waited since its event (0 when none is queued)",
    () => oldestQueuedAlertAgeSeconds(deps.db, deps.now()),
  );
  deps.metrics.gauge("followed_orders_open", "Orders followed until they settle", () => countOpenFollows(deps.db));
}
