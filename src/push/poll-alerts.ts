import type { PollerDeps } from "./poller-deps";
import type { PollAlert } from "#src/db/repos/poll-outcomes";
import { MarketplaceError, type MarketplaceClient, type Notification } from "#src/marketplace/index";
import {
  finalState,
  notificationAlert,
  rulePausedAlert,
  settlementAlert,
  settlementKey,
  type FinalState,
  type Recipient,
} from "#src/chat/alerts";
import type { OutboxPayload } from "#src/db/repos/outbox";
import { alertTargets, groupAlertOf, type GroupRecipient } from "./group-copies";
import { refFor } from "#src/db/repos/callback-refs";
import { buyAgainRefs } from "#src/db/repos/buy-again-refs";
import { rentalOf, type RentalFacts } from "#src/db/repos/rental-ends";
import { findGuardSettings } from "#src/db/repos/guard-settings";

// The alerts a polled notification makes: a settlement, a paused rule, a deposit or anything else.

const UUID = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/i;

export function textOf(notification: Notification): string {
  return `${notification.type} ${notification.title}`.toLowerCase();
}

/** The rule kinds, by the word that names each in a rule's type and in a notification's text. */
const KIND_WORDS = ["refill", "renew", "smart"];

/**
 * A pause notification may not name its rule: pick the System-paused rule whose target the text
 * mentions and, among those, whose kind it names ("your auto-refill rule for T…": two rules on one
 * address are told apart), else the most recently updated one, so the alert's Resume button acts on it.
 */
async function findPausedRule(client: MarketplaceClient, notification: Notification): Promise<string | null> {
  try {
    const paused = (await client.listAutomations()).filter(
      (rule) => rule.status.toLowerCase() === "paused" && (rule.pauseReason ?? "").toLowerCase() === "system",
    );
    const text = `${notification.title} ${notification.body}`;
    const byTarget = paused.filter((rule) => text.includes(rule.targetAddress));
    let candidates = byTarget.length > 0 ? byTarget : paused;
    const named = KIND_WORDS.filter((word) => text.toLowerCase().includes(word));
    const byKind = candidates.filter((rule) => named.some((word) => rule.type.toLowerCase().includes(word)));
    if (byKind.length > 0) candidates = byKind;
    candidates.sort((a, b) => b.updatedAt.localeCompare(a.updatedAt));
    return candidates[0]?.id ?? null;
  } catch {
    return null;
  }
}

/**
 * How long a settlement notification waits for its order to read as final before it is relayed
 * in its own words (still under the settlement key, so a late webhook adds nothing).
 */
const SETTLEMENT_WAIT_MS = 3_600_000;

/**
 * Builds the alerts for one notification with their dedupe keys (settlements share the order's
 * key): the private one and, for team alerts, the group's copy; empty when neither is wanted.
 * "later": a settlement whose order could not be read as final yet; left unseen, so the next
 * cycle looks again instead of relaying it under a key no other path shares. A filled order's
 * rental goes into `rentals` (recorded with the poll's outcome, for the "ends" alert).
 */
export async function alertFor(
  deps: PollerDeps,
  telegramId: number,
  client: MarketplaceClient,
  notification: Notification,
  rentals: RentalFacts[] = [],
): Promise<PollAlert[] | "later"> {
  const text = textOf(notification);
  const id = UUID.exec(`${notification.link ?? ""} ${notification.body} ${notification.title}`)?.[0];
  const now = deps.now();
  const to = await alertTargets(deps.db, deps.translations, telegramId);
  if (text.includes("order") && id && /fill|fail|settle|deliver|refund/.test(text)) {
    const recipient = to.recipient("orders");
    const wanted = (state: FinalState) => ({ recipient, group: to.group(state) });
    const unwanted = !recipient && !wanted("filled").group && !wanted("failed").group;
    // Order alerts off: the order is still read when its rental may get an "ends" alert.
    if (unwanted && !(await findGuardSettings(deps.db, telegramId)).alertEnds) return [];
    try {
      const order = await client.getOrder(id);
      const state = finalState(order.status);
      if (state === "filled") rentals.push(rentalOf(telegramId, order));
      if (state && unwanted) return [];
      if (state) {
        // Buy again goes under the private alert only; a group's copy keeps no spending button.
        const [buyAgain] = recipient ? await buyAgainRefs(deps.db, [{ telegramId, orderId: order.id }], now) : [null];
        return alertsFor(wanted(state), settlementKey(order.id, state), (target) =>
          settlementAlert(target, order, state, target === recipient ? buyAgain : null),
        );
      }
    } catch (error) {
      deps.logger.debug(
        { userId: telegramId, orderId: id, kind: error instanceof MarketplaceError ? error.kind : "unexpected" },
        "order of a settlement notification not readable; looking again next cycle",
      );
    }
    const age = now - Date.parse(notification.createdAt);
    if (!(age > SETTLEMENT_WAIT_MS)) return "later";
    const state = /fail|refund|cancel|reject|expire/.test(`${text} ${notification.body.toLowerCase()}`)
      ? "failed"
      : "filled";
    return alertsFor(wanted(state), settlementKey(id, state), (target) => notificationAlert(target, notification));
  }
  if (/pause/.test(text) && /automation|rule|refill|renewal|smart/.test(`${text} ${notification.body.toLowerCase()}`)) {
    const targets = { recipient: to.recipient("rules"), group: to.group("paused") };
    if (!targets.recipient && !targets.group) {
      // No alert wanted; the chat's open cards of the rule still follow it.
      if (id) deps.onRuleChanged?.(telegramId, id);
      return [];
    }
    const ruleId = id ?? (await findPausedRule(client, notification));
    if (ruleId) deps.onRuleChanged?.(telegramId, ruleId);
    const rule = ruleId ? { id: ruleId, ref: await refFor(deps.db, telegramId, ruleId, now) } : null;
    return alertsFor(targets, `notification:${notification.id}`, (target) =>
      rulePausedAlert(target, rule, `${notification.title}: ${notification.body}`),
    );
  }
  const kind = /deposit|top.?up|credit/.test(text) ? "deposits" : "other";
  const targets = { recipient: to.recipient(kind), group: to.group("other") };
  return alertsFor(targets, `notification:${notification.id}`, (target) => notificationAlert(target, notification));
}

/** The private alert and the group's copy, each built in its recipient's language. */
function alertsFor(
  targets: { recipient: Recipient | null; group: GroupRecipient | null },
  key: string,
  build: (to: Recipient) => OutboxPayload,
): PollAlert[] {
  const alerts: PollAlert[] = [];
  if (targets.recipient) alerts.push({ key, chatId: targets.recipient.chatId, payload: build(targets.recipient) });
  if (targets.group) {
    const copy = groupAlertOf(targets.group, key, build(targets.group), 0);
    alerts.push({
      key: copy.dedupeKey,
      chatId: copy.chatId,
      payload: JSON.parse(copy.payload) as OutboxPayload,
      group: true,
    });
  }
  return alerts;
}
