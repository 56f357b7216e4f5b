import { DEFAULT_GLOBAL_BUDGET, drawFromBucket, type GlobalBudget, type Grant } from "#src/db/repos/send-budget";
import type { ChatPace } from "#src/db/repos/chat-send";
import type { SendBudgetStore } from "./send-budget-store";

// Telegram's budgets in this process's memory (SQLite: one process by design).

/** The budgets in this process's memory (SQLite: one process), with the same arithmetic as the rows. */
export function memorySendBudget(): SendBudgetStore {
  let bucket: { tokensMilli: number; updatedAt: number } | null = null;
  /** Per chat, the earliest time of its next message (as the chat_send row). */
  const chats = new Map<number, number>();
  const draw = (now: number, want: number, budget: GlobalBudget): Grant => {
    if (want <= 0) return { granted: 0, limited: false, nextAt: now };
    bucket ??= { tokensMilli: Math.round(budget.burst * 1000), updatedAt: now };
    const drawn = drawFromBucket(bucket.tokensMilli, bucket.updatedAt, now, want, budget);
    bucket = { tokensMilli: drawn.row.tokens_milli, updatedAt: drawn.row.updated_at };
    return { granted: drawn.granted, limited: drawn.limited, nextAt: drawn.nextAt };
  };
  const takeChat = (chatId: number, now: number, pace: ChatPace): number | null => {
    const fullFrom = now - Math.max(0, pace.burst - 1) * pace.intervalMs;
    const next = chats.get(chatId);
    if (next !== undefined && next > now) return next;
    chats.set(chatId, next !== undefined && next > fullFrom ? next + pace.intervalMs : fullFrom + pace.intervalMs);
    return null;
  };
  const defer = (chatId: number, until: number) => {
    const next = chats.get(chatId);
    if (next === undefined || next < until) chats.set(chatId, until);
  };
  return {
    kind: "memory",
    budget: DEFAULT_GLOBAL_BUDGET,
    takeGlobal: async (now, want, budget) => draw(now, want, budget),
    takeGlobalIn: async (_trx, now, want, budget) => draw(now, want, budget),
    refundGlobal: async (_exec, count, budget) => {
      if (count <= 0 || !bucket) return;
      bucket = { ...bucket, tokensMilli: Math.min(Math.round(budget.burst * 1000), bucket.tokensMilli + count * 1000) };
    },
    takeChatSlot: async (_exec, chatId, now, pace) => takeChat(chatId, now, pace),
    takeReplyTurn: async (chatId, now, pace, budget) => {
      const chatDueAt = takeChat(chatId, now, pace);
      return { chatDueAt, grant: chatDueAt === null ? draw(now, 1, budget) : null };
    },
    recordChatSendAt: async (_exec, chatId, answeredAt, pace) =>
      defer(chatId, answeredAt + pace.intervalMs - Math.max(0, pace.burst - 1) * pace.intervalMs),
    deferChat: async (_exec, chatId, until) => defer(chatId, until),
    prune: async (now) => {
      for (const [chatId, next] of chats) if (next < now - 3_600_000) chats.delete(chatId);
    },
  };
}
