import { markKeyBroken } from "#src/db/repos/credentials";
import { markInMotion, requestRuleCheck } from "#src/db/repos/poll-schedule";
import { MarketplaceError, type AutomationRule } from "#src/marketplace/index";
import type { BotContext } from "#src/bot/context";
import { editInPlace } from "#src/bot/edit-in-place";
import { describeMarketplaceError, replyMarketplaceError } from "#src/bot/marketplace-access";
import { resolveRef } from "#src/db/repos/callback-refs";
import { ruleStatus } from "#src/marketplace/rule-words";
import { gone, showListPage, showRuleCard, unusable } from "./menu-display";
import type { FoundRule, MenuContext, RuleAction, RulesMenuSet } from "./menu-state";
import { deliveriesText, ruleCardText } from "./views";

/** The state a rule must be in for the button pressed; anything else means it changed elsewhere. */
const ALLOWED: Record<RuleAction, (status: string) => boolean> = {
  pause: (status) => ruleStatus(status) === "active",
  resume: (status) => ruleStatus(status) === "paused",
  cancel: (status) => ruleStatus(status) !== "cancelled",
};

const TOAST: Record<RuleAction, string> = {
  pause: "rule-toast-paused",
  resume: "rule-toast-resumed",
  cancel: "rule-toast-cancelled",
};

/** A rule's button on a list page: its card. */
export async function openRule(menus: RulesMenuSet, ctx: MenuContext, ref: string, page: number): Promise<void> {
  const loaded = await menus.presses.pressedList(ctx);
  if (!loaded) return;
  const ruleId = await resolveRef(ctx.deps.db, ctx.account.telegram_id, ref);
  const rule = ruleId ? loaded.rules.find((candidate) => candidate.id === ruleId) : undefined;
  if (!rule) return gone(menus, ctx, loaded.rules, page);
  await ctx.answerCallbackQuery();
  await showRuleCard(menus, ctx, rule, { page });
}

/** Prev or Next on a list page. */
export async function turnPage(menus: RulesMenuSet, ctx: MenuContext, page: number): Promise<void> {
  const loaded = await menus.presses.pressedList(ctx);
  if (!loaded) return;
  await ctx.answerCallbackQuery();
  await showListPage(menus, ctx, loaded.rules, page);
}

/** Pause, Resume, or Confirm under "cancel this rule?". */
export async function pressAction(menus: RulesMenuSet, ctx: MenuContext, action: RuleAction): Promise<void> {
  const found = await menus.presses.pressedRule(ctx);
  if (await unusable(menus, ctx, found)) return;
  await act(menus, ctx, found as FoundRule, action);
}

/** Pause, resume or cancel a rule found by a lookup, then show its card with the result. */
export async function act(menus: RulesMenuSet, ctx: BotContext, found: FoundRule, action: RuleAction): Promise<void> {
  const { client, rules } = found;
  const { rule, page } = found.view;
  if (!ALLOWED[action](rule.status)) {
    await ctx.answerCallbackQuery({ text: ctx.tr("rule-toast-changed") });
    return showRuleCard(menus, ctx, rule, { page });
  }
  let updated: AutomationRule;
  try {
    updated =
      action === "pause"
        ? await client.pauseAutomation(rule.id)
        : action === "resume"
          ? await client.resumeAutomation(rule.id)
          : await client.cancelAutomation(rule.id);
  } catch (error) {
    if (!(error instanceof MarketplaceError)) throw error;
    ctx.deps.logger.info(
      { userId: ctx.account.telegram_id, ruleId: rule.id, action, kind: error.kind, status: error.status },
      "rule action refused",
    );
    if (error.kind === "not_found") {
      // The marketplace just said the rule does not exist for this key: do not list it, whatever a list read says.
      const fresh = (await client.listAutomations().catch(() => null)) ?? rules;
      return gone(
        menus,
        ctx,
        fresh.filter((candidate) => candidate.id !== rule.id),
        page,
      );
    }
    if (error.kind === "unauthorized") await markKeyBroken(ctx.deps.db, ctx.account.telegram_id, ctx.deps.now());
    // Show the rule as it is now, with what went wrong under it.
    const current =
      (await client.listAutomations().catch(() => null))?.find((candidate) => candidate.id === rule.id) ?? rule;
    // Pause, Resume and Cancel are writes: a 403 is about the action, not the key.
    const described = describeMarketplaceError(ctx, error, false);
    const balance = error.kind === "insufficient_balance";
    const note = balance && action === "resume" ? ctx.tr("rule-resume-short") : described.text;
    await ctx.answerCallbackQuery({ text: ctx.tr("rule-toast-failed") });
    return showRuleCard(menus, ctx, current, { note, topUp: balance, page });
  }
  ctx.deps.logger.info(
    { userId: ctx.account.telegram_id, ruleId: rule.id, action, status: updated.status },
    "rule updated",
  );
  await (action === "resume"
    ? markInMotion(ctx.deps.db, ctx.account.telegram_id, "rule", ctx.deps.now())
    : requestRuleCheck(ctx.deps.db, ctx.account.telegram_id));
  await ctx.answerCallbackQuery({ text: ctx.tr(TOAST[action]) });
  await showRuleCard(menus, ctx, updated, { page });
}

/** Cancel on a rule card: "cancel this rule?" with Confirm and Back. */
export async function askCancel(menus: RulesMenuSet, ctx: MenuContext): Promise<void> {
  const found = await menus.presses.pressedRule(ctx);
  if (await unusable(menus, ctx, found)) return;
  const { view } = found as FoundRule;
  if (!ALLOWED.cancel(view.rule.status)) {
    await ctx.answerCallbackQuery({ text: ctx.tr("rule-toast-changed") });
    return showRuleCard(menus, ctx, view.rule, { page: view.page });
  }
  await ctx.answerCallbackQuery();
  menus.presses.drawing(ctx).rule = { ...view, topUp: false };
  await editInPlace(ctx, `${ruleCardText(ctx, view.rule)}\n\n${ctx.tr("rule-cancel-ask")}`, menus.cancel);
}

/** Deliveries on a rule card: the rule's latest firings. */
export async function deliveries(menus: RulesMenuSet, ctx: MenuContext): Promise<void> {
  const found = await menus.presses.pressedRule(ctx);
  if (await unusable(menus, ctx, found)) return;
  const { view, client, rules } = found as FoundRule;
  let firings;
  try {
    firings = await client.automationFires(view.rule.id);
  } catch (error) {
    if (error instanceof MarketplaceError && error.kind === "not_found")
      return gone(
        menus,
        ctx,
        rules.filter((rule) => rule.id !== view.rule.id),
        view.page,
      );
    await ctx.answerCallbackQuery().catch(() => undefined);
    return replyMarketplaceError(ctx, error, { read: true });
  }
  await ctx.answerCallbackQuery();
  menus.presses.drawing(ctx).rule = { ...view, topUp: false };
  await editInPlace(ctx, deliveriesText(ctx, view.rule, firings.slice(0, 50)), menus.deliveries);
}

/** Back to the rule's card (from "cancel this rule?" or the deliveries). */
export async function showCard(menus: RulesMenuSet, ctx: MenuContext): Promise<void> {
  const found = await menus.presses.pressedRule(ctx);
  if (await unusable(menus, ctx, found)) return;
  const { view } = found as FoundRule;
  await ctx.answerCallbackQuery();
  await showRuleCard(menus, ctx, view.rule, { page: view.page });
}

/** Back on a rule card: the list page it was opened from. */
export async function backToList(menus: RulesMenuSet, ctx: MenuContext): Promise<void> {
  const found = await menus.presses.pressedRule(ctx);
  if (found === null || found.found === "expired" || found.found === "unavailable") {
    await unusable(menus, ctx, found);
    return;
  }
  await ctx.answerCallbackQuery();
  const page = found.found === "rule" ? found.view.page : found.page;
  await showListPage(menus, ctx, found.rules, page || 1);
}

export async function topUp(menus: RulesMenuSet, ctx: MenuContext): Promise<void> {
  await ctx.answerCallbackQuery();
  await menus.showTopUp(ctx);
}

/**
 * New rule under the list: handed on down the chain, past the guided flows the menus run before
 * (a new rule's guided flow needs them), to the rules feature, which starts /newrule.
 */
const newRulePresses = new WeakSet<BotContext>();

export async function askNewRule(ctx: MenuContext, next: () => Promise<void>): Promise<void> {
  await ctx.answerCallbackQuery();
  newRulePresses.add(ctx);
  await next();
}

/** Whether this update is a press of New rule (askNewRule). */
export function newRulePressed(ctx: BotContext): boolean {
  return newRulePresses.has(ctx);
}
