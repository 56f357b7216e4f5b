import type { Context } from "grammy";
import { compareTrx, sunToTrx, trxToSun } from "#src/marketplace/money";
import type { BotContext } from "#src/bot/context";
import { answer, markAsked, sendQuestion, type AnswerButton, type Asked, type Guided } from "#src/bot/guided/steps";
import { replyMarketplaceError, userClient } from "#src/bot/marketplace-access";
import { knownTrxText, trxText } from "#src/chat/format";
import { orderLimits, type DraftField, type OrderLimits } from "../order-params";
import { collectOrder, firstOrderQuestion } from "../order-params/guided";
import { readFigures, sendAutoBuyCard } from "./card";
import { readTrxAmount, type AutoBuyDraft } from "./parse";

export const AUTO_BUY_FIELDS: DraftField[] = ["resource", "volume", "duration", "address"];

/** Bounds and durations for an order, from the options endpoint (a key is needed); null after telling the user why not. */
export async function autoBuyLimits(ctx: BotContext): Promise<OrderLimits | null> {
  const client = await userClient(ctx);
  if (!client) return null;
  try {
    return await orderLimits(ctx, client);
  } catch (error) {
    await replyMarketplaceError(ctx, error, { read: true });
    return null;
  }
}

/** The question of an amount, with the user's balance when it was asked (the most per order may not exceed it). */
interface AmountQuestion extends Asked {
  balanceTrx: string | null;
}

/** Whole thousandths of a TRX below `sun` by `percent`: short buttons, and amounts a person would type. */
function below(sun: bigint, percent: bigint): string {
  return sunToTrx(((sun * percent) / 100n / 1000n) * 1000n);
}

/**
 * Asks the most one order may cost, showing the user's own total for this order now (their
 * preview: price and activation fee) and their balance, with that total and a little below it as
 * buttons. Inside `external`; null after telling the user why the preview could not be read.
 */
async function askMax(ctx: BotContext, draft: AutoBuyDraft): Promise<AmountQuestion | null> {
  const figures = await readFigures(ctx, draft);
  if (!figures) return null;
  const totalSun = trxToSun(figures.totalTrx);
  const buttons: AnswerButton[] = [];
  for (const value of [figures.totalTrx, below(totalSun, 95n), below(totalSun, 90n)])
    if (trxToSun(value) > 0n && !buttons.some((button) => button.value === value))
      buttons.push({ label: `≤ ${trxText(value, ctx.lang)}`, value });
  const asked = markAsked(ctx, "autobuy", "max");
  const lines = draft.problem?.field === "max" ? [draft.problem.message, ""] : [];
  lines.push(
    ctx.tr("ask-autobuy-max", {
      total: trxText(figures.totalTrx, ctx.lang),
      balance: knownTrxText(figures.balanceTrx, ctx.lang),
    }),
    "",
    ctx.tr("ask-cancel-hint"),
  );
  await sendQuestion(ctx, asked, lines.join("\n"), [buttons], ctx.tr("ask-autobuy-max-short"));
  return { ...asked, balanceTrx: figures.balanceTrx };
}

/** Asks the daily budget (UTC day), with one, two and three orders at the cap as buttons. Inside `external`. */
async function askBudget(ctx: BotContext, draft: AutoBuyDraft): Promise<Asked> {
  const maxSun = trxToSun(draft.maxTrx!);
  const buttons = [1n, 2n, 3n].map((times) => {
    const value = sunToTrx(maxSun * times);
    return { label: trxText(value, ctx.lang), value };
  });
  const asked = markAsked(ctx, "autobuy", "budget");
  const lines = draft.problem?.field === "budget" ? [draft.problem.message, ""] : [];
  lines.push(ctx.tr("ask-autobuy-budget", { max: trxText(draft.maxTrx!, ctx.lang) }), "", ctx.tr("ask-cancel-hint"));
  await sendQuestion(ctx, asked, lines.join("\n"), [buttons], ctx.tr("ask-autobuy-budget-short"));
  return asked;
}

/** Why an amount was refused, in the user's language (HTML). */
export function amountProblem(ctx: BotContext, reason: "format" | "zero" | "precision" | "high"): string {
  return ctx.tr(`input-autobuy-amount-${reason}`);
}

/** The most per order, checked: a TRX amount above zero, and not above the balance (no such order could be paid). */
export function checkMax(
  ctx: BotContext,
  input: string,
  balanceTrx: string | null,
): { ok: true; value: string } | { ok: false; message: string } {
  const read = readTrxAmount(input, ctx.lang === "ru");
  if (!read.ok) return { ok: false, message: amountProblem(ctx, read.reason) };
  if (balanceTrx !== null && compareTrx(read.value, balanceTrx) > 0)
    return { ok: false, message: ctx.tr("input-autobuy-max-over-balance", { balance: trxText(balanceTrx, ctx.lang) }) };
  return read;
}

/** The daily budget, checked: a TRX amount, at least the most per order (or not even one order would fit). */
export function checkBudget(
  ctx: BotContext,
  input: string,
  maxTrx: string,
): { ok: true; value: string } | { ok: false; message: string } {
  const read = readTrxAmount(input, ctx.lang === "ru");
  if (!read.ok) return { ok: false, message: amountProblem(ctx, read.reason) };
  if (compareTrx(read.value, maxTrx) < 0)
    return { ok: false, message: ctx.tr("input-autobuy-budget-under-max", { max: trxText(maxTrx, ctx.lang) }) };
  return read;
}

/**
 * /autobuy, guided: the order fields as /buy asks them (the same steps, buttons and parsers),
 * then the most per order, then the daily budget, then the confirmation card. A refused one-line
 * amount is said before that amount is asked.
 */
export async function autoBuyConversation(
  conversation: Guided,
  ctx: Context,
  start: AutoBuyDraft,
  asked?: unknown,
): Promise<void> {
  const question = firstOrderQuestion(asked);
  const order = await collectOrder(
    conversation,
    "autobuy",
    start,
    AUTO_BUY_FIELDS,
    autoBuyLimits,
    question && { entering: ctx, question },
  );
  const draft: AutoBuyDraft = { ...start, ...order };
  if (draft.maxTrx === undefined) {
    const maxQuestion = await conversation.external((ctx) => askMax(ctx, draft));
    if (maxQuestion === null) return conversation.halt();
    draft.maxTrx = await answer(conversation, "autobuy", maxQuestion, async (ctx, input) =>
      checkMax(ctx, input, maxQuestion.balanceTrx),
    );
    if (draft.problem?.field === "max") delete draft.problem;
    // A budget given with a refused cap may not fit the new one: asked again, said why.
    const maxTrx = draft.maxTrx;
    if (draft.budgetTrx !== undefined && compareTrx(draft.budgetTrx, maxTrx) < 0) {
      draft.problem = await conversation.external((ctx) => ({
        field: "budget" as const,
        message: ctx.tr("input-autobuy-budget-under-max", { max: trxText(maxTrx, ctx.lang) }),
      }));
      delete draft.budgetTrx;
    }
  }
  if (draft.budgetTrx === undefined) {
    const budgetQuestion = await conversation.external((ctx) => askBudget(ctx, draft));
    const maxTrx = draft.maxTrx!;
    draft.budgetTrx = await answer(conversation, "autobuy", budgetQuestion, async (ctx, input) =>
      checkBudget(ctx, input, maxTrx),
    );
  }
  await conversation.external((ctx) => sendAutoBuyCard(ctx, draft));
}
