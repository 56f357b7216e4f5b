import type { Context } from "grammy";
import type { AutomationOptions } from "#src/marketplace/index";
import { checkBounds } from "#src/input/volume";
import type { BotContext } from "#src/bot/context";
import { durationText, volumeText } from "#src/chat/format";
import {
  answer,
  markAsked,
  sendQuestion,
  type AnswerButton,
  type Asked,
  type Checked,
  type Guided,
} from "#src/bot/guided/steps";
import { userClient } from "#src/bot/marketplace-access";
import { readAddress, savedAddressOffers } from "../addresses";
import { sendRuleCard } from "./card";
import {
  automationOptions,
  FIELDS,
  KINDS,
  nextStep,
  parseKind,
  parseYesNo,
  validateRuleField,
  volumeBounds,
  type RuleDraft,
  type RuleStep,
} from "./draft";

/** A question of the guided form: the step asked and the draft as it stands (plain JSON, kept in the flow's log). */
interface RuleQuestion extends Asked {
  step: RuleStep;
  draft: RuleDraft;
}

/** Asks the next question of the guided form (inside `external`). */
async function ask(
  ctx: BotContext,
  step: RuleStep,
  draft: RuleDraft,
  options: AutomationOptions,
): Promise<RuleQuestion> {
  const buttons: AnswerButton[][] = [[]];
  const lines: string[] = [];
  const next: RuleDraft = { ...draft };
  switch (step) {
    case "kind":
      lines.push(ctx.tr("newrule-ask-kind"));
      for (const kind of KINDS) buttons[0]!.push({ label: ctx.tr(`rule-kind-${kind}`), value: kind });
      break;
    case "address": {
      lines.push(ctx.tr("ask-rule-address"));
      const offers = await savedAddressOffers(ctx, ctx.account.telegram_id);
      next.offered = offers.offered;
      buttons.push(...offers.rows);
      break;
    }
    case "minimal":
      lines.push(ctx.tr("ask-rule-minimal"));
      break;
    case "volume": {
      const bounds = volumeBounds(draft.kind!, options);
      lines.push(
        ctx.tr(draft.kind === "renewal" ? "ask-rule-renewal-volume" : "ask-rule-volume"),
        ctx.tr("bounds-line", { min: volumeText(bounds.min, ctx.lang), max: volumeText(bounds.max, ctx.lang) }),
      );
      const presets = [65_000n, 131_000n].filter((value) => !checkBounds(value, bounds.min, bounds.max));
      if (presets.length === 0) presets.push(bounds.min);
      for (const value of presets) buttons[0]!.push({ label: volumeText(value, ctx.lang), value: value.toString() });
      break;
    }
    case "duration":
      lines.push(ctx.tr("ask-rule-duration"));
      for (const duration of options.durations)
        buttons[0]!.push({ label: durationText(duration, ctx.lang), value: duration });
      break;
    case "autoResume":
      lines.push(ctx.tr("ask-auto-resume"));
      buttons[0]!.push({ label: ctx.tr("button-yes"), value: "yes" }, { label: ctx.tr("button-no"), value: "no" });
      break;
  }
  lines.push("", ctx.tr("ask-cancel-hint"));
  const asked = markAsked(ctx, "rule", step);
  await sendQuestion(ctx, asked, lines.join("\n"), buttons);
  return { ...asked, step, draft: next };
}

/** Checks an answer to one step (inside `external`): the change it makes to the draft, or why not. */
async function checkAnswer(
  ctx: BotContext,
  step: RuleStep,
  input: string,
  draft: RuleDraft,
): Promise<Checked<Partial<RuleDraft>>> {
  const client = await userClient(ctx);
  if (!client) return { ok: false };
  if (step === "address") {
    // An address needs no options: a bad one is refused before any marketplace call.
    const check = readAddress(ctx, input, draft.offered);
    if (!check.ok) return check;
  }
  const options = await automationOptions(ctx, client);
  if (!options) return { ok: false };
  if (step === "kind") {
    const kind = parseKind(ctx, input);
    return kind ? { ok: true, value: { kind } } : { ok: false, message: ctx.tr("newrule-kind-bad") };
  }
  if (step === "autoResume") {
    const value = parseYesNo(ctx, input);
    return value === null ? { ok: false, message: ctx.tr("input-yes-no") } : { ok: true, value: { autoResume: value } };
  }
  if (!draft.kind || !FIELDS[draft.kind].includes(step)) return { ok: true, value: {} };
  const check = validateRuleField(ctx, step, input, draft.kind, options, draft.offered);
  return check.ok ? { ok: true, value: { [step]: check.value } } : check;
}

/**
 * /newrule, and /refill, /renewal or /smart given fewer arguments than they need: asks each
 * missing step in turn (kind, address, bounds, auto-resume), then the confirmation card.
 */
export async function ruleConversation(conversation: Guided, _ctx: Context, start: RuleDraft): Promise<void> {
  let draft = start;
  for (;;) {
    const question = await conversation.external(async (ctx) => {
      const step = nextStep(draft);
      if (!step) return { done: true as const };
      const client = await userClient(ctx);
      const options = client ? await automationOptions(ctx, client) : null;
      return options ? await ask(ctx, step, draft, options) : { failed: true as const };
    });
    if ("failed" in question) return conversation.halt();
    if ("done" in question) break;
    const { step } = question;
    const asked = question.draft;
    const change = await answer(conversation, "rule", question, (ctx, input) => checkAnswer(ctx, step, input, asked));
    draft = { ...asked, ...change };
  }
  await conversation.external((ctx) => sendRuleCard(ctx, draft));
}
