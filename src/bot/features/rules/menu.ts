import { Menu, type MenuFlavor } from "@grammyjs/menu";
import type { Context } from "grammy";
import { MENU_IDS } from "../../../chat/callback-data";
import { resolveRef } from "../../../db/repos/callback-refs";
import { markKeyBroken } from "../../../db/repos/credentials";
import { markInMotion, requestRuleCheck } from "../../../db/repos/poll-schedule";
import { MarketplaceError, type AutomationRule, type MarketplaceClient } from "../../../marketplace";
import type { BotContext } from "../../context";
import { editInPlace } from "../../edit-in-place";
import { describeMarketplaceError, replyMarketplaceError, userClient } from "../../marketplace-access";
import { deliveriesText, ruleCardText, ruleRef, rulesPage } from "./views";
import { ruleStatus } from "../../../marketplace/rule-words";

type MenuContext = BotContext & MenuFlavor;

/** What a rule card shows: the rule as read, the list page it was opened from (0: elsewhere), whether Top up is offered. */
export interface RuleView {
  rule: AutomationRule;
  ref: string;
  page: number;
  topUp: boolean;
}

/** What a list page shows: every rule (the fingerprint covers them all) and the page. */
interface ListView {
  rules: AutomationRule[];
  page: number;
  note?: string;
}

/** What a press on a rule's button found when it read the rule list again. */
export type RuleLookup =
  | { found: "expired" }
  | { found: "unavailable" }
  | { found: "gone"; rules: AutomationRule[]; page: number }
  | { found: "rule"; view: RuleView; rules: AutomationRule[]; client: MarketplaceClient };

type Action = "pause" | "resume" | "cancel";

/** The state a rule must be in for the button pressed; anything else means it changed elsewhere. */
const ALLOWED: Record<Action, (status: string) => boolean> = {
  pause: (status) => ruleStatus(status) === "active",
  resume: (status) => ruleStatus(status) === "paused",
  cancel: (status) => ruleStatus(status) !== "cancelled",
};

const TOAST: Record<Action, string> = { pause: "rule-toast-paused", resume: "rule-toast-resumed", cancel: "rule-toast-cancelled" };

/**
 * A rule menu's payload: the rule's short reference, the list page (0 when opened elsewhere) and
 * "t" when the card offers Top up. Everything that shapes the keyboard is in the payload or in
 * the fingerprinted state, so a press finds the very button that was drawn.
 */
function rulePayload(view: Pick<RuleView, "ref" | "page" | "topUp">): string {
  return `${view.ref}.${view.page}${view.topUp ? ".t" : ""}`;
}

function readRulePayload(payload: string): { ref: string; page: number; topUp: boolean } | null {
  const match = /^([A-Za-z0-9_-]{10})\.(\d{1,4})(\.t)?$/.exec(payload);
  return match ? { ref: match[1]!, page: Number(match[2]), topUp: match[3] !== undefined } : null;
}

/** The list page a list button was drawn on: a rule ("<ref>.<page>") or Prev/Next ("p.<page>", "n.<page>"). */
function readListPayload(payload: string): { ref: string | null; page: number; turn: -1 | 0 | 1 } | null {
  const match = /^(?:([A-Za-z0-9_-]{10})|([pn]))\.(\d{1,4})$/.exec(payload);
  if (!match) return null;
  return { ref: match[1] ?? null, page: Number(match[3]), turn: match[2] === "p" ? -1 : match[2] === "n" ? 1 : 0 };
}

function payloadOf(ctx: BotContext): string {
  return typeof ctx.match === "string" ? ctx.match : "";
}

/** A rule's fingerprint: what its card shows that the marketplace may change. */
function ruleFingerprint(rule: AutomationRule): string {
  return `rule:${ruleStatus(rule.status)}|${rule.updatedAt}`;
}

/** A list's fingerprint: which rules there are and in which state (their labels show it). */
function listFingerprint(rules: AutomationRule[]): string {
  return `list:${rules.map((rule) => `${rule.id}=${ruleStatus(rule.status)}`).sort().join(",")}`;
}

/** The menus of /rules: the list, the rule card, "cancel this rule?", the deliveries. */
export interface RulesMenus {
  /** The root: install it (its middleware serves every menu below). */
  list: Menu<BotContext>;
  /** Shows `rule` as a card (text and menu), for the message being sent or edited in this update. */
  ruleCard(ctx: BotContext, rule: AutomationRule, options?: { topUp?: boolean; note?: string; page?: number }): Promise<{ text: string; keyboard: Menu<BotContext> }>;
  /** The list page `page`, for the message being sent or edited in this update. */
  listPage(ctx: BotContext, rules: AutomationRule[], page: number, note?: string): Promise<{ text: string; keyboard: Menu<BotContext> }>;
  /** Reads the rule behind a reference and the list it is in (once per update). */
  lookup(ctx: BotContext, ref: string, page: number, topUp: boolean): Promise<RuleLookup>;
  /** Pause, resume or cancel a rule found by `lookup`, then show its card with the result. */
  act(ctx: BotContext, lookup: Extract<RuleLookup, { found: "rule" }>, action: Action): Promise<void>;
  /** The rule is gone: say so and show the list page it came from. */
  gone(ctx: BotContext, rules: AutomationRule[], page: number): Promise<void>;
}

/**
 * /rules on @grammyjs/menu. Each menu's fingerprint is the state it shows (a rule's status and
 * `updatedAt`; the list's rules and their states), read again from the marketplace on every
 * press: a press on an outdated menu acts on nothing and redraws it as it is now.
 */
export function rulesMenus(showTopUp: (ctx: BotContext) => Promise<void>): RulesMenus {
  /** Per update: what is being drawn (set before a menu is sent or edited) and what a press found. */
  const drawn = new WeakMap<Context, { list?: ListView; rule?: RuleView }>();
  const lookups = new WeakMap<Context, Promise<RuleLookup>>();
  const lists = new WeakMap<Context, Promise<{ rules: AutomationRule[] } | null>>();

  function drawing(ctx: BotContext): { list?: ListView; rule?: RuleView } {
    let entry = drawn.get(ctx);
    if (!entry) drawn.set(ctx, (entry = {}));
    return entry;
  }

  /** Every rule, or null after telling the user why not. */
  async function readRules(ctx: BotContext, client: MarketplaceClient): Promise<AutomationRule[] | null> {
    try {
      return await client.listAutomations();
    } catch (error) {
      if (ctx.callbackQuery) await ctx.answerCallbackQuery().catch(() => undefined);
      await replyMarketplaceError(ctx, error, { read: true });
      return null;
    }
  }

  function lookup(ctx: BotContext, ref: string, page: number, topUp: boolean): Promise<RuleLookup> {
    let pending = lookups.get(ctx);
    if (!pending) {
      pending = (async (): Promise<RuleLookup> => {
        const ruleId = await resolveRef(ctx.deps.db, ctx.account.telegram_id, ref);
        if (!ruleId) return { found: "expired" };
        const client = await userClient(ctx);
        if (!client) return { found: "unavailable" };
        const rules = await readRules(ctx, client);
        if (!rules) return { found: "unavailable" };
        const rule = rules.find((candidate) => candidate.id === ruleId);
        if (!rule) return { found: "gone", rules, page };
        return { found: "rule", view: { rule, ref, page, topUp }, rules, client };
      })();
      lookups.set(ctx, pending);
    }
    return pending;
  }

  /** The rule a press on a rule menu is about, as it is now (drawn from it when the press matches). */
  async function pressedRule(ctx: BotContext): Promise<RuleLookup | null> {
    const payload = readRulePayload(payloadOf(ctx));
    return payload ? lookup(ctx, payload.ref, payload.page, payload.topUp) : null;
  }

  function pressedList(ctx: BotContext): Promise<{ rules: AutomationRule[] } | null> {
    let pending = lists.get(ctx);
    if (!pending) {
      pending = (async () => {
        const client = await userClient(ctx);
        const rules = client ? await readRules(ctx, client) : null;
        return rules ? { rules } : null;
      })();
      lists.set(ctx, pending);
    }
    return pending;
  }

  /** The rule view being drawn: set by the handler, or at a press the rule as it is now. */
  async function ruleShown(ctx: BotContext): Promise<RuleView | null> {
    const entry = drawing(ctx);
    if (entry.rule) return entry.rule;
    const found = await pressedRule(ctx);
    if (found?.found !== "rule") return null;
    entry.rule = found.view;
    return entry.rule;
  }

  async function listShown(ctx: BotContext): Promise<ListView | null> {
    const entry = drawing(ctx);
    if (entry.list) return entry.list;
    const payload = readListPayload(payloadOf(ctx));
    const loaded = payload ? await pressedList(ctx) : null;
    if (!payload || !loaded) return null;
    entry.list = { rules: loaded.rules, page: payload.page };
    return entry.list;
  }

  async function ruleMenuFingerprint(ctx: BotContext): Promise<string> {
    const view = await ruleShown(ctx);
    if (view) return ruleFingerprint(view.rule);
    return `none:${(await pressedRule(ctx))?.found ?? "malformed"}`;
  }

  async function listMenuFingerprint(ctx: BotContext): Promise<string> {
    const view = await listShown(ctx);
    return view ? listFingerprint(view.rules) : "none";
  }

  const outdated = { onMenuOutdated: (ctx: MenuContext) => ruleOutdated(ctx) };
  const list = new Menu<BotContext>(MENU_IDS.rules, { autoAnswer: false, fingerprint: listMenuFingerprint, onMenuOutdated: (ctx) => listOutdated(ctx) });
  const ruleMenu = new Menu<BotContext>(MENU_IDS.rule, { autoAnswer: false, fingerprint: ruleMenuFingerprint, ...outdated });
  const cancelMenu = new Menu<BotContext>(MENU_IDS.ruleCancel, { autoAnswer: false, fingerprint: ruleMenuFingerprint, ...outdated });
  // One Back button and nothing to act on: it always opens the card as the rule is now.
  const deliveriesMenu = new Menu<BotContext>(MENU_IDS.ruleDeliveries, { autoAnswer: false, ...outdated });

  list.dynamic(async (ctx, range) => {
    const view = await listShown(ctx);
    if (!view) return;
    const page = await rulesPage(ctx, view.rules, view.page);
    for (const entry of page.entries) range.text({ text: entry.label, payload: `${entry.ref}.${page.page}` }, (pressed) => openRule(pressed, entry.ref, page.page)).row();
    if (page.page > 1) range.text({ text: ctx.tr("button-prev"), payload: `p.${page.page}` }, (pressed) => turnPage(pressed, page.page - 1));
    if (page.page < page.pages) range.text({ text: ctx.tr("button-next"), payload: `n.${page.page}` }, (pressed) => turnPage(pressed, page.page + 1));
  });

  ruleMenu.dynamic(async (ctx, range) => {
    const view = await ruleShown(ctx);
    if (!view) return;
    const payload = rulePayload(view);
    const status = ruleStatus(view.rule.status);
    if (view.topUp) range.text({ text: ctx.tr("button-topup"), payload }, topUp).row();
    if (status === "active") range.text({ text: ctx.tr("button-pause"), payload }, (pressed) => pressAction(pressed, "pause"));
    if (status === "paused") range.text({ text: ctx.tr("button-resume"), payload }, (pressed) => pressAction(pressed, "resume"));
    if (status !== "cancelled") range.text({ text: ctx.tr("button-cancel-rule"), payload }, askCancel).row();
    range.text({ text: ctx.tr("button-deliveries"), payload }, deliveries).text({ text: ctx.tr("button-back"), payload: `${view.ref}.${view.page}` }, backToList);
  });

  cancelMenu.dynamic(async (ctx, range) => {
    const view = await ruleShown(ctx);
    if (!view) return;
    const payload = rulePayload({ ...view, topUp: false });
    range.text({ text: ctx.tr("button-confirm"), payload }, (pressed) => pressAction(pressed, "cancel")).text({ text: ctx.tr("button-back"), payload }, showCard);
  });

  deliveriesMenu.dynamic(async (ctx, range) => {
    const entry = drawing(ctx);
    const payload = entry.rule ? rulePayload({ ...entry.rule, topUp: false }) : payloadOf(ctx);
    range.text({ text: ctx.tr("button-back"), payload }, showCard);
  });

  list.register([ruleMenu, cancelMenu, deliveriesMenu]);

  async function ruleCard(ctx: BotContext, rule: AutomationRule, options: { topUp?: boolean; note?: string; page?: number } = {}): Promise<{ text: string; keyboard: Menu<BotContext> }> {
    drawing(ctx).rule = { rule, ref: await ruleRef(ctx, rule.id), page: options.page ?? 0, topUp: options.topUp ?? false };
    return { text: ruleCardText(ctx, rule) + (options.note ? `\n\n${options.note}` : ""), keyboard: ruleMenu };
  }

  async function listPage(ctx: BotContext, rules: AutomationRule[], page: number, note?: string): Promise<{ text: string; keyboard: Menu<BotContext> }> {
    const shown = await rulesPage(ctx, rules, page, note ? { note } : {});
    drawing(ctx).list = { rules, page: shown.page, ...(note ? { note } : {}) };
    return { text: shown.text, keyboard: list };
  }

  async function showRuleCard(ctx: BotContext, rule: AutomationRule, options: { topUp?: boolean; note?: string; page?: number } = {}): Promise<void> {
    const card = await ruleCard(ctx, rule, options);
    await editInPlace(ctx, card.text, card.keyboard);
  }

  async function gone(ctx: BotContext, rules: AutomationRule[], page: number): Promise<void> {
    await ctx.answerCallbackQuery({ text: ctx.tr("rule-toast-not-found") });
    const shown = await listPage(ctx, rules, page || 1, ctx.tr("rule-toast-not-found"));
    await editInPlace(ctx, shown.text, shown.keyboard);
  }

  /** A press whose rule cannot be shown as it is: the toast that says why. True when it was answered so. */
  async function unusable(ctx: BotContext, found: RuleLookup | null): Promise<boolean> {
    if (found === null || found.found === "expired") {
      await ctx.answerCallbackQuery({ text: ctx.tr("button-expired") });
      return true;
    }
    if (found.found === "unavailable") {
      await ctx.answerCallbackQuery().catch(() => undefined);
      return true;
    }
    if (found.found === "gone") {
      await gone(ctx, found.rules, found.page);
      return true;
    }
    return false;
  }

  /** A press on a card drawn from an older state: nothing is done; the card is drawn as the rule is now. */
  async function ruleOutdated(ctx: MenuContext): Promise<void> {
    const found = await pressedRule(ctx);
    if (await unusable(ctx, found)) return;
    const { view } = found as Extract<RuleLookup, { found: "rule" }>;
    await ctx.answerCallbackQuery({ text: ctx.tr("rule-toast-changed") });
    await showRuleCard(ctx, view.rule, { page: view.page });
  }

  async function listOutdated(ctx: MenuContext): Promise<void> {
    const payload = readListPayload(payloadOf(ctx));
    const loaded = payload ? await pressedList(ctx) : null;
    if (!payload) {
      await ctx.answerCallbackQuery({ text: ctx.tr("button-expired") });
      return;
    }
    if (!loaded) {
      await ctx.answerCallbackQuery().catch(() => undefined);
      return;
    }
    await ctx.answerCallbackQuery({ text: ctx.tr("rules-toast-changed") });
    const shown = await listPage(ctx, loaded.rules, payload.page);
    await editInPlace(ctx, shown.text, shown.keyboard);
  }

  async function openRule(ctx: MenuContext, ref: string, page: number): Promise<void> {
    const loaded = await pressedList(ctx);
    if (!loaded) return;
    const ruleId = await resolveRef(ctx.deps.db, ctx.account.telegram_id, ref);
    const rule = ruleId ? loaded.rules.find((candidate) => candidate.id === ruleId) : undefined;
    if (!rule) return gone(ctx, loaded.rules, page);
    await ctx.answerCallbackQuery();
    await showRuleCard(ctx, rule, { page });
  }

  async function turnPage(ctx: MenuContext, page: number): Promise<void> {
    const loaded = await pressedList(ctx);
    if (!loaded) return;
    await ctx.answerCallbackQuery();
    const shown = await listPage(ctx, loaded.rules, page);
    await editInPlace(ctx, shown.text, shown.keyboard);
  }

  async function pressAction(ctx: MenuContext, action: Action): Promise<void> {
    const found = await pressedRule(ctx);
    if (await unusable(ctx, found)) return;
    await act(ctx, found as Extract<RuleLookup, { found: "rule" }>, action);
  }

  async function act(ctx: BotContext, found: Extract<RuleLookup, { found: "rule" }>, action: Action): Promise<void> {
    const { client, rules } = found;
    const { rule, page } = found.view;
    if (!ALLOWED[action](rule.status)) {
      await ctx.answerCallbackQuery({ text: ctx.tr("rule-toast-changed") });
      return showRuleCard(ctx, rule, { page });
    }
    let updated: AutomationRule;
    try {
      updated = action === "pause" ? await client.pauseAutomation(rule.id) : action === "resume" ? await client.resumeAutomation(rule.id) : await client.cancelAutomation(rule.id);
    } catch (error) {
      if (!(error instanceof MarketplaceError)) throw error;
      ctx.deps.logger.info({ userId: ctx.account.telegram_id, ruleId: rule.id, action, kind: error.kind, status: error.status }, "rule action refused");
      if (error.kind === "not_found") {
        // The marketplace just said the rule does not exist for this key: do not list it, whatever a list read says.
        const fresh = (await client.listAutomations().catch(() => null)) ?? rules;
        return gone(ctx, fresh.filter((candidate) => candidate.id !== rule.id), page);
      }
      if (error.kind === "unauthorized") await markKeyBroken(ctx.deps.db, ctx.account.telegram_id, ctx.deps.now());
      // Show the rule as it is now, with what went wrong under it.
      const current = (await client.listAutomations().catch(() => null))?.find((candidate) => candidate.id === rule.id) ?? rule;
      // Pause, Resume and Cancel are writes: a 403 is about the action, not the key.
      const described = describeMarketplaceError(ctx, error, false);
      const balance = error.kind === "insufficient_balance";
      const note = balance && action === "resume" ? ctx.tr("rule-resume-short") : described.text;
      await ctx.answerCallbackQuery({ text: ctx.tr("rule-toast-failed") });
      return showRuleCard(ctx, current, { note, topUp: balance, page });
    }
    ctx.deps.logger.info({ userId: ctx.account.telegram_id, ruleId: rule.id, action, status: updated.status }, "rule updated");
    await (action === "resume" ? markInMotion(ctx.deps.db, ctx.account.telegram_id, "rule", ctx.deps.now()) : requestRuleCheck(ctx.deps.db, ctx.account.telegram_id));
    await ctx.answerCallbackQuery({ text: ctx.tr(TOAST[action]) });
    await showRuleCard(ctx, updated, { page });
  }

  async function askCancel(ctx: MenuContext): Promise<void> {
    const found = await pressedRule(ctx);
    if (await unusable(ctx, found)) return;
    const { view } = found as Extract<RuleLookup, { found: "rule" }>;
    if (!ALLOWED.cancel(view.rule.status)) {
      await ctx.answerCallbackQuery({ text: ctx.tr("rule-toast-changed") });
      return showRuleCard(ctx, view.rule, { page: view.page });
    }
    await ctx.answerCallbackQuery();
    drawing(ctx).rule = { ...view, topUp: false };
    await editInPlace(ctx, `${ruleCardText(ctx, view.rule)}\n\n${ctx.tr("rule-cancel-ask")}`, cancelMenu);
  }

  async function deliveries(ctx: MenuContext): Promise<void> {
    const found = await pressedRule(ctx);
    if (await unusable(ctx, found)) return;
    const { view, client, rules } = found as Extract<RuleLookup, { found: "rule" }>;
    let firings;
    try {
      firings = await client.automationFires(view.rule.id);
    } catch (error) {
      if (error instanceof MarketplaceError && error.kind === "not_found") return gone(ctx, rules.filter((rule) => rule.id !== view.rule.id), view.page);
      await ctx.answerCallbackQuery().catch(() => undefined);
      return replyMarketplaceError(ctx, error, { read: true });
    }
    await ctx.answerCallbackQuery();
    drawing(ctx).rule = { ...view, topUp: false };
    await editInPlace(ctx, deliveriesText(ctx, view.rule, firings.slice(0, 50)), deliveriesMenu);
  }

  async function showCard(ctx: MenuContext): Promise<void> {
    const found = await pressedRule(ctx);
    if (await unusable(ctx, found)) return;
    const { view } = found as Extract<RuleLookup, { found: "rule" }>;
    await ctx.answerCallbackQuery();
    await showRuleCard(ctx, view.rule, { page: view.page });
  }

  async function backToList(ctx: MenuContext): Promise<void> {
    const found = await pressedRule(ctx);
    if (found === null || found.found === "expired" || found.found === "unavailable") {
      await unusable(ctx, found);
      return;
    }
    await ctx.answerCallbackQuery();
    const page = found.found === "rule" ? found.view.page : found.page;
    const shown = await listPage(ctx, found.rules, page || 1);
    await editInPlace(ctx, shown.text, shown.keyboard);
  }

  async function topUp(ctx: MenuContext): Promise<void> {
    await ctx.answerCallbackQuery();
    await showTopUp(ctx);
  }

  return { list, ruleCard, listPage, lookup, act, gone };
}
