import type { Kysely } from "kysely";
import type { Database } from "../schema";
import { claimedKeys, leaseFor, leaseFree } from "../lease-claim";
import { deleteChunk } from "../chunked-delete";

// Poll cycles (one per cron tick), the users due in one, and the poll leases replicas hold on them.

/**
 * Opens a poll cycle. Every replica's cron tick calls this with the tick's scheduled time, so the
 * first insert opens the cycle and the others find it open: a tick never starts two cycles. Users
 * linked without a poll_state row get one here (they are due in this cycle).
 */
export async function openPollCycle(
  db: Kysely<Database>,
  owner: string,
  id: number,
  now: number,
  options: { everyone?: boolean } = {},
): Promise<number> {
  await db
    .insertInto("poll_cycles")
    .values({ id, opened_by: owner, opened_at: now, everyone: options.everyone ? 1 : 0 })
    .onConflict((oc) => oc.doNothing())
    .execute();
  await db
    .insertInto("poll_state")
    .columns(["telegram_id", "primed", "failures", "next_poll_at"])
    .expression((eb) =>
      eb
        .selectFrom("credentials as c")
        .select((e) => ["c.telegram_id", e.lit(0).as("primed"), e.lit(0).as("failures"), e.lit(0).as("next_poll_at")])
        .where((e) =>
          e.not(
            e.exists(
              e.selectFrom("poll_state as s").select("s.telegram_id").whereRef("s.telegram_id", "=", "c.telegram_id"),
            ),
          ),
        ),
    )
    .onConflict((oc) => oc.doNothing())
    .execute();
  return id;
}

/**
 * A cycle as the claims read it. A scheduled cycle covers the users due when it opened (fast ones,
 * idle ones whose interval has passed); users who become due while it runs wait for the next, so
 * a cycle always ends. An `everyone` cycle (on demand) covers every linked user whose back-off
 * has passed, whatever their schedule.
 */
export interface PollCycle {
  id: number;
  openedAt: number;
  everyone: boolean;
}

/** The cycle with this id (null when retention removed it: nobody is due in it any more). */
export async function findPollCycle(db: Kysely<Database>, id: number): Promise<PollCycle | null> {
  const row = await db
    .selectFrom("poll_cycles")
    .select(["id", "opened_at", "everyone"])
    .where("id", "=", id)
    .executeTakeFirst();
  return row ? { id: Number(row.id), openedAt: Number(row.opened_at), everyone: Number(row.everyone) === 1 } : null;
}

const asCycle = async (db: Kysely<Database>, cycle: number | PollCycle): Promise<PollCycle | null> =>
  typeof cycle === "number" ? findPollCycle(db, cycle) : cycle;

/** The newest cycle (the one replicas work on), or null before the first. */
export async function currentPollCycle(db: Kysely<Database>): Promise<number | null> {
  const row = await db
    .selectFrom("poll_cycles")
    .select((eb) => eb.fn.max("id").as("id"))
    .executeTakeFirst();
  return row?.id === null || row?.id === undefined ? null : Number(row.id);
}

/** A fresh cycle id after every existing one (an on-demand cycle: /play, tests, the benchmark). */
export async function nextPollCycleId(db: Kysely<Database>, wallNow: number): Promise<number> {
  const current = await currentPollCycle(db);
  return Math.max(wallNow, (current ?? 0) + 1);
}

/**
 * Claims up to `limit` users due in `cycle` (not yet polled in it, due by their schedule, nobody
 * holding them) with a lease ({@link claimedKeys}): replicas claiming together take disjoint users.
 */
export async function claimUsersToPoll(
  db: Kysely<Database>,
  owner: string,
  cycleOrId: number | PollCycle,
  now: number,
  limit: number,
  leaseMs: number,
): Promise<number[]> {
  const cycle = await asCycle(db, cycleOrId);
  if (!cycle) return [];
  // In next_poll_at order on the (next_poll_at, last_cycle) index: the users still due come
  // first, and the idle majority (due later) and those done in this cycle (due from now on)
  // are never passed over.
  const candidates = usersDueIn(db, cycle, now)
    .where(leaseFree(now, "s.lease_until"))
    .orderBy("s.next_poll_at")
    .limit(limit);
  const rows = await db
    .updateTable("poll_state")
    .set(leaseFor(owner, now + leaseMs))
    .where(claimedKeys(db, "telegram_id", candidates, now, "s"))
    .where("last_cycle", "<", cycle.id)
    .returning("telegram_id")
    .execute();
  return rows.map((row) => Number(row.telegram_id)).sort((a, b) => a - b);
}

/**
 * Whether the cycle still has users to poll: due in it, linked with a working key, active, and not
 * yet done in it, whether or not a replica holds them right now.
 */
export async function cycleHasUsersLeft(
  db: Kysely<Database>,
  cycleOrId: number | PollCycle,
  now: number,
): Promise<boolean> {
  const cycle = await asCycle(db, cycleOrId);
  if (!cycle) return false;
  const row = await usersDueIn(db, cycle, now).limit(1).executeTakeFirst();
  return row !== undefined;
}

/**
 * Whether this replica could claim a user of the cycle now: one left that nobody holds (or whose
 * holder's lease ran out). A cron tick works on the open cycle while this is true, so a slow cycle
 * is finished, not overtaken; once every user left is held by others (a replica finishing its last
 * batch, or one that stopped without handing them back), the tick opens the next cycle instead of
 * waiting on them, and they are polled in it once their holder lets go.
 */
export async function cycleHasClaimableUsers(
  db: Kysely<Database>,
  cycleOrId: number | PollCycle,
  now: number,
): Promise<boolean> {
  const cycle = await asCycle(db, cycleOrId);
  if (!cycle) return false;
  const row = await usersDueIn(db, cycle, now).where(leaseFree(now, "s.lease_until")).limit(1).executeTakeFirst();
  return row !== undefined;
}

/** How many users are still to poll in the cycle (for /metrics). */
export async function countUsersLeftIn(
  db: Kysely<Database>,
  cycleOrId: number | PollCycle,
  now: number,
): Promise<number> {
  const cycle = await asCycle(db, cycleOrId);
  if (!cycle) return 0;
  const row = await db
    .selectFrom(usersDueIn(db, cycle, now).as("due"))
    .select((eb) => eb.fn.countAll<number>().as("n"))
    .executeTakeFirst();
  return Number(row?.n ?? 0);
}

/**
 * The users still to poll in `cycle`: linked with a working key, active, not done in it, and due:
 * in a scheduled cycle, by their schedule when it opened (next_poll_at: the next cycle for a fast
 * user, POLL_IDLE_INTERVAL later for an idle one, or the end of a back-off); in an `everyone`
 * cycle, unless backing off.
 */
function usersDueIn(db: Kysely<Database>, cycle: PollCycle, now: number) {
  return db
    .selectFrom("poll_state as s")
    .innerJoin("credentials as c", "c.telegram_id", "s.telegram_id")
    .innerJoin("users as u", "u.telegram_id", "s.telegram_id")
    .select("s.telegram_id")
    .where("c.broken_at", "is", null)
    .where("u.active", "=", 1)
    .where("s.last_cycle", "<", cycle.id)
    .$if(!cycle.everyone, (qb) => qb.where("s.next_poll_at", "<=", cycle.openedAt))
    .$if(cycle.everyone, (qb) => qb.where((eb) => eb.or([eb("s.failures", "=", 0), eb("s.next_poll_at", "<=", now)])));
}

/**
 * Gives back every user this replica holds a poll lease on (a clean stop, after its polls were
 * stopped), so another replica or the next start polls them at once instead of after the lease.
 * A poll still in flight then records nothing (its outcome is fenced by the lease); its user is
 * simply polled again, and the outbox's dedupe keys keep that to one alert per notification.
 */
export async function releasePollLeases(db: Kysely<Database>, owner: string): Promise<number> {
  const result = await db
    .updateTable("poll_state")
    .set({ lease_owner: null, lease_until: null })
    .where("lease_owner", "=", owner)
    .executeTakeFirst();
  return Number(result.numUpdatedRows);
}

/**
 * Deletes up to `limit` poll cycles opened before `before`, never the newest (the one replicas
 * work on and the next id counts from). Returns how many went.
 */
export async function deletePollCyclesBefore(db: Kysely<Database>, before: number, limit: number): Promise<number> {
  const newest = await currentPollCycle(db);
  if (newest === null) return 0;
  return deleteChunk(db, "poll_cycles", "id", limit, (eb) =>
    eb.and([eb("id", "<", newest), eb("opened_at", "<", before)]),
  );
}

/** Hands back users claimed in a cycle that was stopped before they were polled, while this replica still holds them. */
export async function releaseUnpolledUsers(db: Kysely<Database>, owner: string, telegramIds: number[]): Promise<void> {
  await db
    .updateTable("poll_state")
    .set({ lease_owner: null, lease_until: null })
    .where("telegram_id", "in", telegramIds)
    .where("lease_owner", "=", owner)
    .execute();
}

/** How many users this replica holds a poll lease on now (for /metrics). */
export async function countPollLeasesHeld(db: Kysely<Database>, owner: string, now: number): Promise<number> {
  const row = await db
    .selectFrom("poll_state")
    .select((eb) => eb.fn.countAll<number>().as("n"))
    .where("lease_owner", "=", owner)
    .where("lease_until", ">=", now)
    .executeTakeFirst();
  return Number(row?.n ?? 0);
}
