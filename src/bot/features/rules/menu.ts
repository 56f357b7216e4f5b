import { Menu } from "@grammyjs/menu";
import { MENU_IDS, RULE_LIST_VIEW } from "#src/chat/callback-data";
import type { AutomationRule } from "#src/marketplace/index";
import type { BotContext } from "#src/bot/context";
import { ruleStatus } from "#src/marketplace/rule-words";
import { gone, listOutdated, listPage, ruleCard, ruleOutdated } from "./menu-display";
import {
  act,
  askCancel,
  backToList,
  deliveries,
  openRule,
  pressAction,
  showCard,
  askNewRule,
  topUp,
  turnPage,
} from "./menu-presses";
import {
  payloadOf,
  rulePayload,
  RulePresses,
  type MenuContext,
  type RuleAction,
  type RuleLookup,
  type RulesMenuSet,
} from "./menu-state";
import { rulesPage } from "./views";

/** The menus of /rules: the list, the rule card, "cancel this rule?", the deliveries. */
export interface RulesMenus {
  /** The root: install it (its middleware serves every menu below). */
  list: Menu<BotContext>;
  /** Shows `rule` as a card (text and menu), for the message being sent or edited in this update. */
  ruleCard(
    ctx: BotContext,
    rule: AutomationRule,
    options?: { topUp?: boolean; note?: string; page?: number },
  ): Promise<{ text: string; keyboard: Menu<BotContext> }>;
  /** The list page `page`, for the message being sent or edited in this update. */
  listPage(
    ctx: BotContext,
    rules: AutomationRule[],
    page: number,
    note?: string,
  ): Promise<{ text: string; keyboard: Menu<BotContext> }>;
  /** Reads the rule behind a reference and the list it is in (once per update). */
  lookup(ctx: BotContext, ref: string, page: number, topUp: boolean): Promise<RuleLookup>;
  /** Pause, resume or cancel a rule found by `lookup`, then show its card with the result. */
  act(ctx: BotContext, lookup: Extract<RuleLookup, { found: "rule" }>, action: RuleAction): Promise<void>;
  /** The rule is gone: say so and show the list page it came from. */
  gone(ctx: BotContext, rules: AutomationRule[], page: number): Promise<void>;
}

/**
 * /rules on @grammyjs/menu. Each menu's fingerprint is the state it shows (a rule's status and
 * `updatedAt`; the list's rules and their states), read again from the marketplace on every
 * press: a press on an outdated menu acts on nothing and redraws it as it is now.
 */
export function rulesMenus(showTopUp: (ctx: BotContext) => Promise<void>): RulesMenus {
  const presses = new RulePresses();
  const outdated = { onMenuOutdated: (ctx: MenuContext) => ruleOutdated(menus, ctx) };
  const ruleFingerprint = (ctx: BotContext) => presses.ruleMenuFingerprint(ctx);
  const menus: RulesMenuSet = {
    presses,
    showTopUp,
    list: new Menu<BotContext>(MENU_IDS.rules, {
      autoAnswer: false,
      fingerprint: (ctx) => presses.listMenuFingerprint(ctx),
      onMenuOutdated: (ctx) => listOutdated(menus, ctx),
    }),
    rule: new Menu<BotContext>(MENU_IDS.rule, { autoAnswer: false, fingerprint: ruleFingerprint, ...outdated }),
    cancel: new Menu<BotContext>(MENU_IDS.ruleCancel, { autoAnswer: false, fingerprint: ruleFingerprint, ...outdated }),
    // One Back button and nothing to act on: it always opens the card as the rule is now.
    deliveries: new Menu<BotContext>(MENU_IDS.ruleDeliveries, { autoAnswer: false, ...outdated }),
  };
  drawListMenu(menus);
  drawRuleMenu(menus);
  drawCancelMenu(menus);
  drawDeliveriesMenu(menus);
  menus.list.register([menus.rule, menus.cancel, menus.deliveries]);
  return {
    list: menus.list,
    ruleCard: (ctx, rule, options) => ruleCard(menus, ctx, rule, options),
    listPage: (ctx, rules, page, note) => listPage(menus, ctx, rules, page, note),
    lookup: (ctx, ref, page, topUpOffered) => presses.lookup(ctx, ref, page, topUpOffered),
    act: (ctx, found, action) => act(menus, ctx, found, action),
    gone: (ctx, rules, page) => gone(menus, ctx, rules, page),
  };
}

/** A list page: a button per rule on it, then Prev and Next, then New rule. */
function drawListMenu(menus: RulesMenuSet): void {
  menus.list.dynamic(async (ctx, range) => {
    const view = await menus.presses.listShown(ctx);
    if (!view) return;
    const page = await rulesPage(ctx, view.rules, view.page);
    for (const entry of page.entries)
      range
        .text({ text: entry.label, payload: RULE_LIST_VIEW.data({ ref: entry.ref, page: page.page }) }, (pressed) =>
          openRule(menus, pressed, entry.ref, page.page),
        )
        .row();
    if (page.page > 1)
      range.text(
        { text: ctx.tr("button-prev"), payload: RULE_LIST_VIEW.data({ turn: -1, page: page.page }) },
        (pressed) => turnPage(menus, pressed, page.page - 1),
      );
    if (page.page < page.pages)
      range.text(
        { text: ctx.tr("button-next"), payload: RULE_LIST_VIEW.data({ turn: 1, page: page.page }) },
        (pressed) => turnPage(menus, pressed, page.page + 1),
      );
    range
      .row()
      .text(
        { text: ctx.tr("button-new-rule"), payload: RULE_LIST_VIEW.data({ add: true, page: page.page }) },
        (pressed, next) => askNewRule(pressed, next),
      );
  });
}

/** A rule card: Top up when offered, Pause or Resume, Cancel, Deliveries and Back. */
function drawRuleMenu(menus: RulesMenuSet): void {
  menus.rule.dynamic(async (ctx, range) => {
    const view = await menus.presses.ruleShown(ctx);
    if (!view) return;
    const payload = rulePayload(view);
    const status = ruleStatus(view.rule.status);
    if (view.topUp) range.text({ text: ctx.tr("button-topup"), payload }, (pressed) => topUp(menus, pressed)).row();
    if (status === "active")
      range.text({ text: ctx.tr("button-pause"), payload }, (pressed) => pressAction(menus, pressed, "pause"));
    if (status === "paused")
      range.text({ text: ctx.tr("button-resume"), payload }, (pressed) => pressAction(menus, pressed, "resume"));
    if (status !== "cancelled")
      range
        .text({ text: ctx.tr("button-cancel-rule"), payload }, (pressed) => askCancel(menus, pressed))
        .danger()
        .row();
    range
      .text({ text: ctx.tr("button-deliveries"), payload }, (pressed) => deliveries(menus, pressed))
      .text(
        { text: ctx.tr("button-back"), payload: RULE_LIST_VIEW.data({ ref: view.ref, page: view.page }) },
        (pressed) => backToList(menus, pressed),
      );
  });
}

/** "Cancel this rule?": Confirm and Back. */
function drawCancelMenu(menus: RulesMenuSet): void {
  menus.cancel.dynamic(async (ctx, range) => {
    const view = await menus.presses.ruleShown(ctx);
    if (!view) return;
    const payload = rulePayload({ ...view, topUp: false });
    range
      .text({ text: ctx.tr("button-confirm"), payload }, (pressed) => pressAction(menus, pressed, "cancel"))
      .danger()
      .text({ text: ctx.tr("button-back"), payload }, (pressed) => showCard(menus, pressed));
  });
}

/** The deliveries: Back to the card. */
function drawDeliveriesMenu(menus: RulesMenuSet): void {
  menus.deliveries.dynamic(async (ctx, range) => {
    const entry = menus.presses.drawing(ctx);
    const payload = entry.rule ? rulePayload({ ...entry.rule, topUp: false }) : payloadOf(ctx);
    range.text({ text: ctx.tr("button-back"), payload }, (pressed) => showCard(menus, pressed));
  });
}
