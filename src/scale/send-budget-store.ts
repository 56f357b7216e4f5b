import type { Kysely, Transaction } from "kysely";
import type { Database } from "#src/db/schema";
import type { BatcherCounts } from "#src/db/statement-batcher";
import type { ChatPace } from "#src/db/repos/chat-send";
import type { ReplyTurn } from "#src/db/repos/reply-turns";
import type { GlobalBudget, Grant } from "#src/db/repos/send-budget";

// The interface of the two homes of Telegram's budgets (database rows, or this process's memory).

/** What the budget calls run on: a transaction the caller holds, or null for none (the store's own database). */
export type Executor = Kysely<Database> | Transaction<Database> | null;

/**
 * Where Telegram's budgets are kept, one interface for both homes:
 *
 * - {@link databaseSendBudget}: rows every replica shares (PostgreSQL), as described above;
 * - {@link memorySendBudget}: this process's memory, for SQLite, which is one process by design.
 *   The same bucket arithmetic with no statement at all: a reply's grant and chat turn cost a few
 *   microseconds. A restart forgets them, which costs at most one chat burst (the bot is down
 *   longer than a burst lasts) and is what Telegram's 429 handling covers anyway.
 *
 * `exec` is the transaction the caller holds (the sender claims rows in the same one); the memory
 * store ignores it.
 */
export interface SendBudgetStore {
  readonly kind: "database" | "memory";
  /** On PostgreSQL, how many statements the reply turns took, for how many turns (see replyTurns in db/repos/reply-turns.ts). */
  readonly replyTurnStatements?: Readonly<BatcherCounts>;
  /** The overall budget replies and alerts take from unless a caller names another. */
  readonly budget: GlobalBudget;
  /** The global grant for a reply, outside any transaction. */
  takeGlobal(now: number, want: number, budget: GlobalBudget): Promise<Grant>;
  /** The global grant inside the caller's transaction. */
  takeGlobalIn(trx: Transaction<Database>, now: number, want: number, budget: GlobalBudget): Promise<Grant>;
  refundGlobal(exec: Executor, count: number, budget: GlobalBudget): Promise<void>;
  /** A chat's turn inside the caller's transaction (see {@link takeChatSlot}); null when granted. */
  takeChatSlot(exec: Executor, chatId: number, now: number, pace: ChatPace): Promise<number | null>;
  /** A reply's chat turn and, once granted, its global grant (see {@link takeReplyTurn}). */
  takeReplyTurn(chatId: number, now: number, pace: ChatPace, budget: GlobalBudget): Promise<ReplyTurn>;
  recordChatSendAt(exec: Executor, chatId: number, answeredAt: number, pace: ChatPace): Promise<void>;
  deferChat(exec: Executor, chatId: number, until: number): Promise<void>;
  prune(now: number): Promise<void>;
}
