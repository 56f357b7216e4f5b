import type { Context } from "grammy";
import { RESOURCES } from "#src/input/volume";
import type { BotContext } from "#src/bot/context";
import { readAddress, savedAddressOffers } from "../addresses";
import { durationText, volumeText } from "#src/chat/format";
import {
  answer,
  answerEntering,
  markAsked,
  sendQuestion,
  type AnswerButton,
  type Asked,
  type Guided,
} from "#src/bot/guided/steps";
import { endFlow, storeFirstQuestion } from "#src/bot/flows";
import { recheckForResource, validateField, type DraftField, type OrderDraft, type OrderLimits } from "./index";

const FIELD_NAMES: readonly DraftField[] = ["resource", "volume", "duration", "address"];

/** A question of a guided order: the field asked and the draft as it stands (plain JSON, kept in the flow's log). */
export interface OrderQuestion extends Asked {
  field: DraftField;
  draft: OrderDraft;
}

/**
 * Asks for the first missing field, with buttons as shortcuts (inside `external`). Returns null
 * when nothing is missing.
 */
async function askOrderField(
  ctx: BotContext,
  flow: "quote" | "buy" | "watch" | "autobuy",
  draft: OrderDraft,
  limits: OrderLimits,
  fields: DraftField[],
  told?: string | null,
): Promise<OrderQuestion | null> {
  const rechecked = recheckForResource(ctx, draft, limits);
  const field = fields.find((name) => rechecked.draft[name] === undefined);
  if (!field) return null;
  const buttons: AnswerButton[][] = [[]];
  const problem = told ?? rechecked.problem;
  const lines: string[] = problem ? [problem, ""] : [];
  const next = { ...rechecked.draft };
  let title: string | undefined;
  switch (field) {
    case "resource":
      title = ctx.tr("ask-resource");
      lines.push(title);
      for (const resource of RESOURCES) buttons[0]!.push({ label: ctx.tr(`resource-${resource}`), value: resource });
      break;
    case "volume": {
      const resource = draft.resource ?? "energy";
      title = ctx.tr("ask-volume-short", { resource: ctx.tr(`resource-${resource}`) });
      lines.push(ctx.tr("ask-volume", { resource: ctx.tr(`resource-${resource}`) }));
      const bounds = limits.bounds(resource);
      if (bounds)
        lines.push(
          ctx.tr("bounds-line", { min: volumeText(bounds.min, ctx.lang), max: volumeText(bounds.max, ctx.lang) }),
        );
      if (resource === "energy") {
        lines.push("", ctx.tr("preset-65k"), ctx.tr("preset-131k"));
        if (!draft.hinted) {
          lines.push("", ctx.tr("energy-sender-hint"));
          next.hinted = true;
        }
        buttons[0]!.push(
          ...[65_000n, 131_000n].map((value) => ({ label: volumeText(value, ctx.lang), value: value.toString() })),
        );
      } else if (bounds) {
        buttons[0]!.push({ label: volumeText(bounds.min, ctx.lang), value: bounds.min.toString() });
      }
      break;
    }
    case "duration": {
      title = ctx.tr("ask-duration");
      lines.push(title);
      for (const duration of limits.durations(draft.resource ?? "energy"))
        buttons[0]!.push({ label: durationText(duration, ctx.lang), value: duration });
      break;
    }
    case "address": {
      title = ctx.tr("ask-address-short");
      lines.push(ctx.tr("ask-address"));
      const offers = await savedAddressOffers(ctx, ctx.account.telegram_id);
      next.offered = offers.offered;
      buttons.push(...offers.rows);
      break;
    }
  }
  lines.push("", ctx.tr("ask-cancel-hint"));
  const asked = markAsked(ctx, flow, field);
  await sendQuestion(ctx, asked, lines.join("\n"), buttons, title);
  return { ...asked, field, draft: next };
}

/** Reads the bounds and durations for the user (inside `external`); null after telling the user why not. */
export type LimitsReader = (ctx: BotContext) => Promise<OrderLimits | null>;

/**
 * Starts the guided part of /quote, /buy, /watch or /autobuy (the draft misses an order field): leaves any
 * flow, asks the first missing field, and stores the question. The flow itself is entered with
 * the answer (guided/install), as `flow(conversation, ctx, draft, question)`: entering a flow runs
 * the conversations plugin (a replay engine, a context of its own, the update kept in its log),
 * which cost more CPU than the rest of a menu tap together (README, "The first question before the
 * flow"). `problem` (HTML) comes before the question: why a one-line argument is asked again.
 * False when nothing was missing after all (the caller goes on with the draft).
 */
export async function startOrderFlow(
  ctx: BotContext,
  flow: "quote" | "buy" | "watch" | "autobuy",
  draft: OrderDraft,
  limits: OrderLimits,
  fields: DraftField[],
  problem?: string | null,
): Promise<boolean> {
  await endFlow(ctx);
  const question = await askOrderField(ctx, flow, draft, limits, fields, problem);
  if (!question) return false;
  await storeFirstQuestion(ctx, { flow, args: [draft], asked: question }, ctx.flowStep ?? `${flow}/${question.field}`);
  return true;
}

/**
 * The guided part of /quote and /buy: asks each missing field in turn and returns the complete
 * draft. Every read of the options and every message goes through `external`, once. `first` is
 * the question asked before the flow was entered (startOrderFlow), answered by the update that
 * entered it (`entering`, the flow's own context).
 */
export async function collectOrder(
  conversation: Guided,
  flow: "quote" | "buy" | "watch" | "autobuy",
  start: OrderDraft,
  fields: DraftField[],
  limitsOf: LimitsReader,
  first?: { entering: Context; question: OrderQuestion },
): Promise<OrderDraft> {
  let draft = start;
  let pending = first;
  for (;;) {
    const question = pending
      ? pending.question
      : await conversation.external(async (ctx) => {
          const limits = await limitsOf(ctx);
          if (!limits) return { failed: true as const };
          return (await askOrderField(ctx, flow, draft, limits, fields)) ?? { done: true as const };
        });
    if ("failed" in question) return conversation.halt();
    if ("done" in question) return draft;
    const { field } = question;
    const asked = question.draft;
    const check = async (ctx: BotContext, input: string) => {
      // An address needs no options: a bad one is refused before any marketplace call.
      if (field === "address") return readAddress(ctx, input, asked.offered);
      const limits = await limitsOf(ctx);
      return limits ? validateField(ctx, field, input, asked, limits) : { ok: false as const };
    };
    const value = pending
      ? await answerEntering(conversation, pending.entering, flow, question, check)
      : await answer(conversation, flow, question, check);
    pending = undefined;
    draft = { ...asked, [field]: value };
  }
}

/** A first question as stored (startOrderFlow), when it reads as one: the flow's argument after its draft. */
export function firstOrderQuestion(value: unknown): OrderQuestion | undefined {
  if (typeof value !== "object" || value === null) return undefined;
  const question = value as Partial<OrderQuestion>;
  if (
    typeof question.askedAt !== "number" ||
    typeof question.field !== "string" ||
    !(FIELD_NAMES as readonly string[]).includes(question.field) ||
    typeof question.draft !== "object" ||
    question.draft === null
  )
    return undefined;
  return question as OrderQuestion;
}
