import type { PollerDeps } from "./poller-deps";
import type { PollAlert } from "#src/db/repos/poll-outcomes";
import { MarketplaceError, type MarketplaceClient, type Notification } from "#src/marketplace/index";
import { finalState, notificationAlert, rulePausedAlert, settlementAlert, settlementKey } from "#src/chat/alerts";
import { refFor } from "#src/db/repos/callback-refs";
import { buyAgainRefs } from "#src/db/repos/buy-again-refs";
import { recipientFor } from "./recipients";

// The alert a polled notification makes: a settlement, a paused rule, a deposit or anything else.

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
    const paused = (await client.listAutomations()).filter((rule) => rule.status.toLowerCase() === "paused" && (rule.pauseReason ?? "").toLowerCase() === "system");
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
 * Builds the alert for one notification and its dedupe key (settlements share the order's key).
 * "later": a settlement whose order could not be read as final yet; left unseen, so the next
 * cycle looks again instead of relaying it under a key no other path shares.
 */
export async function alertFor(deps: PollerDeps, telegramId: number, client: MarketplaceClient, notification: Notification): Promise<PollAlert | null | "later"> {
  const text = textOf(notification);
  const id = UUID.exec(`${notification.link ?? ""} ${notification.body} ${notification.title}`)?.[0];
  const now = deps.now();
  if (text.includes("order") && id && /fill|fail|settle|deliver|refund/.test(text)) {
    const recipient = await recipientFor(deps.db, deps.translations, telegramId, "orders");
    if (!recipient) return null;
    try {
      const order = await client.getOrder(id);
      const state = finalState(order.status);
      if (state) {
        const [buyAgain] = await buyAgainRefs(deps.db, [{ telegramId, orderId: order.id }], now);
        return { key: settlementKey(order.id, state), chatId: recipient.chatId, payload: settlementAlert(recipient, order, state, buyAgain) };
      }
    } catch (error) {
      deps.logger.debug({ userId: telegramId, orderId: id, kind: error instanceof MarketplaceError ? error.kind : "unexpected" }, "order of a settlement notification not readable; looking again next cycle");
    }
    const age = now - Date.parse(notification.createdAt);
    if (!(age > SETTLEMENT_WAIT_MS)) return "later";
    const state = /fail|refund|cancel|reject|expire/.test(`${text} ${notification.body.toLowerCase()}`) ? "failed" : "filled";
    return { key: settlementKey(id, state), chatId: recipient.chatId, payload: notificationAlert(recipient, notification) };
  }
  if (/pause/.test(text) && /automation|rule|refill|renewal|smart/.test(`${text} ${notification.body.toLowerCase()}`)) {
    const recipient = await recipientFor(deps.db, deps.translations, telegramId, "rules");
    if (!recipient) return null;
    const ruleId = id ?? (await findPausedRule(client, notification));
    return { key: `notification:${notification.id}`, chatId: recipient.chatId, payload: rulePausedAlert(recipient, ruleId ? { id: ruleId, ref: await refFor(deps.db, telegramId, ruleId, now) } : null, `${notification.title}: ${notification.body}`) };
  }
  const kind = /deposit|top.?up|credit/.test(text) ? "deposits" : "other";
  const recipient = await recipientFor(deps.db, deps.translations, telegramId, kind);
  if (!recipient) return null;
  return { key: `notification:${notification.id}`, chatId: recipient.chatId, payload: notificationAlert(recipient, notification) };
}
