import { deleteFlow, flowExists, getFlow, setFlow, type FlowState } from "../db/repos/flows";
import type { BotContext } from "./context";
import { forgetPrefetched, takePrefetched } from "./prefetched";

/**
 * The user's one open question. Guided flows are conversations (guided/); the /connect key step
 * is not: a conversation keeps every update it sees in its replay log, and the key must never be
 * stored. That step is a row in `flows` holding only "waiting for the key since …".
 */

/** Opens the /connect key step (leaving any guided flow), committed before the question is sent. */
export async function startKeyStep(ctx: BotContext): Promise<void> {
  await leaveGuidedFlows(ctx);
  stepCleared.delete(ctx);
  const now = ctx.deps.now();
  const state: FlowState = { flow: "connect", step: "key", data: { askedAt: now } };
  forgetPrefetched(ctx, "keyStep");
  await ctx.deps.writes.run((db) => setFlow(db, ctx.account.telegram_id, state, now));
}

/** The open /connect key step, if any. */
export async function currentFlow(ctx: BotContext): Promise<FlowState | null> {
  if (takePrefetched(ctx, "keyStep") === false) return null;
  return getFlow(ctx.deps.db, ctx.account.telegram_id);
}

/** Leaves the guided flow (a conversation) of the chat, if any; true when there was one. */
async function leaveGuidedFlows(ctx: BotContext): Promise<boolean> {
  if (Object.keys(ctx.conversation.active()).length === 0) return false;
  await ctx.conversation.exitAll();
  return true;
}

/** Leaves whatever flow the chat is in; true when there was one (also when a command left it just before). */
export async function endFlow(ctx: BotContext): Promise<boolean> {
  const left = (await leaveGuidedFlows(ctx)) || ctx.flowLeft === true;
  // A menu button ends the flow, then its area may end it again on entering one: read once.
  if (stepCleared.has(ctx)) return left;
  stepCleared.add(ctx);
  // Most commands end a flow that does not exist: a read is far cheaper than a write.
  const waiting = takePrefetched(ctx, "keyStep") ?? (await flowExists(ctx.deps.db, ctx.account.telegram_id));
  if (!waiting) return left;
  return (await ctx.deps.writes.run((db) => deleteFlow(db, ctx.account.telegram_id))) || left;
}

/** Updates whose key step is known to be gone. */
const stepCleared = new WeakSet<BotContext>();
