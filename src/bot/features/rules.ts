import { Composer, InlineKeyboard } from "grammy";
import { markKeyBroken } from "../../db/repos/credentials";
import { resolveRef } from "../../db/repos/callback-refs";
import { MarketplaceError, type AutomationRule, type MarketplaceClient } from "../../marketplace";
import type { BotContext } from "../context";
import { editInPlace } from "../edit-in-place";
import type { FlowRegistry } from "../flows";
import { describeMarketplaceError, replyMarketplaceError, userClient } from "../marketplace-access";
import type { CardKinds } from "./cards";
import { ruleCreationFeature } from "./rules-create";
import { cancelAskKeyboard, deliveriesKeyboard, deliveriesText, ruleCard, rulesPage, ruleStatus } from "./rules-view";
import type { MenuActions } from "./start";

const REF = "([A-Za-z0-9_-]{10})";
/** The list page the card was opened from, when it was opened from the list (see rules-view). */
const PAGE = "(?::(\\d{1,4}))?";

function pageOf(raw: string | undefined): number | undefined {
  return raw === undefined ? undefined : Number(raw);
}

async function edit(ctx: BotContext, text: string, keyboard: InlineKeyboard = new InlineKeyboard()): Promise<void> {
  await editInPlace(ctx, text, keyboard);
}

type Action = "pause" | "resume" | "cancel";

/** The state a rule must be in for the button pressed; anything else means it changed elsewhere. */
const ALLOWED: Record<Action, (status: string) => boolean> = {
  pause: (status) => ruleStatus(status) === "active",
  resume: (status) => ruleStatus(status) === "paused",
  cancel: (status) => ruleStatus(status) !== "cancelled",
};

const TOAST: Record<Action, string> = { pause: "rule-toast-paused", resume: "rule-toast-resumed", cancel: "rule-toast-cancelled" };

/**
 * /rules: the automation rules as an inline menu (callback data `rl:`; rule ids travel as short
 * refs). Each rule opens a card with Pause, Resume, Cancel rule (asks again), Deliveries and Back;
 * the card is edited in place with what the marketplace returned. Rule creation is in rules-create.
 */
export function rulesFeature(flows: FlowRegistry, menu: MenuActions, cards: CardKinds): Composer<BotContext> {
  const composer = new Composer<BotContext>();

  /** Every rule, or null after telling the user why not (a reply, the callback already answered). */
  async function listRules(ctx: BotContext, client: MarketplaceClient): Promise<AutomationRule[] | null> {
    try {
      return await client.listAutomations();
    } catch (error) {
      if (ctx.callbackQuery) await ctx.answerCallbackQuery().catch(() => undefined);
      await replyMarketplaceError(ctx, error, { read: true });
      return null;
    }
  }

  async function showRules(ctx: BotContext): Promise<void> {
    const client = await userClient(ctx);
    if (!client) return;
    const rules = await listRules(ctx, client);
    if (!rules) return;
    const view = await rulesPage(ctx, rules, 1);
    await ctx.reply(view.text, { parse_mode: "HTML", reply_markup: view.keyboard });
  }

  composer.command("rules", showRules);
  menu.rules = showRules;

  /** Resolves the ref and reads the rule list; answers the callback itself when it cannot go on. */
  async function load(ctx: BotContext, ref: string): Promise<{ client: MarketplaceClient; rules: AutomationRule[]; rule: AutomationRule | undefined } | null> {
    const ruleId = await resolveRef(ctx.deps.db, ctx.account.telegram_id, ref);
    if (!ruleId) {
      await ctx.answerCallbackQuery({ text: ctx.tr("button-expired") });
      return null;
    }
    const client = await userClient(ctx);
    if (!client) {
      await ctx.answerCallbackQuery().catch(() => undefined);
      return null;
    }
    const rules = await listRules(ctx, client);
    if (!rules) return null;
    return { client, rules, rule: rules.find((candidate) => candidate.id === ruleId) };
  }

  /** The rule is gone (404 or missing from the list): say so, in the toast and on the message, and show the list page it came from. */
  async function gone(ctx: BotContext, rules: AutomationRule[], page: number | undefined): Promise<void> {
    await ctx.answerCallbackQuery({ text: ctx.tr("rule-toast-not-found") });
    const view = await rulesPage(ctx, rules, page ?? 1, { note: ctx.tr("rule-toast-not-found") });
    await edit(ctx, view.text, view.keyboard);
  }

  composer.callbackQuery(/^rl:l:(\d{1,4})$/, async (ctx) => {
    const client = await userClient(ctx);
    if (!client) return void (await ctx.answerCallbackQuery());
    const rules = await listRules(ctx, client);
    if (!rules) return;
    await ctx.answerCallbackQuery();
    const view = await rulesPage(ctx, rules, Number(ctx.match[1]));
    await edit(ctx, view.text, view.keyboard);
  });

  // Back on cards sent before Back carried the page.
  composer.callbackQuery("rl:b", async (ctx) => {
    const client = await userClient(ctx);
    if (!client) return void (await ctx.answerCallbackQuery());
    const rules = await listRules(ctx, client);
    if (!rules) return;
    await ctx.answerCallbackQuery();
    const view = await rulesPage(ctx, rules, 1);
    await edit(ctx, view.text, view.keyboard);
  });

  composer.callbackQuery(new RegExp(`^rl:o:${REF}${PAGE}$`), async (ctx) => {
    const page = pageOf(ctx.match[2]);
    const loaded = await load(ctx, ctx.match[1]!);
    if (!loaded) return;
    if (!loaded.rule) return gone(ctx, loaded.rules, page);
    await ctx.answerCallbackQuery();
    const card = await ruleCard(ctx, loaded.rule, { page });
    await edit(ctx, card.text, card.keyboard);
  });

  // Cancel rule asks again: cancelling is final.
  composer.callbackQuery(new RegExp(`^rl:c:${REF}${PAGE}$`), async (ctx) => {
    const ref = ctx.match[1]!;
    const page = pageOf(ctx.match[2]);
    const loaded = await load(ctx, ref);
    if (!loaded) return;
    if (!loaded.rule) return gone(ctx, loaded.rules, page);
    if (!ALLOWED.cancel(loaded.rule.status)) {
      await ctx.answerCallbackQuery({ text: ctx.tr("rule-toast-changed") });
      const card = await ruleCard(ctx, loaded.rule, { page });
      return edit(ctx, card.text, card.keyboard);
    }
    await ctx.answerCallbackQuery();
    const card = await ruleCard(ctx, loaded.rule, { note: ctx.tr("rule-cancel-ask"), page });
    await edit(ctx, card.text, cancelAskKeyboard(ctx, ref, page));
  });

  /** Pause, resume or cancel: re-read the rule first; act only if it is still in the state the card showed. */
  async function act(ctx: BotContext, ref: string, page: number | undefined, action: Action): Promise<void> {
    const loaded = await load(ctx, ref);
    if (!loaded) return;
    const { client, rules, rule } = loaded;
    if (!rule) return gone(ctx, rules, page);
    if (!ALLOWED[action](rule.status)) {
      await ctx.answerCallbackQuery({ text: ctx.tr("rule-toast-changed") });
      const card = await ruleCard(ctx, rule, { page });
      return edit(ctx, card.text, card.keyboard);
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
      const described = describeMarketplaceError(ctx, error);
      const balance = error.kind === "insufficient_balance";
      const note = balance && action === "resume" ? ctx.tr("rule-resume-short") : described.text;
      await ctx.answerCallbackQuery({ text: ctx.tr("rule-toast-failed") });
      const card = await ruleCard(ctx, current, { note, topUp: balance, page });
      return edit(ctx, card.text, card.keyboard);
    }
    ctx.deps.logger.info({ userId: ctx.account.telegram_id, ruleId: rule.id, action, status: updated.status }, "rule updated");
    await ctx.answerCallbackQuery({ text: ctx.tr(TOAST[action]) });
    const card = await ruleCard(ctx, updated, { page });
    await edit(ctx, card.text, card.keyboard);
  }

  composer.callbackQuery(new RegExp(`^rl:p:${REF}${PAGE}$`), (ctx) => act(ctx, ctx.match[1]!, pageOf(ctx.match[2]), "pause"));
  // Also pressed on a pushed "rule paused" alert: the alert is edited into the rule card with the result.
  composer.callbackQuery(new RegExp(`^rl:r:${REF}${PAGE}$`), (ctx) => act(ctx, ctx.match[1]!, pageOf(ctx.match[2]), "resume"));
  composer.callbackQuery(new RegExp(`^rl:C:${REF}${PAGE}$`), (ctx) => act(ctx, ctx.match[1]!, pageOf(ctx.match[2]), "cancel"));

  composer.callbackQuery(new RegExp(`^rl:d:${REF}${PAGE}$`), async (ctx) => {
    const ref = ctx.match[1]!;
    const page = pageOf(ctx.match[2]);
    const loaded = await load(ctx, ref);
    if (!loaded) return;
    if (!loaded.rule) return gone(ctx, loaded.rules, page);
    let firings;
    try {
      firings = await loaded.client.automationFires(loaded.rule.id);
    } catch (error) {
      if (error instanceof MarketplaceError && error.kind === "not_found") return gone(ctx, loaded.rules.filter((rule) => rule.id !== loaded.rule!.id), page);
      await ctx.answerCallbackQuery().catch(() => undefined);
      return replyMarketplaceError(ctx, error, { read: true });
    }
    await ctx.answerCallbackQuery();
    await edit(ctx, deliveriesText(ctx, loaded.rule, firings.slice(0, 50)), deliveriesKeyboard(ctx, ref, page));
  });

  composer.use(ruleCreationFeature(flows, menu, cards));
  return composer;
}
