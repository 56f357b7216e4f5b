import type { Kysely } from "kysely";
import type { Database } from "../schema";
import { prepared, type ParamFn } from "../prepared";
import { withoutFsync } from "../raw-sqlite";

// Each private chat's turns (chat_send): the earliest time of its next message, kept as a token bucket (see scale/send-budget.ts).

/** The pace of one private chat: a burst, then one message per interval. */
export interface ChatPace {
  /** One message per this many ms once the burst is spent. */
  intervalMs: number;
  /** Messages that may leave at once after a quiet spell. */
  burst: number;
  /**
   * A reply answered within this many ms of its turn is not counted again from its answer: the
   * interval's own margin covers that delay (see DEFAULT_CHAT_PACE). Unset: every reply is.
   */
  answerSlackMs?: number;
}

/**
 * Telegram lets a private chat have a short burst (3 messages), then about 1 per second, counted
 * when they arrive. 1,100 ms instead of 1,000 leaves a tenth for a send that left late or took
 * long on the way: such a delay up to about 100 ms still arrives within the chat's allowance.
 *
 * A reply's send is counted again from Telegram's answer only when the answer came more than 50 ms
 * after its turn (half that tenth): any earlier, the message arrived at most 50 ms after its turn,
 * and the turn's own spacing already keeps it 1,050 ms from the chat's next one. On PostgreSQL that
 * is a round trip per reply saved whenever Telegram answers quickly.
 */
export const DEFAULT_CHAT_PACE: ChatPace = { intervalMs: 1_100, burst: 3, answerSlackMs: 50 };

/**
 * A group's pace: Telegram allows 20 messages a minute in a group. One every 3,300 ms, with no
 * burst, is at most 19 in any minute on arrival: the same tenth of margin a private chat's pace
 * keeps for a send that left late or took long on the way.
 */
export const GROUP_CHAT_PACE: ChatPace = { intervalMs: 3_300, burst: 1 };

/**
 * Takes the chat's next turn; null when granted, else the time the chat may be written to again.
 * With `burst` above 1 the row is a bucket (see {@link ChatPace}): the stored time is where a full
 * bucket's allowance would start, so a chat quiet for a while gets `burst` turns at once, and a
 * turn moves the time by `intervalMs` from no earlier than `now - (burst - 1) × intervalMs`.
 */
export async function takeChatSlot(
  db: Kysely<Database>,
  chatId: number,
  now: number,
  intervalMs: number,
  burst = 1,
): Promise<number | null> {
  const fullFrom = now - Math.max(0, burst - 1) * intervalMs;
  // Compiled once (on PostgreSQL this runs for every reply; see src/db/prepared.ts).
  const result = await takeChatQuery(db, { chatId, fullFrom, interval: intervalMs, next: fullFrom + intervalMs, now });
  if (Number(result.numAffectedRows ?? 0n) > 0) return null;
  const [row] = (await nextChatSendQuery(db, { chatId })).rows;
  return row ? Number(row.next_send_at) : now + intervalMs;
}

const takeChatQuery = prepared(
  (
    db: Kysely<Database>,
    param: ParamFn<{ chatId: number; fullFrom: number; interval: number; next: number; now: number }>,
  ) =>
    db
      .insertInto("chat_send")
      .values({ chat_id: param("chatId"), next_send_at: param("next") })
      .onConflict((oc) =>
        oc
          .column("chat_id")
          .doUpdateSet((eb) => ({
            next_send_at: eb
              .case()
              .when("chat_send.next_send_at", ">", param("fullFrom"))
              .then(eb("chat_send.next_send_at", "+", param("interval")))
              .else(param("next"))
              .end(),
          }))
          .where("chat_send.next_send_at", "<=", param("now")),
      ),
);

const nextChatSendQuery = prepared((db: Kysely<Database>, param: ParamFn<{ chatId: number }>) =>
  db.selectFrom("chat_send").select("next_send_at").where("chat_id", "=", param("chatId")),
);

/**
 * {@link takeChatSlot} for a reply, outside any transaction. On SQLite it commits without an
 * fsync, as the global grant does: a reply would otherwise pay one per message, and a turn lost
 * with the process costs nothing.
 */
export async function takeChatTurn(
  db: Kysely<Database>,
  chatId: number,
  now: number,
  pace: ChatPace,
): Promise<number | null> {
  return (
    withoutFsync(db, (_sqlite, connection) => takeChatSlot(connection, chatId, now, pace.intervalMs, pace.burst)) ??
    takeChatSlot(db, chatId, now, pace.intervalMs, pace.burst)
  );
}

/**
 * Counts a chat's send from the time Telegram answered it rather than the time it left: a send
 * that waited or took long on the way arrived later than its turn said, and the next turn must
 * not come early for that. Outside any transaction (on SQLite without an fsync, as {@link takeChatTurn}).
 */
export async function recordChatSendAt(
  db: Kysely<Database>,
  chatId: number,
  answeredAt: number,
  pace: ChatPace,
): Promise<void> {
  const until = answeredAt + pace.intervalMs - Math.max(0, pace.burst - 1) * pace.intervalMs;
  await (withoutFsync(db, (_sqlite, connection) => deferChat(connection, chatId, until)) ??
    deferChat(db, chatId, until));
}

/** Gives back a chat turn that was taken but not used (the global budget was empty). */
export async function returnChatSlot(
  db: Kysely<Database>,
  chatId: number,
  takenAt: number,
  intervalMs: number,
): Promise<void> {
  await db
    .updateTable("chat_send")
    .set({ next_send_at: takenAt })
    .where("chat_id", "=", chatId)
    .where("next_send_at", "=", takenAt + intervalMs)
    .execute();
}

/** Pushes a chat's next turn back (after a send; Telegram answered 429 with retry_after). */
export async function deferChat(db: Kysely<Database>, chatId: number, until: number): Promise<void> {
  await deferChatQuery(db, { chatId, until });
}

const deferChatQuery = prepared((db: Kysely<Database>, param: ParamFn<{ chatId: number; until: number }>) =>
  db
    .insertInto("chat_send")
    .values({ chat_id: param("chatId"), next_send_at: param("until") })
    .onConflict((oc) =>
      oc
        .column("chat_id")
        .doUpdateSet({ next_send_at: param("until") })
        .where("chat_send.next_send_at", "<", param("until")),
    ),
);

/** Forgets chat turns long past (run now and then). */
export async function pruneSendBudget(db: Kysely<Database>, now: number): Promise<void> {
  await db
    .deleteFrom("chat_send")
    .where("next_send_at", "<", now - 3_600_000)
    .execute();
}
