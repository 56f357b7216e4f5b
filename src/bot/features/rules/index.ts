import type { Composer } from "grammy";
import { FlatComposer } from "#src/bot/middleware/flat-composer";
import { RULE_RESUME } from "#src/chat/callback-data";
import type { BotContext } from "#src/bot/context";
import { editInPlace } from "#src/bot/edit-in-place";
import { endFlow, withFlowEnded } from "#src/bot/flows";
import { enterFlow } from "#src/bot/guided/install";
import { replyMarketplaceError, userClient } from "#src/bot/marketplace-access";
import { badAddressArgument } from "../addresses";
import type { CardKinds } from "../cards";
import type { MenuActions } from "#src/bot/context";
import { ruleCardFeature, sendRuleCard } from "./card";
import { automationOptions, draftFromArguments, FIELDS, nextStep, type RuleDraft } from "./draft";
import type { RulesMenus } from "./menu";
import { newRulePressed } from "./menu-presses";
import { ruleStatus, type RuleKind } from "#src/marketplace/rule-words";
import { activeRules, runwayLine } from "#src/reports/runway";
import { runwayOf } from "../wallet";

export { ruleConversation } from "./conversation";
export { rulesMenus, type RulesMenus } from "./menu";

/**
 * Automation rules: /rules as menus (list, rule card, "cancel this rule?", deliveries; installed
 * by the bot before every feature, since others send them too), the
 * Resume button of a pushed "rule paused" alert, and creating rules: /refill, /renewal and /smart
 * on one line, or guided (as /newrule is), each ending in a confirmation card.
 */
export function rulesFeature(menu: MenuActions, cards: CardKinds, menus: RulesMenus): Composer<BotContext> {
  const composer = new FlatComposer<BotContext>();

  async function showRules(ctx: BotContext): Promise<void> {
    const client = await userClient(ctx);
    if (!client) return;
    let rules;
    try {
      rules = await client.listAutomations();
    } catch (error) {
      return replyMarketplaceError(ctx, error, { read: true });
    }
    // The runway above the list, when an active rule has delivered in the last 7 days.
    const balance = activeRules(rules).length > 0 ? await client.balance().catch(() => null) : null;
    const runway = await runwayOf(ctx, client, rules, balance?.trx ?? null);
    const page = await menus.listPage(ctx, rules, 1, runway ? runwayLine(ctx.tr, ctx.lang, runway) : undefined);
    await ctx.reply(page.text, { parse_mode: "HTML", reply_markup: page.keyboard });
  }

  composer.command("rules", showRules);
  menu.register("rules", showRules);

  // Resume on a pushed "rule paused" alert (plain data: alerts are sent without a context). The
  // alert is edited into the rule's card with the result.
  composer.callbackQuery(RULE_RESUME.pattern, async (ctx) => {
    const found = await menus.lookup(ctx, RULE_RESUME.parse(ctx.callbackQuery.data)!, 0, false);
    if (found.found === "expired") return void (await ctx.answerCallbackQuery({ text: ctx.tr("button-expired") }));
    if (found.found === "unavailable") return void (await ctx.answerCallbackQuery().catch(() => undefined));
    if (found.found === "gone") return menus.gone(ctx, found.rules, 0);
    if (ruleStatus(found.view.rule.status) !== "paused") {
      await ctx.answerCallbackQuery({ text: ctx.tr("rule-toast-changed") });
      const card = await menus.ruleCard(ctx, found.view.rule);
      return editInPlace(ctx, card.text, card.keyboard);
    }
    await menus.act(ctx, found, "resume");
  });

  async function create(ctx: BotContext, kind: RuleKind | null, args: string): Promise<void> {
    const client = await userClient(ctx);
    if (!client) return;
    const badAddress = kind ? badAddressArgument(ctx, args.split(/\s+/)) : null;
    if (badAddress) {
      await ctx.reply(badAddress, { parse_mode: "HTML" });
      return;
    }
    const options = await automationOptions(ctx, client);
    if (!options) return;
    if (!kind) return enterFlow(ctx, "rule", { guided: true } satisfies RuleDraft);
    const parsed = draftFromArguments(ctx, kind, args, options);
    if (!parsed.ok) {
      await ctx.reply(parsed.message, { parse_mode: "HTML" });
      return;
    }
    const draft = parsed.draft;
    draft.guided = FIELDS[kind].some((field) => draft[field] === undefined);
    if (nextStep(draft)) return enterFlow(ctx, "rule", draft);
    await endFlow(ctx);
    await sendRuleCard(ctx, draft);
  }

  composer.command("refill", (ctx) => create(ctx, "refill", ctx.match));
  composer.command("renewal", (ctx) => create(ctx, "renewal", ctx.match));
  composer.command("smart", (ctx) => create(ctx, "smart", ctx.match));
  composer.command("newrule", (ctx) => create(ctx, null, ""));
  // New rule under /rules: the guided /newrule, closing whatever question was open (as the main menu's areas do).
  composer.use((ctx, next) => (newRulePressed(ctx) ? withFlowEnded(ctx, () => create(ctx, null, "")) : next()));

  composer.use(ruleCardFeature(cards, (ctx, rule) => menus.ruleCard(ctx, rule)));
  return composer;
}
