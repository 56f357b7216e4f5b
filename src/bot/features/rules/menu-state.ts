import type { Menu, MenuFlavor } from "@grammyjs/menu";
import type { Context } from "grammy";
import { resolveRef } from "#src/db/repos/callback-refs";
import { MarketplaceError, type AutomationRule, type MarketplaceClient } from "#src/marketplace/index";
import type { BotContext } from "#src/bot/context";
import { replyMarketplaceError, userClient } from "#src/bot/marketplace-access";
import { isDashboardPress } from "#src/bot/middleware/rate-limit";
import { ruleStatus } from "#src/marketplace/rule-words";
import { RULE_LIST_VIEW, RULE_VIEW } from "#src/chat/callback-data";

export type MenuContext = BotContext & MenuFlavor;

/** What a rule card shows: the rule as read, the list page it was opened from (0: elsewhere), whether Top up is offered. */
export interface RuleView {
  rule: AutomationRule;
  ref: string;
  page: number;
  topUp: boolean;
}

/** What a list page shows: every rule (the fingerprint covers them all) and the page. */
export interface ListView {
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

export type FoundRule = Extract<RuleLookup, { found: "rule" }>;

export type RuleAction = "pause" | "resume" | "cancel";

/** The menus of /rules (the list is the root; its middleware serves the others) and what they need. */
export interface RulesMenuSet {
  presses: RulePresses;
  list: Menu<BotContext>;
  rule: Menu<BotContext>;
  cancel: Menu<BotContext>;
  deliveries: Menu<BotContext>;
  showTopUp: (ctx: BotContext) => Promise<void>;
}

/**
 * A rule menu's payload: the rule's short reference, the list page (0 when opened elsewhere) and
 * "t" when the card offers Top up. Everything that shapes the keyboard is in the payload or in
 * the fingerprinted state, so a press finds the very button that was drawn.
 */
export function rulePayload(view: Pick<RuleView, "ref" | "page" | "topUp">): string {
  return RULE_VIEW.data(view);
}

/** The list page a list button was drawn on: a rule ("<ref>.<page>") or Prev/Next ("p.<page>", "n.<page>"). */
export function readListPayload(payload: string): { ref: string | null; page: number; turn: -1 | 0 | 1 } | null {
  return RULE_LIST_VIEW.parse(payload);
}

export function payloadOf(ctx: BotContext): string {
  return typeof ctx.match === "string" ? ctx.match : "";
}

/** A rule's fingerprint: what its card shows that the marketplace may change. */
function ruleFingerprint(rule: AutomationRule): string {
  return `rule:${ruleStatus(rule.status)}|${rule.updatedAt}`;
}

/** A list's fingerprint: which rules there are and in which state (their labels show it). */
function listFingerprint(rules: AutomationRule[]): string {
  return `list:${rules
    .map((rule) => `${rule.id}=${ruleStatus(rule.status)}`)
    .sort()
    .join(",")}`;
}

/** Every rule, or null after telling the user why not (in the chat, unless a dashboard redraw met a passing failure). */
async function readRules(ctx: BotContext, client: MarketplaceClient): Promise<AutomationRule[] | null> {
  try {
    return await client.listAutomations();
  } catch (error) {
    if (ctx.callbackQuery) await ctx.answerCallbackQuery().catch(() => undefined);
    // A redraw the dashboard asked for: the user was answered there, and the card updates at its next
    // tap; only a refused key (marked broken, alerts paused) is still said in the chat.
    const quiet =
      isDashboardPress(ctx) &&
      error instanceof MarketplaceError &&
      error.kind !== "unauthorized" &&
      error.kind !== "forbidden";
    if (!quiet) await replyMarketplaceError(ctx, error, { read: true });
    return null;
  }
}

/**
 * Per update: what is being drawn (set before a menu is sent or edited) and what a press found,
 * read from the marketplace once per update however many fingerprints and handlers ask.
 */
export class RulePresses {
  private readonly drawn = new WeakMap<Context, { list?: ListView; rule?: RuleView }>();
  private readonly lookups = new WeakMap<Context, Promise<RuleLookup>>();
  private readonly lists = new WeakMap<Context, Promise<{ rules: AutomationRule[] } | null>>();

  drawing(ctx: BotContext): { list?: ListView; rule?: RuleView } {
    let entry = this.drawn.get(ctx);
    if (!entry) this.drawn.set(ctx, (entry = {}));
    return entry;
  }

  lookup(ctx: BotContext, ref: string, page: number, topUp: boolean): Promise<RuleLookup> {
    let pending = this.lookups.get(ctx);
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
      this.lookups.set(ctx, pending);
    }
    return pending;
  }

  /** The rule a press on a rule menu is about, as it is now (drawn from it when the press matches). */
  async pressedRule(ctx: BotContext): Promise<RuleLookup | null> {
    const payload = RULE_VIEW.parse(payloadOf(ctx));
    return payload ? this.lookup(ctx, payload.ref, payload.page, payload.topUp) : null;
  }

  pressedList(ctx: BotContext): Promise<{ rules: AutomationRule[] } | null> {
    let pending = this.lists.get(ctx);
    if (!pending) {
      pending = (async () => {
        const client = await userClient(ctx);
        const rules = client ? await readRules(ctx, client) : null;
        return rules ? { rules } : null;
      })();
      this.lists.set(ctx, pending);
    }
    return pending;
  }

  /** The rule view being drawn: set by the handler, or at a press the rule as it is now. */
  async ruleShown(ctx: BotContext): Promise<RuleView | null> {
    const entry = this.drawing(ctx);
    if (entry.rule) return entry.rule;
    const found = await this.pressedRule(ctx);
    if (found?.found !== "rule") return null;
    entry.rule = found.view;
    return entry.rule;
  }

  async listShown(ctx: BotContext): Promise<ListView | null> {
    const entry = this.drawing(ctx);
    if (entry.list) return entry.list;
    const payload = readListPayload(payloadOf(ctx));
    const loaded = payload ? await this.pressedList(ctx) : null;
    if (!payload || !loaded) return null;
    entry.list = { rules: loaded.rules, page: payload.page };
    return entry.list;
  }

  async ruleMenuFingerprint(ctx: BotContext): Promise<string> {
    const view = await this.ruleShown(ctx);
    if (view) return ruleFingerprint(view.rule);
    return `none:${(await this.pressedRule(ctx))?.found ?? "malformed"}`;
  }

  async listMenuFingerprint(ctx: BotContext): Promise<string> {
    const view = await this.listShown(ctx);
    return view ? listFingerprint(view.rules) : "none";
  }
}
