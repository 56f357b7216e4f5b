import { markKeyBroken } from "#src/db/repos/credentials";
import { markInMotion, requestRuleCheck } from "#src/db/repos/poll-schedule";
import { MarketplaceError, type AutomationRule, type MarketplaceClient } from "#src/marketplace/index";
import { ruleStatus } from "#src/marketplace/rule-words";
import { ruleRow, type RuleRow } from "./dashboard-data";
import { describeFailure, plain, readFailure } from "./failures";
import type { MiniAppDeps } from "./deps";
import type { SignerAccount } from "./signer-account";

type DashboardRuleAction = "pause" | "resume";

/** The state a rule must be in for the action: the chat's rule card offers the same buttons. */
const ALLOWED: Record<DashboardRuleAction, (status: string) => boolean> = {
  pause: (status) => ruleStatus(status) === "active",
  resume: (status) => ruleStatus(status) === "paused",
};
const TOAST: Record<DashboardRuleAction, string> = { pause: "rule-toast-paused", resume: "rule-toast-resumed" };

export type RuleActionOutcome = { status: 200 | 404 | 409 | 502; message: string; rule: RuleRow | null };

/**
 * Pause or Resume from the dashboard: the rule must be the signer's (it is looked up in their own
 * key's rule list) and in the state the button is for; then the same marketplace call the chat's
 * card makes, the same follow-up (a resumed rule is watched closely, a paused one checked), and
 * the chat's open card of that rule redrawn as the rule is now. One action per user and rule at
 * a time: a second one while the first runs is refused (409), never a second write.
 */
export async function changeRule(
  deps: MiniAppDeps,
  account: SignerAccount,
  ruleId: string,
  action: DashboardRuleAction,
): Promise<RuleActionOutcome> {
  const { client, tr } = account;
  const telegramId = account.signer.telegramId;
  if (!client) return { status: 409, message: tr("miniapp-connect-first"), rule: null };
  // An id the signer's rule list, read moments ago, does not hold: answered from it, no new read.
  if (!deps.bounds.mayHaveRule(telegramId, ruleId, deps.now()))
    return { status: 404, message: plain(tr("rule-toast-not-found")), rule: null };
  const outcome = await deps.bounds.exclusive(telegramId, ruleId, () =>
    actOnRule(deps, { ...account, client }, ruleId, action),
  );
  return outcome ?? { status: 409, message: plain(tr("miniapp-rule-busy")), rule: null };
}

/** The action itself, alone on this user's rule (see MiniAppBounds.exclusive): read, check the state, write, redraw. */
async function actOnRule(
  deps: MiniAppDeps,
  account: SignerAccount & { client: MarketplaceClient },
  ruleId: string,
  action: DashboardRuleAction,
): Promise<RuleActionOutcome> {
  const { client, tr, lang } = account;
  const telegramId = account.signer.telegramId;
  const words = { tr, lang, botUsername: deps.bot.botInfo.username };
  let rules: AutomationRule[];
  try {
    rules = await client.listAutomations();
  } catch (error) {
    return { status: 502, message: await readFailure(deps, telegramId, tr, error), rule: null };
  }
  deps.bounds.rememberRules(
    telegramId,
    rules.map((rule) => rule.id),
    deps.now(),
  );
  const rule = rules.find((candidate) => candidate.id === ruleId);
  if (!rule) return { status: 404, message: plain(tr("rule-toast-not-found")), rule: null };
  if (!ALLOWED[action](rule.status))
    return { status: 409, message: plain(tr("rule-toast-changed")), rule: ruleRow(rule, words) };
  let updated: AutomationRule;
  try {
    updated = action === "pause" ? await client.pauseAutomation(rule.id) : await client.resumeAutomation(rule.id);
  } catch (error) {
    if (!(error instanceof MarketplaceError)) throw error;
    deps.logger.info(
      { userId: telegramId, ruleId: rule.id, action, kind: error.kind, status: error.status, from: "dashboard" },
      "rule action refused",
    );
    if (error.kind === "not_found") return { status: 404, message: plain(tr("rule-toast-not-found")), rule: null };
    if (error.kind === "unauthorized") await markKeyBroken(deps.db, telegramId, deps.now());
    const message =
      error.kind === "insufficient_balance" && action === "resume"
        ? plain(tr("rule-resume-short"))
        : describeFailure(tr, error, true);
    const current =
      (await client.listAutomations().catch(() => null))?.find((candidate) => candidate.id === rule.id) ?? rule;
    return { status: 409, message, rule: ruleRow(current, words) };
  }
  deps.logger.info(
    { userId: telegramId, ruleId: rule.id, action, status: updated.status, from: "dashboard" },
    "rule updated",
  );
  await (action === "resume"
    ? markInMotion(deps.db, telegramId, "rule", deps.now())
    : requestRuleCheck(deps.db, telegramId));
  await redrawCards(deps, account, rule.id);
  return { status: 200, message: plain(tr(TOAST[action])), rule: ruleRow(updated, words) };
}

/** How long the answer waits for the chat's card (its chat's updates go one at a time); the redraw goes on after. */
const REDRAW_WAIT_MS = 5_000;

/** The chat's open cards of the rule, redrawn by the bot; a failure there never undoes the action. */
async function redrawCards(deps: MiniAppDeps, account: SignerAccount, ruleId: string): Promise<void> {
  const user = account.user;
  if (!user) return;
  const redraw = deps.cards
    .redraw(
      deps.bot,
      {
        telegramId: user.telegram_id,
        chatId: user.chat_id,
        firstName: account.signer.firstName,
        languageCode: account.signer.languageCode,
      },
      ruleId,
      deps.now(),
    )
    .catch((error: unknown) =>
      deps.logger.warn(
        { err: error, userId: user.telegram_id, ruleId },
        "dashboard: the chat's rule card could not be redrawn; it updates at its next tap",
      ),
    );
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([redraw, new Promise<void>((resolve) => (timer = setTimeout(resolve, REDRAW_WAIT_MS)))]);
  clearTimeout(timer);
}
