import { conversations, createConversation, type ConversationBuilder } from "@grammyjs/conversations";
import type { Composer, Context, MiddlewareFn } from "grammy";
import { FlatComposer } from "../middleware/flat-composer";
import { ANSWER } from "#src/chat/callback-data";
import type { BotContext } from "../context";
import { dropFirstQuestion, endFlow, firstQuestion, firstQuestionReplaced, leaveGuidedFlows } from "../flows";
import { answerIn, FLOW_COMMANDS, type FlowName } from "./steps";
import { keyboardMessage, noteOpenKeyboard } from "./question-buttons";
import { conversationStorage } from "./storage";

export type FlowBuilders = Record<FlowName, ConversationBuilder<BotContext, Context>>;

/**
 * Guided flows on @grammyjs/conversations, with their state in the bot's database. Installed
 * before the features, so a flow sees its chat's updates first: it takes the answers and leaves
 * everything else to the features. A command leaves the flow before it runs.
 *
 * Only the chat's active flow runs for an update, and only for an update that can answer its
 * question (typed text, an answer button); a flow is registered with the plugin when it
 * runs or when it is entered (enterFlow), not for every update: most updates belong to no flow,
 * and each registered flow is one more middleware on every update.
 */
export function guidedFlows(builders: FlowBuilders): Composer<BotContext> {
  const flows = new Map(
    Object.entries(builders).map(([name, builder]) => [name, createConversation<BotContext, Context>(builder, name)]),
  );
  const composer = new FlatComposer<BotContext>();
  composer.use(conversations<BotContext, Context>({ storage: conversationStorage() }));
  composer.use(beforeFlows());
  composer.use((ctx, next) => {
    const registered = new Set<string>();
    const register = async (name: string) => {
      const flow = flows.get(name);
      if (!flow || registered.has(name)) return;
      registered.add(name);
      // With no state of its own yet, the flow's middleware only registers it (and calls next).
      await flow(ctx, () => Promise.resolve());
    };
    registries.set(ctx, register);
    const [active] = Object.keys(ctx.conversation.active());
    if (active === undefined) return answerFirstQuestion(ctx, next, register);
    const flow = flows.get(active);
    if (!flow) return next();
    // A flow waits only in `answer`, which passes everything but an answer on to the rest of the
    // bot untouched (the plugin's skip): an update that carries no answer goes on without the
    // flow's replay, which would only reach that same skip.
    if (answerIn(ctx) === null) return next();
    registered.add(active);
    return flow(ctx, next);
  });
  // An answer button no flow took: while a question is open, it is not on that question's message
  // (made up, or from a keyboard since replaced); otherwise its flow has ended.
  composer.callbackQuery(ANSWER.pattern, async (ctx) => {
    const open = Object.keys(ctx.conversation.active()).length > 0 || (await firstQuestion(ctx)) !== null;
    await ctx.answerCallbackQuery({ text: ctx.tr(open ? "flow-not-this-question" : "flow-closed") });
  });
  return composer;
}

/**
 * A guided flow's first question is asked before the flow is entered (startOrderFlow): its answer
 * enters the flow, which takes it as the answer to that question. Anything else goes on to the
 * rest of the bot, and the question stays open. An answer to a first question stored by another
 * version of the bot is told the step expired, as a flow's would be.
 */
async function answerFirstQuestion(
  ctx: BotContext,
  next: () => Promise<void>,
  register: (name: string) => Promise<void>,
): Promise<void> {
  const first = await firstQuestion(ctx);
  if (first === null) return next();
  if ("outdated" in first) {
    if (answerIn(ctx) === null) return next();
    await dropFirstQuestion(ctx);
    return sayExpired(ctx, first.outdated);
  }
  const { flow, args, asked, step } = first.current;
  if (answerIn(ctx, asked) === null) return next();
  await register(flow);
  // The step (and question) the flow's state is stored at, unless the flow asks its next question now.
  ctx.flowStep = step;
  noteOpenKeyboard(ctx, keyboardMessage(asked));
  await ctx.conversation.enter(flow, ...args, asked);
  // Still open: the flow's state replaces the question when the plugin stores it (guided/storage),
  // in one transaction. Ended with this answer (a complete draft, an expired question): no state
  // is stored, so the question goes now.
  if (ctx.conversation.active(flow) > 0) firstQuestionReplaced(ctx);
  else await dropFirstQuestion(ctx);
}

/** Per update: registers a flow with the plugin (once), so it can be entered. */
const registries = new WeakMap<BotContext, (name: string) => Promise<void>>();

/** Enters a guided flow, leaving whatever flow the chat was in. */
export async function enterFlow(ctx: BotContext, flow: FlowName, ...args: unknown[]): Promise<void> {
  await endFlow(ctx);
  await registries.get(ctx)?.(flow);
  await ctx.conversation.enter(flow, ...args);
}

/**
 * Before the flows see an update: a command leaves the flow (/cancel, /start or any other), so
 * text after it is never taken as an answer; and the answer to a step whose stored state a deploy
 * made unreadable (FLOW_VERSION changed) is told the step expired and how to start again. Nothing
 * of such a flow was applied, since a flow acts only at its end (a confirmation card, a label).
 */
function beforeFlows(): MiddlewareFn<BotContext> {
  return (ctx, next) => {
    const text = ctx.message?.text;
    const command = text?.startsWith("/") === true;
    // Any other command also closes the /connect key step, so later text is never taken for a key.
    if (command && !CONNECT_COMMAND.test(text!)) return leaveAllThen(ctx, next);
    if (command && Object.keys(ctx.conversation.active()).length > 0) return leaveThen(ctx, next);
    const flow = ctx.outdatedFlow;
    if (flow === undefined || command) return next();
    const data = ctx.callbackQuery?.data;
    if (text === undefined && (data === undefined || ANSWER.parse(data) === null)) return next();
    return sayExpired(ctx, flow);
  };
}

/** /connect, which opens the key step itself (leaving any guided flow). */
const CONNECT_COMMAND = /^\/connect(?:@\w+)?(?:\s|$)/;

/** Leaves the guided flow and the key step, whichever is open (endFlow), then goes on; /cancel then says it left one. */
async function leaveAllThen(ctx: BotContext, next: () => Promise<void>): Promise<void> {
  if (await endFlow(ctx)) ctx.flowLeft = true;
  await next();
}

async function leaveThen(ctx: BotContext, next: () => Promise<void>): Promise<void> {
  await leaveGuidedFlows(ctx);
  ctx.flowLeft = true;
  await next();
}

async function sayExpired(ctx: BotContext, flow: string): Promise<void> {
  if (ctx.callbackQuery) await ctx.answerCallbackQuery();
  const command = Object.hasOwn(FLOW_COMMANDS, flow) ? FLOW_COMMANDS[flow as FlowName] : "/help";
  await ctx.reply(ctx.tr("flow-expired", { command }), { parse_mode: "HTML" });
}
