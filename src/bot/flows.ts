import type { Composer } from "grammy";
import { InlineKeyboard } from "grammy";
import { deleteFlow, flowExists, getFlow, setFlow, type FlowState } from "../db/repos/flows";
import type { BotContext } from "./context";
import { pressedButtonExists } from "./pressed-button";

/**
 * Guided flows are small step machines persisted in the `flows` table: the step and the answers
 * so far, as plain JSON. A restart (or another replica) resumes exactly where the user was.
 * A typed answer and a button press ("a:<value>") go through the same `answer` function.
 */
export interface FlowHandler {
  answer(ctx: BotContext, state: FlowState, input: string): Promise<void>;
}

export type FlowRegistry = Map<string, FlowHandler>;

/** Button carrying an answer to the current question; the value must be short (callback data ≤ 64 bytes). */
export function answerButton(keyboard: InlineKeyboard, label: string, value: string): InlineKeyboard {
  return keyboard.text(label, `a:${value}`);
}

/** Saved (committed) before the question is asked; concurrent updates share the commit. */
export async function startFlow(ctx: BotContext, flow: string, step: string, data: Record<string, unknown>): Promise<void> {
  const now = ctx.deps.now();
  await ctx.deps.writes.run((db) => setFlow(db, ctx.account.telegram_id, { flow, step, data }, now));
}

export async function endFlow(ctx: BotContext): Promise<boolean> {
  // Most commands end a flow that does not exist: a read is far cheaper than a write.
  if (!(await flowExists(ctx.deps.db, ctx.account.telegram_id))) return false;
  return ctx.deps.writes.run((db) => deleteFlow(db, ctx.account.telegram_id));
}

export async function currentFlow(ctx: BotContext): Promise<FlowState | null> {
  return getFlow(ctx.deps.db, ctx.account.telegram_id);
}

/** Routes typed text (not commands) and answer buttons to the active flow. */
export function installFlowRouter(composer: Composer<BotContext>, flows: FlowRegistry): void {
  composer.callbackQuery(/^a:(.{1,62})$/s, async (ctx) => {
    const state = await currentFlow(ctx);
    const handler = state ? flows.get(state.flow) : undefined;
    if (!state || !handler) {
      await ctx.answerCallbackQuery({ text: ctx.tr("flow-closed") });
      return;
    }
    if (!pressedButtonExists(ctx)) {
      await ctx.answerCallbackQuery({ text: ctx.tr("button-expired") });
      return;
    }
    await ctx.answerCallbackQuery();
    await handler.answer(ctx, state, ctx.match[1]!);
  });

  composer.on("message:text", async (ctx, next) => {
    if (ctx.message.text.startsWith("/")) return next();
    const state = await currentFlow(ctx);
    const handler = state ? flows.get(state.flow) : undefined;
    if (!state || !handler) return next();
    await handler.answer(ctx, state, ctx.message.text);
  });
}

export { InlineKeyboard };
