import type { Menu } from "@grammyjs/menu";
import type { AutomationRule } from "#src/marketplace/index";
import type { BotContext } from "#src/bot/context";
import { editInPlace } from "#src/bot/edit-in-place";
import {
  readListPayload,
  payloadOf,
  type FoundRule,
  type MenuContext,
  type RuleLookup,
  type RulesMenuSet,
} from "./menu-state";
import { ruleCardText, ruleRef, rulesPage } from "./views";

/** Shows `rule` as a card (text and menu), for the message being sent or edited in this update. */
export async function ruleCard(
  menus: RulesMenuSet,
  ctx: BotContext,
  rule: AutomationRule,
  options: { topUp?: boolean; note?: string; page?: number } = {},
): Promise<{ text: string; keyboard: Menu<BotContext> }> {
  menus.presses.drawing(ctx).rule = {
    rule,
    ref: await ruleRef(ctx, rule.id),
    page: options.page ?? 0,
    topUp: options.topUp ?? false,
  };
  return { text: ruleCardText(ctx, rule) + (options.note ? `\n\n${options.note}` : ""), keyboard: menus.rule };
}

/** The list page `page`, for the message being sent or edited in this update. */
export async function listPage(
  menus: RulesMenuSet,
  ctx: BotContext,
  rules: AutomationRule[],
  page: number,
  note?: string,
): Promise<{ text: string; keyboard: Menu<BotContext> }> {
  const shown = await rulesPage(ctx, rules, page, note ? { note } : {});
  menus.presses.drawing(ctx).list = { rules, page: shown.page, ...(note ? { note } : {}) };
  return { text: shown.text, keyboard: menus.list };
}

/** Edits the pressed message into the list page `page`. */
export async function showListPage(
  menus: RulesMenuSet,
  ctx: BotContext,
  rules: AutomationRule[],
  page: number,
  note?: string,
): Promise<void> {
  const shown = await listPage(menus, ctx, rules, page, note);
  await editInPlace(ctx, shown.text, shown.keyboard);
}

export async function showRuleCard(
  menus: RulesMenuSet,
  ctx: BotContext,
  rule: AutomationRule,
  options: { topUp?: boolean; note?: string; page?: number } = {},
): Promise<void> {
  const card = await ruleCard(menus, ctx, rule, options);
  await editInPlace(ctx, card.text, card.keyboard);
}

/** The rule is gone: say so and show the list page it came from. */
export async function gone(menus: RulesMenuSet, ctx: BotContext, rules: AutomationRule[], page: number): Promise<void> {
  await ctx.answerCallbackQuery({ text: ctx.tr("rule-toast-not-found") });
  await showListPage(menus, ctx, rules, page || 1, ctx.tr("rule-toast-not-found"));
}

/** A press whose rule cannot be shown as it is: the toast that says why. True when it was answered so. */
export async function unusable(menus: RulesMenuSet, ctx: BotContext, found: RuleLookup | null): Promise<boolean> {
  if (found === null || found.found === "expired") {
    await ctx.answerCallbackQuery({ text: ctx.tr("button-expired") });
    return true;
  }
  if (found.found === "unavailable") {
    await ctx.answerCallbackQuery().catch(() => undefined);
    return true;
  }
  if (found.found === "gone") {
    await gone(menus, ctx, found.rules, found.page);
    return true;
  }
  return false;
}

/** A press on a card drawn from an older state: nothing is done; the card is drawn as the rule is now. */
export async function ruleOutdated(menus: RulesMenuSet, ctx: MenuContext): Promise<void> {
  const found = await menus.presses.pressedRule(ctx);
  if (await unusable(menus, ctx, found)) return;
  const { view } = found as FoundRule;
  await ctx.answerCallbackQuery({ text: ctx.tr("rule-toast-changed") });
  await showRuleCard(menus, ctx, view.rule, { page: view.page });
}

/** A press on a list page drawn from an older list: nothing is done; the page is drawn as the list is now. */
export async function listOutdated(menus: RulesMenuSet, ctx: MenuContext): Promise<void> {
  const payload = readListPayload(payloadOf(ctx));
  const loaded = payload ? await menus.presses.pressedList(ctx) : null;
  if (!payload) {
    await ctx.answerCallbackQuery({ text: ctx.tr("button-expired") });
    return;
  }
  if (!loaded) {
    await ctx.answerCallbackQuery().catch(() => undefined);
    return;
  }
  await ctx.answerCallbackQuery({ text: ctx.tr("rules-toast-changed") });
  await showListPage(menus, ctx, loaded.rules, payload.page);
}
