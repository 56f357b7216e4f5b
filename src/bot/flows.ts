import {
  deleteFlow,
  findFlow,
  flowData,
  flowStateOf,
  FLOW_VERSION,
  storeFlow,
  storedFlow,
  type FlowState,
  type StoredFlow,
} from "#src/db/repos/flows";
import type { BotContext } from "./context";
import { takePrefetched } from "./prefetched";
import { FLOW_COMMANDS, type Asked, type FlowName } from "./guided/steps";
import {
  closeOpenQuestion,
  keyboardMessage,
  removeQuestionButtons,
  type QuestionMessage,
} from "./guided/question-buttons";

/**
 * The user's one open question. Guided flows are conversations (guided/); the /connect key step
 * is not: a conversation keeps every update it sees in its replay log, and the key must never be
 * stored. That step is a row in `flows` holding only "waiting for the key since …".
 *
 * The same row holds a guided flow's first question while it waits for its answer: the question
 * is asked before the flow is entered, and the flow is entered with the answer (see
 * guided/install). Either way, a user has at most one row, and leaving a flow deletes it.
 */

/**
 * The update's view of the user's row in `flows`: read once (with the user's row, by loadAccount),
 * then kept by the writes below, which are the only ones an update makes to that row.
 */
const steps = new WeakMap<BotContext, StoredFlow | null>();

async function storedStep(ctx: BotContext): Promise<StoredFlow | null> {
  // An update without a sender has no account, and so no open step.
  if ((ctx as Partial<BotContext>).account === undefined) return null;
  const seen = steps.get(ctx);
  if (seen !== undefined) return seen;
  const known = takePrefetched(ctx, "step");
  const row = known !== undefined ? known : await findFlow(ctx.deps.db, ctx.account.telegram_id);
  steps.set(ctx, row);
  return row;
}

/** Opens the /connect key step (leaving any guided flow), committed before the question is sent. */
export async function startKeyStep(ctx: BotContext): Promise<void> {
  await leaveGuidedFlows(ctx);
  await storeStep(ctx, storedFlow({ flow: "connect", step: "key", data: { askedAt: ctx.deps.now() } }));
}

/** The user's open row in `flows` (the key step, a first question, or a step stored by an older release), as this version reads it. */
export async function currentFlow(ctx: BotContext): Promise<FlowState | null> {
  return flowStateOf(await storedStep(ctx));
}

/** Leaves the guided flow (a conversation) of the chat, if any, and removes its open question's buttons; true when there was one. */
export async function leaveGuidedFlows(ctx: BotContext): Promise<boolean> {
  if (Object.keys(ctx.conversation.active()).length === 0) return false;
  await ctx.conversation.exitAll();
  await closeOpenQuestion(ctx);
  return true;
}

/** Removes the buttons of the question a row in `flows` holds (a first question), if it has any. */
async function closeQuestionOf(ctx: BotContext, row: StoredFlow | null): Promise<void> {
  if (row === null) return;
  await removeQuestionButtons(ctx, keyboardMessage(flowData(row)?.asked as QuestionMessage | undefined));
}

/** Leaves whatever flow the chat is in; true when there was one (also when a command left it just before). */
export async function endFlow(ctx: BotContext): Promise<boolean> {
  const left = (await leaveGuidedFlows(ctx)) || ctx.flowLeft === true;
  // Most updates end a flow that does not exist: the row was read with the user's.
  if ((await storedStep(ctx)) === null) return left;
  return (await deleteStep(ctx)) || left;
}

/** Deletes the user's row in `flows` (a first question's buttons go with it); true when there was one. */
async function deleteStep(ctx: BotContext): Promise<boolean> {
  await closeQuestionOf(ctx, await storedStep(ctx));
  const deleted = await ctx.deps.writes.run((db) => deleteFlow(db, ctx.account.telegram_id));
  steps.set(ctx, null);
  return deleted;
}

/**
 * Runs a menu's area with the user's open question ended, as endFlow would end it, except that the
 * question's row goes after the area: an area that asks a first question of its own replaces the
 * row with one write instead of a delete and an insert (a menu tap that opens /quote, /buy or /watch
 * while another question is open). Meanwhile the row reads as gone. The area's reply may go out
 * before the old row's delete is committed, as a flow's state is saved just after its reply.
 */
export async function withFlowEnded(ctx: BotContext, area: () => Promise<void>): Promise<void> {
  await leaveGuidedFlows(ctx);
  const open = await storedStep(ctx);
  if (open === null) return area();
  await closeQuestionOf(ctx, open);
  steps.set(ctx, null);
  try {
    await area();
  } finally {
    // Still none: nothing replaced it, so it goes now.
    if (steps.get(ctx) === null) await deleteStep(ctx);
  }
}

/** Stores the user's open row, in place of any other (whose question's buttons go). */
async function storeStep(ctx: BotContext, row: StoredFlow): Promise<void> {
  await closeQuestionOf(ctx, await storedStep(ctx));
  const now = ctx.deps.now();
  await ctx.deps.writes.run((db) => storeFlow(db, ctx.account.telegram_id, row, now));
  steps.set(ctx, row);
}

/**
 * A guided flow's first question, asked before the flow was entered: the flow's arguments and the
 * question (plain JSON, handed to the flow with the answer).
 */
export interface FirstQuestion {
  flow: FlowName;
  args: unknown[];
  asked: Asked;
}

/** A first question as read back: what was stored, and the step it names ("quote/volume"). */
export interface StoredFirstQuestion extends FirstQuestion {
  step: string;
}

/** Stores the first question of `flow`, just asked (`step` names it, as a flow's stored state does); it replaces the user's open row. */
export async function storeFirstQuestion(ctx: BotContext, question: FirstQuestion, step: string): Promise<void> {
  await storeStep(ctx, storedFlow({ flow: question.flow, step, data: { args: question.args, asked: question.asked } }));
}

/**
 * The open row as a guided flow's first question: `current` when this version stored it,
 * `outdated` (with its flow) when another version did, null when the row is none (no row, the key
 * step, a step of an older release's step machines).
 */
export async function firstQuestion(
  ctx: BotContext,
): Promise<{ current: StoredFirstQuestion } | { outdated: FlowName } | null> {
  const row = await storedStep(ctx);
  if (!row || !Object.hasOwn(FLOW_COMMANDS, row.flow)) return null;
  const flow = row.flow as FlowName;
  const fields = flowData(row) ?? {};
  const asked = fields.asked as Partial<Asked> | undefined;
  if (!Array.isArray(fields.args) || typeof asked !== "object" || asked === null || typeof asked.askedAt !== "number")
    return null;
  if (row.version !== FLOW_VERSION) return { outdated: flow };
  return { current: { flow, args: fields.args, asked: asked as Asked, step: row.step } };
}

/** Updates whose flow, entered with the answer to its first question, stores its state in place of that question. */
const replacedByState = new WeakSet<BotContext>();

/** The first question was answered and its flow goes on: the flow's stored state replaces the row (guided/storage, in one transaction). */
export function firstQuestionReplaced(ctx: BotContext): void {
  steps.set(ctx, null);
  replacedByState.add(ctx);
}

/** True when this update's flow state replaces the user's first question (see firstQuestionReplaced). */
export function replacesFirstQuestion(ctx: BotContext): boolean {
  return replacedByState.has(ctx);
}

/** Deletes the answered first question now (the flow ended in the same update, so it stores no state to delete it with). */
export async function dropFirstQuestion(ctx: BotContext): Promise<void> {
  await deleteStep(ctx);
}
