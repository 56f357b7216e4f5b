import type { Kysely, Transaction } from "kysely";
import type { Database } from "../schema";
import { enqueueAlert, enqueueGroupAlerts, type OutboxPayload } from "./outbox";
import { scheduleAfterPoll } from "./poll-schedule";
import { forgetSeenOffFirstPage, recordSeen, SEEN_NOTIFICATION_MS } from "./seen-notifications";
import { recordRentals, type RentalFacts } from "./rental-ends";
import { saveBalanceWatches, type BalanceWatch } from "./balance-watch";
import { saveDeliveryMarks, type DeliveryMark } from "./delivery-marks";

// What notification polls found, written for many users at once.

/** An alert a poll found, with its dedupe key and the chat it goes to; `group`: a team alert's copy (one per event in the group). */
export type PollAlert = { key: string; chatId: number; payload: OutboxPayload; group?: boolean };

/** The outcome of polling one user, written later together with other users' outcomes. */
export type PollOutcome =
  | { telegramId: number; kind: "skipped" }
  /**
   * firstPage: the ids on the first page now, when something new arrived; else null.
   * seenUntil: the newer creation time of the newest notification seen, when it moved.
   * rules: what a read of the rule list found, and the rules_checked_at it was read against.
   */
  | {
      telegramId: number;
      kind: "polled";
      seen: string[];
      alerts: PollAlert[];
      firstPage: string[] | null;
      seenUntil: number | null;
      rules: { active: boolean; checkedAt: number } | null;
      /** Filled orders the poll read: their rentals, for the "ends" alert. */
      rentals?: RentalFacts[];
      /** The look ahead's state after this poll: the low-balance watch and the delivery marks moved. */
      guard?: { watch: BalanceWatch; marks: DeliveryMark[] };
    }
  | { telegramId: number; kind: "failed"; failures: number; nextPollAt: number };

/**
 * Records many users' outcomes in one transaction: notifications seen, alerts queued, poll state
 * (primed, back-off, the schedule: fast with its reason, or idle for `idleMs`) and, inside a
 * cycle, the user done for it with the lease let go. Returns the alerts queued. An outcome lost to
 * a crash before this commit is simply polled again.
 */
export async function recordPollOutcomes(
  db: Kysely<Database>,
  outcomes: PollOutcome[],
  now: number,
  idleMs: number,
  cycle?: { owner: string; id: number },
): Promise<number> {
  if (outcomes.length === 0) return 0;
  const done = cycle ? { last_cycle: cycle.id, lease_owner: null, lease_until: null } : {};
  return db.transaction().execute(async (trx) => {
    let queued = 0;
    const seenRows = outcomes.flatMap((outcome) =>
      outcome.kind === "polled"
        ? outcome.seen.map((id) => ({ telegram_id: outcome.telegramId, notification_id: id, seen_at: now }))
        : [],
    );
    await recordSeen(trx, seenRows);
    await recordRentals(
      trx,
      outcomes.flatMap((outcome) => (outcome.kind === "polled" ? (outcome.rentals ?? []) : [])),
      now,
    );
    await recordGuardOutcomes(trx, outcomes, now);
    // Only a page with something new can have pushed older notifications off it: the retention
    // of seen notifications costs nothing on the polls that find nothing new.
    for (const outcome of outcomes) {
      if (outcome.kind === "polled" && outcome.firstPage !== null)
        await forgetSeenOffFirstPage(trx, outcome.telegramId, outcome.firstPage, now - SEEN_NOTIFICATION_MS);
    }
    for (const outcome of outcomes) {
      if (outcome.kind !== "polled") continue;
      for (const alert of outcome.alerts) {
        if (alert.group)
          queued += await enqueueGroupAlerts(trx, [
            {
              telegramId: outcome.telegramId,
              chatId: alert.chatId,
              dedupeKey: alert.key,
              payload: JSON.stringify(alert.payload),
              at: now,
            },
          ]);
        else if (
          await enqueueAlert(trx, {
            telegramId: outcome.telegramId,
            chatId: alert.chatId,
            dedupeKey: alert.key,
            payload: alert.payload,
            now,
          })
        )
          queued += 1;
      }
    }
    for (const outcome of outcomes) {
      if (outcome.kind !== "polled") continue;
      if (outcome.seenUntil !== null) {
        await trx
          .updateTable("poll_state")
          .set({ seen_until: outcome.seenUntil })
          .where("telegram_id", "=", outcome.telegramId)
          .where((eb) => eb.or([eb("seen_until", "is", null), eb("seen_until", "<", outcome.seenUntil!)]))
          .execute();
      }
      // Only against the rule state the list was read for: a rule created or resumed meanwhile wins.
      if (outcome.rules) {
        await trx
          .updateTable("poll_state")
          .set({ rule_active: outcome.rules.active ? 1 : 0, rules_checked_at: now })
          .where("telegram_id", "=", outcome.telegramId)
          .where("rules_checked_at", "=", outcome.rules.checkedAt)
          .execute();
      }
    }
    const polled = outcomes.filter((outcome) => outcome.kind === "polled").map((outcome) => outcome.telegramId);
    const schedule = scheduleAfterPoll(now, idleMs);
    for (let start = 0; start < polled.length; start += 500) {
      await trx
        .updateTable("poll_state")
        .set({ primed: 1, failures: 0, ...schedule, ...done })
        .where("telegram_id", "in", polled.slice(start, start + 500))
        .$if(cycle !== undefined, (qb) => qb.where("lease_owner", "=", cycle!.owner))
        .execute();
    }
    for (const outcome of outcomes) {
      if (outcome.kind !== "failed") continue;
      await trx
        .updateTable("poll_state")
        .set({ failures: outcome.failures, next_poll_at: outcome.nextPollAt, ...done })
        .where("telegram_id", "=", outcome.telegramId)
        .$if(cycle !== undefined, (qb) => qb.where("lease_owner", "=", cycle!.owner))
        .execute();
    }
    const skipped = outcomes.filter((outcome) => outcome.kind === "skipped").map((outcome) => outcome.telegramId);
    if (cycle && skipped.length > 0) {
      await trx
        .updateTable("poll_state")
        .set(done)
        .where("telegram_id", "in", skipped)
        .where("lease_owner", "=", cycle.owner)
        .execute();
    }
    return queued;
  });
}

/** The look ahead's state of the polled users (their watches and delivery marks), in the polls' transaction. */
async function recordGuardOutcomes(db: Transaction<Database>, outcomes: PollOutcome[], now: number): Promise<void> {
  const guarded = outcomes.flatMap((outcome) =>
    outcome.kind === "polled" && outcome.guard ? [{ telegramId: outcome.telegramId, guard: outcome.guard }] : [],
  );
  if (guarded.length === 0) return;
  await saveBalanceWatches(
    db,
    guarded.map(({ telegramId, guard }) => ({ telegramId, watch: guard.watch })),
  );
  await saveDeliveryMarks(
    db,
    guarded.flatMap(({ telegramId, guard }) => guard.marks.map((mark) => ({ telegramId, mark }))),
    now,
  );
}
