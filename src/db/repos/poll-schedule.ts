import { sql, type Kysely, type RawBuilder, type Transaction } from "kysely";
import type { Database } from "../schema";

/**
 * Why a user is polled every cycle rather than every POLL_IDLE_INTERVAL:
 * - `rule`: an active automation rule (a System auto-pause must be told within one cycle);
 * - `order`: an order the bot placed and has not seen settle, a Confirm just tapped, or a webhook
 *   for one of their orders;
 * - `deposit`: /topup or /wallet opened within the last hour.
 */
export type MotionReason = "rule" | "order" | "deposit";
/** Every reason, in order of precedence (a user with several is counted under the first). */
export const MOTION_REASONS: readonly MotionReason[] = ["rule", "order", "deposit"];

/** A deposit is expected for an hour after /topup or /wallet. */
export const DEPOSIT_EXPECTED_MS = 3_600_000;
/** After a Confirm or an order webhook, long enough for the order to be followed and its notifications read. */
export const ORDER_MOTION_MS = 15 * 60_000;
/** The rule list is read again this long after it was last read, so rules made outside the bot are found. */
export const RULE_RECHECK_MS = 86_400_000;
/**
 * A rule the bot just created or resumed (or a Confirm on a rule card) is confirmed against the
 * rule list this long after, when a creation in flight has finished and a refused one shows.
 */
export const RULE_VERIFY_AFTER_MS = 5 * 60_000;

type Db = Kysely<Database> | Transaction<Database>;

/** A time as a typed SQL value: PostgreSQL cannot tell the type of a bare parameter in a CASE. */
const at = (ms: number) => sql<number>`cast(${ms} as bigint)`;

function motionColumns(reason: MotionReason, now: number) {
  if (reason === "rule") return { rule_active: 1, rules_checked_at: now - RULE_RECHECK_MS + RULE_VERIFY_AFTER_MS };
  if (reason === "order") return { order_until: now + ORDER_MOTION_MS };
  return { deposit_until: now + DEPOSIT_EXPECTED_MS };
}

/**
 * Moves a user to the fast schedule at once (polled from the next cycle on) and records why.
 * Called from the chat (a rule created or resumed, Confirm on a card, /topup, /wallet); the
 * poller moves them back to idle on a poll that finds no reason left. Needs no transaction.
 */
export async function markInMotion(db: Db, telegramId: number, reason: MotionReason, now: number): Promise<void> {
  const columns = motionColumns(reason, now);
  await db
    .insertInto("poll_state")
    .values({ telegram_id: telegramId, primed: 0, failures: 0, next_poll_at: now, motion: reason, ...columns })
    .onConflict((oc) =>
      oc.column("telegram_id").doUpdateSet((eb) => ({
        ...columns,
        motion: eb.fn.coalesce("poll_state.motion", eb.val(reason)),
        next_poll_at: sql<number>`case when ${eb.ref("poll_state.next_poll_at")} > ${at(now)} then ${at(now)} else ${eb.ref("poll_state.next_poll_at")} end`,
      })),
    )
    .execute();
}

/**
 * {@link markInMotion} for many users at once (a batch of order webhooks), inside the caller's
 * transaction. Users without a poll state yet are left alone: a cycle polls them at once anyway.
 */
export async function markUsersInMotion(
  db: Db,
  telegramIds: number[],
  reason: MotionReason,
  now: number,
): Promise<void> {
  const ids = [...new Set(telegramIds)];
  for (let start = 0; start < ids.length; start += 500) {
    await db
      .updateTable("poll_state")
      .set((eb) => ({
        ...motionColumns(reason, now),
        motion: eb.fn.coalesce("motion", eb.val(reason)),
        next_poll_at: sql<number>`case when next_poll_at > ${at(now)} then ${at(now)} else next_poll_at end`,
      }))
      .where("telegram_id", "in", ids.slice(start, start + 500))
      .execute();
  }
}

/**
 * The user paused or cancelled a rule: their rule list is read at the next poll, which moves them
 * back to idle when no active rule is left.
 */
export async function requestRuleCheck(db: Db, telegramId: number): Promise<void> {
  await db.updateTable("poll_state").set({ rules_checked_at: 0 }).where("telegram_id", "=", telegramId).execute();
}

/** The reason a poll state row is fast for at `now`, in order of precedence; null when idle. Reads the row being updated. */
export function motionAt(now: number): RawBuilder<string | null> {
  return sql<string | null>`case
    when rule_active = 1 then 'rule'
    when order_until > ${at(now)} or exists (select 1 from followed_orders f where f.telegram_id = poll_state.telegram_id and f.done = 0) then 'order'
    when deposit_until > ${at(now)} then 'deposit'
    else null end`;
}

/**
 * The poll-state columns a finished poll writes: why the user is fast (or null) and when they are
 * due again: the next cycle when fast, `idleMs` later when idle. Computed in the UPDATE itself from
 * the row as it is then, so a mark made while the poll was in flight is never lost.
 */
export function scheduleAfterPoll(now: number, idleMs: number) {
  const motion = motionAt(now);
  return {
    motion,
    next_poll_at: sql<number>`case when (${motion}) is null then ${at(now + idleMs)} else ${at(now)} end`,
  };
}

/** Linked users with a working key by schedule: `idle`, or the reason they are fast (for /metrics). */
export async function countUsersBySchedule(db: Kysely<Database>): Promise<Record<"idle" | MotionReason, number>> {
  const rows = await db
    .selectFrom("poll_state as s")
    .innerJoin("credentials as c", "c.telegram_id", "s.telegram_id")
    .select((eb) => ["s.motion", eb.fn.countAll<number>().as("n")])
    .where("c.broken_at", "is", null)
    .groupBy("s.motion")
    .execute();
  const counts = { idle: 0, rule: 0, order: 0, deposit: 0 };
  for (const row of rows) {
    const key = row.motion === null ? "idle" : (row.motion as MotionReason);
    if (key in counts) counts[key] += Number(row.n);
  }
  return counts;
}

/** What a poll reads of each user's poll state (users without one are left out). */
export async function findPollStates(db: Kysely<Database>, telegramIds: number[]) {
  return db
    .selectFrom("poll_state")
    .select(["telegram_id", "primed", "failures", "rules_checked_at", "seen_until", "rule_active"])
    .where("telegram_id", "in", telegramIds)
    .execute();
}

/** A user linked (again): their poll state starts over, unprimed and due now. */
export async function resetPollState(db: Kysely<Database>, telegramId: number, now: number): Promise<void> {
  const fresh = { primed: 0, failures: 0, next_poll_at: now, rules_checked_at: 0, seen_until: null };
  await db
    .insertInto("poll_state")
    .values({ telegram_id: telegramId, ...fresh })
    .onConflict((oc) => oc.column("telegram_id").doUpdateSet(fresh))
    .execute();
}
