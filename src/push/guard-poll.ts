import type { AutomationRule, Firing, MarketplaceClient } from "#src/marketplace/index";
import { MarketplaceError } from "#src/marketplace/index";
import { sunToTrx, trxToSun } from "#src/marketplace/money";
import { ruleKind } from "#src/marketplace/rule-words";
import type { BalanceWatch, WatchedRule } from "#src/db/repos/balance-watch";
import type { DeliveryMark } from "#src/db/repos/delivery-marks";
import type { GuardSettings } from "#src/db/repos/guard-settings";
import type { PollAlert } from "#src/db/repos/poll-outcomes";
import { deliveryAlert, deliveryKey } from "#src/chat/reminder-alerts";
import { activeRules, costPerDay, RUNWAY_RULES } from "#src/reports/runway";
import { recipientFor } from "./recipients";
import { checkBalance, CHECK_MIN_MS } from "./balance-check";
import type { LookAheadPace as Pace, PollerDeps } from "./poller-deps";

// The part of a user's poll that looks ahead, for users with an active rule: the low-balance
// check (balance-check.ts, at most every 10 minutes, at the user's polling pace) and, for users
// who asked, an alert for each firing of their active rules. Reads the marketplace; writes nothing
// (the poll's outcome carries what it found, recorded with the rest of the poll).

/** What a poll knows of the user for this part, loaded with the batch. */
export interface GuardTarget {
  ruleActive: boolean;
  settings: GuardSettings;
  watch: BalanceWatch | null;
  /** The delivery marks of the user's rules (rule id → newest firing alerted, ms). */
  marks: Map<string, number>;
}

/** What this part found: alerts to queue, the watch to store, delivery marks moved. */
export interface GuardOutcome {
  alerts: PollAlert[];
  watch: BalanceWatch;
  marks: DeliveryMark[];
}

/** What the rest of the poll saw: the rule list when it read one, and whether a deposit was notified. */
export interface PollSeen {
  list: AutomationRule[] | null;
  deposit: boolean;
}

/** How far the marketplace's clock may be behind the bot's. */
const CLOCK_SKEW_MS = 5 * 60_000;

/** The rule list and the figures from the firings are read again after this long (or when the poll read the list). */
const FIGURES_FRESH_MS = 6 * 3_600_000;

/**
 * A watch never checked yet, its first check spread over the next 10 minutes by the user's id: a
 * deploy (or a day of new links) does not put every user's first reads into one poll cycle.
 */
export function newWatch(telegramId: number, now: number): BalanceWatch {
  return {
    nextCheckAt: now + ((Math.abs(telegramId) * 7_919) % CHECK_MIN_MS),
    armed: true,
    crossings: 0,
    alertedBalanceSun: null,
    checkedAt: null,
    rules: null,
    rulesReadAt: null,
    perDaySun: null,
  };
}

/**
 * The poll's look ahead for one user; null when there is nothing to do (no active rule, the
 * balance not due and no delivery alerts asked for) or when the marketplace could not answer (the
 * next poll tries again). `pace` is awaited before every request (the poll rate counts them all).
 */
export async function guardPoll(
  deps: PollerDeps,
  telegramId: number,
  target: GuardTarget,
  client: MarketplaceClient,
  pace: () => Promise<void>,
  seen: PollSeen,
): Promise<GuardOutcome | null> {
  return lookAhead(deps, telegramId, target, client, paced(deps, pace), seen);
}

/** The poll's pace, each slot counted as a read of the look ahead. */
function paced(deps: PollerDeps, pace: () => Promise<void>): Pace {
  return (read) => {
    deps.metrics?.pollLookAhead.inc({ read });
    return pace();
  };
}

async function lookAhead(
  deps: PollerDeps,
  telegramId: number,
  target: GuardTarget,
  client: MarketplaceClient,
  pace: Pace,
  seen: PollSeen,
): Promise<GuardOutcome | null> {
  const now = deps.now();
  const { settings } = target;
  if (!target.ruleActive) return null;
  // First sight of the user: only the time of the first check is set (no read).
  if (target.watch === null && !settings.alertDeliveries)
    return settings.warningHours > 0 ? { alerts: [], watch: newWatch(telegramId, now), marks: [] } : null;
  const balanceDue =
    settings.warningHours > 0 && (seen.deposit || target.watch === null || target.watch.nextCheckAt <= now);
  if (!balanceDue && !settings.alertDeliveries) return null;
  try {
    const figures = await readFigures(telegramId, target, client, pace, seen.list, now);
    const alerts: PollAlert[] = [];
    const marks = settings.alertDeliveries ? await deliveries(deps, telegramId, target, figures, alerts) : [];
    if (balanceDue) await checkBalance(deps, telegramId, settings, client, pace, figures.state, alerts);
    return { alerts, watch: figures.state, marks };
  } catch (error) {
    if (!(error instanceof MarketplaceError)) throw error;
    deps.logger.debug(
      { userId: telegramId, kind: error.kind },
      "balance or delivery check not read; the next poll tries again",
    );
    return null;
  }
}

/** The watch with the rules and figures brought up to date, and the firings read for them (when read). */
interface Figures {
  state: BalanceWatch;
  firings: Map<string, readonly Firing[]> | null;
}

/** The rules of a list as the watch keeps them, each keeping the next delivery's cost known before. */
function watchedRules(list: AutomationRule[], known: readonly WatchedRule[] | null): WatchedRule[] {
  const before = new Map((known ?? []).map((rule) => [rule.id, rule]));
  return activeRules(list)
    .slice(0, RUNWAY_RULES)
    .map((rule) => ({
      id: rule.id,
      type: rule.type,
      targetAddress: rule.targetAddress,
      volume: rule.volume,
      duration: rule.duration,
      nextCostSun: before.get(rule.id)?.nextCostSun ?? null,
    }));
}

/**
 * The active rules (the list the poll read, the cached one while fresh, else read now) and, when
 * the cache is not fresh or delivery alerts need them anyway, their firings: the cost a day over
 * 7 days and each rule's next delivery (its last firing's price, or a preview).
 */
async function readFigures(
  telegramId: number,
  target: GuardTarget,
  client: MarketplaceClient,
  pace: Pace,
  seenList: AutomationRule[] | null,
  now: number,
): Promise<Figures> {
  const state: BalanceWatch = target.watch ? { ...target.watch } : newWatch(telegramId, now);
  const stale = state.rulesReadAt === null || now - state.rulesReadAt >= FIGURES_FRESH_MS;
  let list = seenList;
  if (!list && (stale || state.rules === null)) {
    await pace("rules");
    list = await client.listAutomations();
  }
  if (list) state.rules = watchedRules(list, state.rules);
  if (!stale && list === null && !target.settings.alertDeliveries) return { state, firings: null };
  const rules = state.rules ?? [];
  const firings = new Map<string, readonly Firing[]>();
  for (const rule of rules) {
    await pace("fires");
    firings.set(rule.id, await client.automationFires(rule.id));
  }
  state.perDaySun = costPerDay(
    rules.map((rule) => ({ ruleId: rule.id, firings: firings.get(rule.id) ?? [] })),
    now,
  );
  for (const rule of rules) rule.nextCostSun = (await nextDelivery(client, pace, rule, firings))?.toString() ?? null;
  state.rulesReadAt = now;
  return { state, firings };
}

/** A rule's next delivery: its last firing's price, or a preview when it has none (null when that fails too). */
async function nextDelivery(
  client: MarketplaceClient,
  pace: Pace,
  rule: WatchedRule,
  firings: Map<string, readonly Firing[]>,
): Promise<bigint | null> {
  const last = firings.get(rule.id)?.[0];
  if (last) return trxToSun(last.priceTrx);
  const kind = ruleKind(rule.type);
  // A renewal has no preview of its own: priced as a day's refill (an estimate, as its card says).
  const query =
    kind === "smart"
      ? { volume: "131000", duration: "1h", type: "smart" }
      : rule.volume
        ? { volume: rule.volume, duration: kind === "refill" ? (rule.duration ?? "1h") : "1d", type: "refill" }
        : null;
  if (!query) return null;
  await pace("preview");
  return client
    .previewAutomation(query)
    .then((preview) => trxToSun(preview.priceTrx))
    .catch(() => null);
}

/**
 * An alert for each firing newer than its rule's mark (at first sight of a rule, newer than the
 * time the alerts were switched on), oldest first; the marks move past what was seen.
 */
async function deliveries(
  deps: PollerDeps,
  telegramId: number,
  target: GuardTarget,
  figures: Figures,
  alerts: PollAlert[],
): Promise<DeliveryMark[]> {
  if (!figures.firings) return [];
  // Firings are dated by the marketplace's clock: a few minutes' slack, so one made just after the
  // alerts were switched on is not lost to a clock behind the bot's (one just before may be told).
  const since = (target.settings.deliveriesSince ?? deps.now()) - CLOCK_SKEW_MS;
  const recipient = await recipientFor(deps.db, deps.translations, telegramId, "always");
  const marks: DeliveryMark[] = [];
  for (const rule of figures.state.rules ?? []) {
    const mark = target.marks.get(rule.id) ?? since;
    let newest = mark;
    for (const firing of [...(figures.firings.get(rule.id) ?? [])].reverse()) {
      const at = Date.parse(firing.createdAt);
      if (!Number.isFinite(at) || at <= mark || at <= since) continue;
      newest = Math.max(newest, at);
      if (!recipient) continue;
      const payload = deliveryAlert(recipient, {
        ruleId: rule.id,
        ruleType: rule.type,
        targetAddress: rule.targetAddress,
        volume: String(firing.volume),
        duration: firing.duration,
        priceTrx: sunToTrx(trxToSun(firing.priceTrx)),
        createdAt: firing.createdAt,
      });
      alerts.push({ key: deliveryKey(rule.id, at, firing.priceTrx), chatId: recipient.chatId, payload });
    }
    if (!target.marks.has(rule.id) || newest > mark) marks.push({ ruleId: rule.id, seenUntil: newest });
  }
  return marks;
}
