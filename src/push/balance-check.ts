import type { MarketplaceClient } from "#src/marketplace/index";
import { sunToTrx, trxToSun } from "#src/marketplace/money";
import type { BalanceWatch, WatchedRule } from "#src/db/repos/balance-watch";
import type { GuardSettings } from "#src/db/repos/guard-settings";
import type { PollAlert } from "#src/db/repos/poll-outcomes";
import { lowBalanceAlert, lowBalanceKey } from "#src/chat/reminder-alerts";
import { lastsFor, lastsText, roughTrx } from "#src/reports/runway";
import { recipientFor } from "./recipients";
import type { LookAheadPace as Pace, PollerDeps } from "./poller-deps";

// The low-balance check of a user with an active rule: low when the balance no longer covers an
// active rule's next delivery, or lasts less than the user's warning time at the week's pace.

const MINUTE = 60_000;
/** The balance is read again after this long at most… */
export const CHECK_MIN_MS = 10 * MINUTE;
/** …and, while the balance lasts far beyond the warning time, at least this often. */
export const CHECK_MAX_MS = 60 * MINUTE;
const HOUR = 60n * 60_000n;

/** The active rule with the dearest next delivery, and that cost; null when no cost is known. */
function dearest(rules: readonly WatchedRule[] | null): { rule: WatchedRule; costSun: bigint } | null {
  let found: { rule: WatchedRule; costSun: bigint } | null = null;
  for (const rule of rules ?? []) {
    const cost = rule.nextCostSun && /^\d+$/.test(rule.nextCostSun) ? BigInt(rule.nextCostSun) : null;
    if (cost !== null && (found === null || cost > found.costSun)) found = { rule, costSun: cost };
  }
  return found;
}

/**
 * Reads the balance and decides (in `state`). A crossing into low alerts once, while armed; a
 * top-up (a balance above the one alerted at, no longer low) arms it again. Sets when to read the
 * balance next: every 10 minutes while low or without a pace, up to an hour while it lasts far
 * beyond the warning time.
 */
export async function checkBalance(
  deps: PollerDeps,
  telegramId: number,
  settings: GuardSettings,
  client: MarketplaceClient,
  pace: Pace,
  state: BalanceWatch,
  alerts: PollAlert[],
): Promise<void> {
  const now = deps.now();
  await pace("balance");
  const balanceTrx = (await client.balance()).trx;
  if (balanceTrx === null) {
    // The marketplace left the balance out: nothing to decide on; looked at again soon.
    state.nextCheckAt = now + CHECK_MIN_MS;
    return;
  }
  const balanceSun = trxToSun(balanceTrx);
  const warningMs = BigInt(settings.warningHours) * HOUR;
  const lastsMs = state.perDaySun === null ? null : lastsFor(balanceSun, state.perDaySun);
  const next = dearest(state.rules);
  const uncovered = next !== null && balanceSun < next.costSun;
  const short = lastsMs !== null && lastsMs < warningMs;
  const low = uncovered || short;
  state.checkedAt = now;
  state.nextCheckAt = now + nextCheckIn(low, lastsMs, warningMs);
  if (!low) {
    // A top-up since the alert (a higher balance, no longer low) arms the next crossing.
    if (!state.armed && (state.alertedBalanceSun === null || balanceSun > state.alertedBalanceSun)) state.armed = true;
    return;
  }
  if (!state.armed) return;
  const recipient = await recipientFor(deps.db, deps.translations, telegramId, "always");
  if (!recipient) return;
  state.armed = false;
  state.crossings += 1;
  state.alertedBalanceSun = balanceSun;
  const payload = lowBalanceAlert(recipient, {
    balanceTrx: sunToTrx(balanceSun),
    uncovered: uncovered ? { ruleId: next.rule.id, costTrx: sunToTrx(next.costSun) } : null,
    short: short
      ? {
          perDayTrx: roughTrx(state.perDaySun!),
          lastsText: lastsText(recipient.tr, lastsMs),
          warningHours: settings.warningHours,
        }
      : null,
  });
  alerts.push({ key: lowBalanceKey(state.crossings), chatId: recipient.chatId, payload });
}

/** When to read the balance again: soon while low or without a pace; later while it lasts far beyond the warning. */
function nextCheckIn(low: boolean, lastsMs: bigint | null, warningMs: bigint): number {
  if (low || lastsMs === null) return CHECK_MIN_MS;
  const margin = (lastsMs - warningMs) / 4n;
  if (margin < BigInt(CHECK_MIN_MS)) return CHECK_MIN_MS;
  return margin > BigInt(CHECK_MAX_MS) ? CHECK_MAX_MS : Number(margin);
}
