import type { Conversation } from "@grammyjs/conversations";
import type { Context } from "grammy";
import { ANSWER, answerData } from "#src/chat/callback-data";
import type { BotContext } from "../context";
import { pressedButtonExists } from "../pressed-button";
import { closeAnswered, keyboardMessage, noteOpenKeyboard, removeQuestionButtons } from "./question-buttons";

/**
 * A guided flow's handle. Inside a flow, Telegram and the marketplace are reached only through
 * `conversation.external` with the bot's own context: the replay never repeats those calls, and
 * the bot's context carries what the plugin's context lacks (dependencies, the user, the
 * translations, and the Bot API transformers that keep replies within Telegram's limits).
 */
export type Guided = Conversation<BotContext, Context>;

/** The flows and the command that starts each again (said when a step has expired). */
export const FLOW_COMMANDS = {
  quote: "/quote",
  buy: "/buy",
  rule: "/newrule",
  "address-label": "/addresses",
  watch: "/watch",
  "guard-amount": "/settings",
  autobuy: "/autobuy",
} as const;
export type FlowName = keyof typeof FLOW_COMMANDS;

/** How long a question waits for its answer; a later answer is refused with a clear message. */
export const STEP_TTL_MS = 10 * 60_000;

/** A question that was put to the user, and when (plain JSON: it is stored in the replay log). */
export interface Asked {
  askedAt: number;
  /** The question's message: only the buttons under it answer it (absent in a state stored before it was recorded). */
  messageId?: number;
  /** True when the question has answer buttons: they are removed once it is answered or closed (guided/question-buttons). */
  keyboard?: boolean;
  /** The question in one line (HTML): once answered, its message shows it with the answer chosen. */
  title?: string;
}

/** An answer checked: its value, or why not (HTML, said to the user; absent when the check already replied). */
export type Checked<T> = { ok: true; value: T } | { ok: false; message?: string };

/** Records the step being asked (stored beside the flow's state) and when it was asked. Runs inside `external`. */
export function markAsked(ctx: BotContext, flow: FlowName, step: string): Asked {
  ctx.flowStep = `${flow}/${step}`;
  return { askedAt: ctx.deps.now() };
}

/**
 * Sends the question `asked` (HTML) with its answer buttons, if any, and records its message in
 * `asked`, with `title` (the question in one line) to show beside the answer chosen. Runs inside `external`.
 */
export async function sendQuestion(
  ctx: BotContext,
  asked: Asked,
  text: string,
  buttons: AnswerButton[][] = [],
  title?: string,
): Promise<void> {
  const rows = buttons
    .filter((row) => row.length > 0)
    .map((row) => row.map((button) => ({ text: button.label, callback_data: answerData(button.value) })));
  const sent = await ctx.reply(text, {
    parse_mode: "HTML",
    ...(rows.length > 0 ? { reply_markup: { inline_keyboard: rows } } : {}),
  });
  asked.messageId = sent.message_id;
  if (rows.length > 0) asked.keyboard = true;
  if (rows.length > 0 && title !== undefined) asked.title = title;
  noteOpenKeyboard(ctx, keyboardMessage(asked));
}

/** A button that answers the open question with `value` (short: callback data holds 64 bytes). */
export interface AnswerButton {
  label: string;
  value: string;
}

/**
 * The answer an update carries: typed text, or the value of an answer button that is on the
 * pressed message (data missing from it was made up, or belongs to a keyboard since replaced)
 * and, given the open question `asked`, under that question (a button under an earlier question,
 * of this flow or another, answers nothing: a double tap, or a press further up the chat).
 * Null for everything else, which the flow leaves to the rest of the bot.
 */
export function answerIn(ctx: Context, asked?: Asked): string | null {
  const text = ctx.message?.text;
  if (text !== undefined) return text.startsWith("/") ? null : text;
  const data = ctx.callbackQuery?.data;
  if (data === undefined) return null;
  const value = ANSWER.parse(data);
  if (value === null || !pressedButtonExists(ctx)) return null;
  if (asked?.messageId !== undefined && ctx.callbackQuery?.message?.message_id !== asked.messageId) return null;
  return value;
}

/**
 * Waits for the answer to a question and checks it. A refused answer is explained and the
 * question stays open; it leaves no trace in the flow's state (the plugin's `skip` drops it).
 * An answer after STEP_TTL_MS ends the flow with a message saying how to start again. Anything
 * that is not an answer (another feature's button, a photo) goes on to the rest of the bot.
 */
export async function answer<T>(
  conversation: Guided,
  flow: FlowName,
  asked: Asked,
  check: (ctx: BotContext, input: string) => Promise<Checked<T>>,
): Promise<T> {
  const update = await conversation.wait();
  const input = answerIn(update, asked);
  if (input === null) return conversation.skip({ next: true });
  const result = await checkAnswer(conversation, flow, asked, input, check);
  if (result === "refused") return conversation.skip({ next: false });
  return result.value;
}

/**
 * {@link answer} for a first question asked before the flow was entered: the update that entered
 * the flow (`entering`, the flow's own context) carries the answer. A refused answer is explained
 * and the question stays open, now inside the flow, for the next answer.
 */
export async function answerEntering<T>(
  conversation: Guided,
  entering: Context,
  flow: FlowName,
  asked: Asked,
  check: (ctx: BotContext, input: string) => Promise<Checked<T>>,
): Promise<T> {
  const input = answerIn(entering, asked);
  // The flow is entered only with an answer (guided/install); anything else waits for one.
  if (input === null) return answer(conversation, flow, asked, check);
  const result = await checkAnswer(conversation, flow, asked, input, check);
  if (result === "refused") return answer(conversation, flow, asked, check);
  return result.value;
}

/** Checks an answer (inside `external`): its value, "refused" once explained, or the flow halted when the question expired. */
async function checkAnswer<T>(
  conversation: Guided,
  flow: FlowName,
  asked: Asked,
  input: string,
  check: (ctx: BotContext, input: string) => Promise<Checked<T>>,
): Promise<{ value: T } | "refused"> {
  const result = await conversation.external(async (ctx): Promise<Checked<T> | { expired: true }> => {
    if (ctx.callbackQuery) await ctx.answerCallbackQuery();
    if (ctx.deps.now() - asked.askedAt >= STEP_TTL_MS) {
      await removeQuestionButtons(ctx, keyboardMessage(asked));
      await ctx.reply(ctx.tr("flow-expired", { command: FLOW_COMMANDS[flow] }), { parse_mode: "HTML" });
      return { expired: true };
    }
    const checked = await check(ctx, input);
    if (!checked.ok && checked.message) await ctx.reply(checked.message, { parse_mode: "HTML" });
    // Answered: its buttons go (the answer shown in their place) before the next question is asked.
    if (checked.ok) await closeAnswered(ctx, asked);
    return checked;
  });
  if ("expired" in result) return conversation.halt();
  return result.ok ? { value: result.value } : "refused";
}
