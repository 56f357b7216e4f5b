/** Rule delivery alerts: per user and rule, the newest firing already alerted (see push/guard-poll.ts). */
import type { Kysely, Transaction } from "kysely";
import type { Database } from "../schema";

type Db = Kysely<Database> | Transaction<Database>;

/** A rule's mark: firings created after `seenUntil` (marketplace clock, ms) are new. */
export interface DeliveryMark {
  ruleId: string;
  seenUntil: number;
}

/** The marks of these users, by user and rule. */
export async function findDeliveryMarks(db: Db, telegramIds: number[]): Promise<Map<number, Map<string, number>>> {
  const marks = new Map<number, Map<string, number>>();
  if (telegramIds.length === 0) return marks;
  const rows = await db
    .selectFrom("delivery_marks")
    .select(["telegram_id", "rule_id", "seen_until"])
    .where("telegram_id", "in", telegramIds)
    .execute();
  for (const row of rows) {
    const id = Number(row.telegram_id);
    if (!marks.has(id)) marks.set(id, new Map());
    marks.get(id)!.set(row.rule_id, Number(row.seen_until));
  }
  return marks;
}

/** Moves marks forward (never back), inside the transaction that queues the alerts of the firings passed. */
export async function saveDeliveryMarks(
  db: Db,
  marks: ReadonlyArray<{ telegramId: number; mark: DeliveryMark }>,
  now: number,
): Promise<void> {
  for (const { telegramId, mark } of marks) {
    await db
      .insertInto("delivery_marks")
      .values({ telegram_id: telegramId, rule_id: mark.ruleId, seen_until: mark.seenUntil, updated_at: now })
      .onConflict((oc) =>
        oc
          .columns(["telegram_id", "rule_id"])
          .doUpdateSet({ seen_until: mark.seenUntil, updated_at: now })
          .where("delivery_marks.seen_until", "<", mark.seenUntil),
      )
      .execute();
  }
}
