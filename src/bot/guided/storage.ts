import type { ConversationData, ConversationStorage, VersionedState } from "@grammyjs/conversations";
import { deleteConversation, findConversation, saveConversation } from "#src/db/repos/conversations";
import { deleteFlow, FLOW_VERSION } from "#src/db/repos/flows";
import type { BotContext } from "../context";
import { takePrefetched } from "../prefetched";
import { replacesFirstQuestion } from "../flows";
import { closeOpenQuestion, noteOpenKeyboard, openKeyboard } from "./question-buttons";

/** The plugin's state, and beside it the open question's message with buttons (guided/question-buttons). */
type Stored = VersionedState<ConversationData> & { keyboard?: number };

/** The flow a stored state belongs to (one flow per chat at a time). */
function flowOf(state: ConversationData): string {
  return Object.keys(state)[0] ?? "";
}

/**
 * The conversations plugin's storage, over the bot's own database (SQLite or PostgreSQL), so every
 * replica and every restart sees the same flows. Updates of one chat are handled one at a time
 * across replicas, so a plain upsert per update is enough.
 *
 * `version` is FLOW_VERSION: a deploy that changes a flow's code bumps it, and a state written by
 * the older code is never replayed against the newer one. Such a state is deleted when read, and
 * `ctx.outdatedFlow` names its flow, so the user who answers it is told the step expired.
 */
export function conversationStorage(): ConversationStorage<BotContext, ConversationData> {
  return {
    type: "context",
    version: FLOW_VERSION,
    adapter: {
      async read(ctx) {
        const chatId = ctx.chat?.id;
        if (chatId === undefined) return undefined;
        const known = takePrefetched(ctx, "conversation");
        const row = known !== undefined ? known : await findConversation(ctx.deps.db, chatId);
        if (!row) return undefined;
        let stored: Stored | null = null;
        try {
          stored = JSON.parse(row.state) as Stored;
        } catch {
          stored = null;
        }
        noteOpenKeyboard(ctx, typeof stored?.keyboard === "number" ? stored.keyboard : null);
        if (stored && Array.isArray(stored.version) && stored.version[1] === FLOW_VERSION) return stored;
        ctx.outdatedFlow = row.flow;
        await closeOpenQuestion(ctx);
        ctx.deps.logger.info(
          { userId: ctx.from?.id, flow: row.flow, step: row.step },
          "a guided flow stored by another version of the bot was dropped; the user is told it expired",
        );
        await ctx.deps.writes.run((db) => deleteConversation(db, chatId));
        return undefined;
      },
      async write(ctx, state) {
        const chatId = ctx.chat?.id;
        if (chatId === undefined) return;
        const keyboard = openKeyboard(ctx);
        const stored: Stored = keyboard === null ? state : { ...state, keyboard };
        const row = { flow: flowOf(state.state), step: ctx.flowStep ?? null, state: JSON.stringify(stored) };
        const now = ctx.deps.now();
        if (!replacesFirstQuestion(ctx)) return ctx.deps.writes.run((db) => saveConversation(db, chatId, row, now));
        // The flow was entered with the answer to its first question: its state replaces that question.
        const telegramId = ctx.account.telegram_id;
        await ctx.deps.writes.transaction(async (trx) => {
          await saveConversation(trx, chatId, row, now);
          await deleteFlow(trx, telegramId);
        });
      },
      async delete(ctx) {
        const chatId = ctx.chat?.id;
        if (chatId === undefined) return;
        await ctx.deps.writes.run((db) => deleteConversation(db, chatId));
      },
    },
  };
}
