import { sql, type Kysely } from "kysely";
import type { Database } from "../schema";
import { isPostgres } from "../dialect";
import { prepared, type ParamFn } from "../prepared";
import { StatementBatcher } from "../statement-batcher";
import { takeChatTurn, type ChatPace } from "./chat-send";
import {
  BUDGET_ROW_LOCK,
  budgetGrantCtes,
  grantFromRow,
  takeGlobal,
  type GlobalBudget,
  type Grant,
} from "./send-budget";

// A reply's chat turn and its grant from the overall budget, taken together (one statement on PostgreSQL).

/** A reply's chat turn and, when the chat's turn was granted, its grant of one message from the global bucket. */
export interface ReplyTurn {
  /** Null when the chat's turn was granted, else the time the chat may be written to again. */
  chatDueAt: number | null;
  /** The global grant taken with the turn: null when the turn was not granted, or, in a batch, when the bucket had no row yet (the caller then takes the grant itself). */
  grant: Grant | null;
}

/**
 * {@link takeChatTurn} and then, only when the turn is granted, {@link takeGlobal} for one message:
 * what every reply to a private chat takes before it leaves. On PostgreSQL both are one statement
 * (the bucket's row locked, the chat's upsert, then the draw, only if the upsert took the turn),
 * one round trip per reply instead of two. The bucket row is seeded by the usual grant when missing.
 */
export async function takeReplyTurn(
  db: Kysely<Database>,
  chatId: number,
  now: number,
  pace: ChatPace,
  budget: GlobalBudget,
): Promise<ReplyTurn> {
  if (!isPostgres(db)) {
    const chatDueAt = await takeChatTurn(db, chatId, now, pace);
    return { chatDueAt, grant: chatDueAt === null ? await takeGlobal(db, now, 1, budget) : null };
  }
  const fullFrom = now - Math.max(0, pace.burst - 1) * pace.intervalMs;
  const [row] = (
    await replyTurnQuery(db, {
      chatId,
      fullFrom,
      interval: pace.intervalMs,
      next: fullFrom + pace.intervalMs,
      now,
      capacity: Math.round(budget.burst * 1000),
      perSecond: budget.perSecond,
    })
  ).rows;
  if (!row) throw new Error("the reply turn statement returned no row");
  if (!row.turn_taken)
    return { chatDueAt: row.next_send_at === null ? now + pace.intervalMs : Number(row.next_send_at), grant: null };
  if (row.granted === null || row.available === null)
    return { chatDueAt: null, grant: await takeGlobal(db, now, 1, budget) };
  return { chatDueAt: null, grant: grantFromRow({ available: row.available, granted: row.granted }, now, 1, budget) };
}

const replyTurnQuery = prepared(
  (
    db: Kysely<Database>,
    param: ParamFn<{
      chatId: number;
      fullFrom: number;
      interval: number;
      next: number;
      now: number;
      capacity: number;
      perSecond: number;
    }>,
  ) => {
    // The bucket's row is locked before the chat's: the sender's transaction takes the grant, then
    // its chats' turns, and two statements taking the two locks in opposite orders would deadlock.
    // The chat's insert selects its row only once current_row has been read (the count is never
    // below 0: it only orders the two). The upsert is takeChatQuery's; next_send_at is read as the
    // statement began (a turn not taken left the row as it was: the time the chat is due).
    const query = sql<{
      turn_taken: boolean;
      next_send_at: number | string | null;
      available: number | string | null;
      granted: number | string | null;
    }>`
    with ${BUDGET_ROW_LOCK}, chat_turn as (
      insert into chat_send (chat_id, next_send_at)
      select cast(${param("chatId")} as bigint), cast(${param("next")} as bigint) where (select count(*) from current_row) >= 0
      on conflict (chat_id) do update set next_send_at = case when chat_send.next_send_at > ${param("fullFrom")} then chat_send.next_send_at + ${param("interval")} else ${param("next")} end
      where chat_send.next_send_at <= ${param("now")}
      returning 1
    ), ${budgetGrantCtes({ now: param("now"), want: 1, capacity: param("capacity"), perSecond: param("perSecond") }, sql`exists (select 1 from chat_turn)`)}
    select exists (select 1 from chat_turn) as turn_taken,
      (select next_send_at from chat_send where chat_id = ${param("chatId")}) as next_send_at,
      (select available from budget_drawn) as available,
      (select granted from budget_drawn) as granted`;
    return { compile: () => query.compile(db) };
  },
);

/** A reply's turn asked for through a batcher (see {@link replyTurns}). */
interface ReplyTurnCall {
  chatId: number;
  now: number;
  pace: ChatPace;
  budget: GlobalBudget;
}

/**
 * {@link takeReplyTurn} for several chats in one statement (PostgreSQL): the bucket's row locked
 * first, as there, each chat's upsert, then one draw for the turns taken, handed to them in the
 * order the calls came. One time for all (the batch's latest), one pace and one budget: a batch that mixes them
 * is refused and its calls run one at a time.
 */
async function takeReplyTurns(db: Kysely<Database>, calls: ReplyTurnCall[]): Promise<ReplyTurn[]> {
  // Refused before the statement runs, so the calls run again one at a time with nothing taken.
  const [first] = calls;
  if (
    !first ||
    calls.some(
      (call) =>
        call.pace.intervalMs !== first.pace.intervalMs ||
        call.pace.burst !== first.pace.burst ||
        call.budget.perSecond !== first.budget.perSecond ||
        call.budget.burst !== first.budget.burst,
    )
  ) {
    throw new Error("a batch of reply turns mixes paces or budgets");
  }
  const { pace, budget } = first;
  const now = Math.max(...calls.map((call) => call.now));
  const fullFrom = now - Math.max(0, pace.burst - 1) * pace.intervalMs;
  const { rows } = await replyTurnsQuery(db, {
    chatIds: calls.map((call) => call.chatId),
    fullFrom,
    interval: pace.intervalMs,
    next: fullFrom + pace.intervalMs,
    now,
    capacity: Math.round(budget.burst * 1000),
    perSecond: budget.perSecond,
  });
  const byChat = new Map(rows.map((row) => [Number(row.chat_id), row]));
  // Nothing below throws: the statement has committed, and a batch that failed would be run again call by call.
  return calls.map((call): ReplyTurn => {
    const row = byChat.get(call.chatId);
    // (Every chat of the input has its row; one missing would have taken no turn.)
    if (!row || row.place === null) {
      const due = row?.next_send_at;
      return { chatDueAt: due === null || due === undefined ? now + pace.intervalMs : Number(due), grant: null };
    }
    // No bucket row yet: the turn is taken, and the caller takes its grant, which seeds the row.
    if (row.granted === null || row.available === null) return { chatDueAt: null, grant: null };
    const place = Number(row.place);
    const granted = Number(row.granted);
    const available = Number(row.available);
    // The turns drawn before this one took a message each.
    const grant =
      place <= granted
        ? grantFromRow({ available: available - (place - 1) * 1000, granted: 1 }, now, 1, budget)
        : grantFromRow({ available: available - granted * 1000, granted: 0 }, now, 1, budget);
    return { chatDueAt: null, grant };
  });
}

const replyTurnsQuery = prepared(
  (
    db: Kysely<Database>,
    param: ParamFn<{
      chatIds: number[];
      fullFrom: number;
      interval: number;
      next: number;
      now: number;
      capacity: number;
      perSecond: number;
    }>,
  ) => {
    // replyTurnQuery's statement for each chat of the batch; `place` numbers the turns taken in the
    // order the calls came (the draw goes to the first ones, as one at a time it would).
    const query = sql<{
      chat_id: number | string;
      place: number | string | null;
      next_send_at: number | string | null;
      available: number | string | null;
      granted: number | string | null;
    }>`
    with ${BUDGET_ROW_LOCK}, input as (
      select chat_id, arrival from unnest(cast(${param("chatIds")} as bigint[])) with ordinality as i(chat_id, arrival)
    ), chat_turn as (
      insert into chat_send (chat_id, next_send_at)
      select input.chat_id, cast(${param("next")} as bigint) from input where (select count(*) from current_row) >= 0
      on conflict (chat_id) do update set next_send_at = case when chat_send.next_send_at > ${param("fullFrom")} then chat_send.next_send_at + ${param("interval")} else ${param("next")} end
      where chat_send.next_send_at <= ${param("now")}
      returning chat_id
    ), ranked as (
      select chat_turn.chat_id, row_number() over (order by input.arrival) as place from chat_turn join input on input.chat_id = chat_turn.chat_id
    ), ${budgetGrantCtes({ now: param("now"), want: sql`(select count(*) from chat_turn)`, capacity: param("capacity"), perSecond: param("perSecond") }, sql`exists (select 1 from chat_turn)`)}
    select input.chat_id, ranked.place,
      (select next_send_at from chat_send where chat_send.chat_id = input.chat_id) as next_send_at,
      (select available from budget_drawn) as available,
      (select granted from budget_drawn) as granted
    from input left join ranked on ranked.chat_id = input.chat_id`;
    return { compile: () => query.compile(db) };
  },
);

/** The reply turns of one store's concurrent replies (PostgreSQL): see StatementBatcher and {@link takeReplyTurns}. */
export function replyTurns(db: Kysely<Database>): StatementBatcher<ReplyTurnCall, ReplyTurn> {
  return new StatementBatcher<ReplyTurnCall, ReplyTurn>({
    key: (call) => call.chatId,
    one: (call) => takeReplyTurn(db, call.chatId, call.now, call.pace, call.budget),
    many: (calls) => takeReplyTurns(db, calls),
  });
}
