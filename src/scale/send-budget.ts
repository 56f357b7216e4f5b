import type { Kysely } from "kysely";
import type { Database } from "#src/db/schema";
import { coordinating, isPostgres } from "#src/db/dialect";
import { deferChat, pruneSendBudget, recordChatSendAt, takeChatSlot } from "#src/db/repos/chat-send";
import { replyTurns, takeReplyTurn } from "#src/db/repos/reply-turns";
import {
  DEFAULT_GLOBAL_BUDGET,
  REPLICAS_GLOBAL_BUDGET,
  refundGlobal,
  takeGlobal,
  takeGlobalIn,
  type GlobalBudget,
} from "#src/db/repos/send-budget";
import type { SendBudgetStore } from "./send-budget-store";

export { DEFAULT_CHAT_PACE, GROUP_CHAT_PACE, type ChatPace } from "#src/db/repos/chat-send";
export { DEFAULT_GLOBAL_BUDGET, type GlobalBudget } from "#src/db/repos/send-budget";
export type { SendBudgetStore } from "./send-budget-store";
export { memorySendBudget } from "./memory-send-budget";
export { sharedBudgetTransformer } from "./budget-transformer";

// Telegram's limits held across all replicas together, in the database:
//
// - global: one token bucket row (rate `perSecond`, capacity `burst`), taken from in a short
//   transaction (row lock FOR UPDATE on PostgreSQL; SQLite has one writer), so the replicas
//   together never exceed it. Any sliding second sees at most floor(`perSecond` + `burst`)
//   grants (28 + 1.9: 29 by default, under Telegram's 30). Below 2 whole messages of burst the
//   sends stay spaced (about 36 ms apart) and cannot arrive bunched at Telegram's end, while a
//   loop that wakes a little late keeps the time it lost instead of falling behind the rate;
//   The bot's replies take from the same bucket (sharedBudgetTransformer), so replies and alerts
//   together stay under the limit;
// - per chat: a row per chat with the earliest time of its next message, moved forward by one
//   upsert whose DO UPDATE applies only when the chat is due, so two replicas cannot both write
//   to a chat out of turn. The row is a token bucket kept as one time (GCRA): `burst` messages
//   may leave at once, then one per `intervalMs`. The bot's replies and the pushed alerts take
//   their turns from the same row, so together they keep the one pace Telegram allows a chat.

/** The budgets in the database, shared by every replica. */
export function databaseSendBudget(
  db: Kysely<Database>,
  budget: GlobalBudget = isPostgres(db) ? REPLICAS_GLOBAL_BUDGET : DEFAULT_GLOBAL_BUDGET,
): SendBudgetStore {
  // Outside a caller's transaction, the grants and turns commit asynchronously on PostgreSQL (see coordinating).
  const fast = coordinating(db);
  // Concurrent replies' turns share a statement while the replica is busy (PostgreSQL).
  const turns = isPostgres(db) ? replyTurns(fast) : null;
  return {
    kind: "database",
    ...(turns ? { replyTurnStatements: turns.counts } : {}),
    budget,
    takeGlobal: (now, want, budget) => takeGlobal(fast, now, want, budget),
    takeGlobalIn: (trx, now, want, budget) => takeGlobalIn(trx, now, want, budget),
    refundGlobal: (exec, count, budget) => refundGlobal(exec ?? fast, count, budget),
    takeChatSlot: (exec, chatId, now, pace) => takeChatSlot(exec ?? fast, chatId, now, pace.intervalMs, pace.burst),
    takeReplyTurn: (chatId, now, pace, budget) =>
      turns ? turns.run({ chatId, now, pace, budget }) : takeReplyTurn(fast, chatId, now, pace, budget),
    recordChatSendAt: (exec, chatId, answeredAt, pace) => recordChatSendAt(exec ?? fast, chatId, answeredAt, pace),
    deferChat: (exec, chatId, until) => deferChat(exec ?? fast, chatId, until),
    prune: (now) => pruneSendBudget(db, now),
  };
}
