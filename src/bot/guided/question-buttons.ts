import type { BotContext } from "../context";
import { afterReply } from "../after-reply";
import { escapeHtml, truncate } from "#src/chat/html";

/**
 * A guided question's answer buttons stay live only while it is open: once it is answered (typed
 * or pressed), expires or is closed (a command, another flow, a menu tap), an edit of its markup
 * removes them, so nothing under an old question looks pressable; a question with a title, once
 * answered, is edited instead to show the answer chosen. The question's message travels
 * with the flow's stored state (the conversation's JSON, or the first question's row), so this
 * holds after a restart and on another replica too.
 */

/** A question as stored with its flow: its message, and whether it carries answer buttons. */
export interface QuestionMessage {
  messageId?: number;
  /** True when the question was sent with answer buttons. */
  keyboard?: boolean;
  /** The question in one line (HTML), shown with the answer once answered; absent: the buttons are only removed. */
  title?: string;
}

/** Per update: the message of the chat's open question that still shows buttons (null: none), as the flow's state says. */
const openKeyboards = new WeakMap<BotContext, number | null>();

/** Per update: the questions whose buttons it removed, so none is edited twice (Telegram refuses an edit that changes nothing). */
const removed = new WeakMap<BotContext, Set<number>>();

/** The message whose buttons must go when `question` closes; null when it has none (or predates this record). */
export function keyboardMessage(question: QuestionMessage | null | undefined): number | null {
  return question?.keyboard === true && typeof question.messageId === "number" ? question.messageId : null;
}

/** Records the open question's buttons for this update: read with the flow's state, or just asked. */
export function noteOpenKeyboard(ctx: BotContext, messageId: number | null): void {
  openKeyboards.set(ctx, messageId);
}

/** The open question's message with buttons, as recorded for this update (null: none). */
export function openKeyboard(ctx: BotContext): number | null {
  return openKeyboards.get(ctx) ?? null;
}

/**
 * Removes the buttons under the question in message `messageId` (an edit of its reply markup with
 * none, or of its text to `answered`, HTML, when given), once per update. A refusal (the user deleted the message) only costs the buttons' removal,
 * so it is logged and the update goes on.
 */
export async function removeQuestionButtons(
  ctx: BotContext,
  messageId: number | null,
  answered?: string,
): Promise<void> {
  const chatId = ctx.chat?.id;
  if (messageId === null || chatId === undefined) return;
  if (openKeyboards.get(ctx) === messageId) openKeyboards.set(ctx, null);
  const done = removed.get(ctx) ?? new Set<number>();
  removed.set(ctx, done);
  if (done.has(messageId)) return;
  done.add(messageId);
  // The user waits for the reply, not for this: it takes the chat's next turn after the reply.
  // An edit of the text without reply_markup drops the buttons too.
  const edit = () =>
    answered === undefined
      ? ctx.api.editMessageReplyMarkup(chatId, messageId)
      : ctx.api.editMessageText(chatId, messageId, answered, { parse_mode: "HTML" });
  await afterReply(ctx, () =>
    edit().catch((error: unknown) => {
      ctx.deps.logger.debug(
        { err: error, userId: ctx.from?.id, messageId },
        "a closed question's buttons could not be removed",
      );
    }),
  );
}

/**
 * Closes an answered question: with a title, its message becomes the question and the answer
 * chosen ("Which resource? — Energy": the pressed button's words, or what was typed), without
 * buttons; without one, its buttons are removed. After the reply, as every removal.
 */
export async function closeAnswered(ctx: BotContext, question: QuestionMessage): Promise<void> {
  const messageId = keyboardMessage(question);
  const chosen = question.title === undefined ? null : answerWords(ctx);
  await removeQuestionButtons(
    ctx,
    messageId,
    chosen === null ? undefined : `${question.title} — <b>${escapeHtml(truncate(chosen, 60))}</b>`,
  );
}

/** The words of the answer this update carries: the pressed button's label, or the typed text; null when neither. */
function answerWords(ctx: BotContext): string | null {
  const data = ctx.callbackQuery?.data;
  if (data === undefined) return ctx.message?.text?.trim() || null;
  const rows = ctx.callbackQuery?.message?.reply_markup?.inline_keyboard ?? [];
  const pressed = rows.flat().find((button) => "callback_data" in button && button.callback_data === data);
  return pressed?.text ?? null;
}

/** Removes the buttons of the chat's open question, if it has any (its flow was left). */
export async function closeOpenQuestion(ctx: BotContext): Promise<void> {
  await removeQuestionButtons(ctx, openKeyboard(ctx));
}
