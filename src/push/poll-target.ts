import type { Kysely } from "kysely";
import type { Database } from "#src/db/schema";
import { findCredentials, openApiKey, type Credential } from "#src/db/repos/credentials";
import { findPollStates, RULE_RECHECK_MS } from "#src/db/repos/poll-schedule";
import type { PollAlert, PollOutcome } from "#src/db/repos/poll-outcomes";
import { seenAmong } from "#src/db/repos/seen-notifications";
import {
  MarketplaceError,
  type AutomationRule,
  type MarketplaceClient,
  type Notification,
} from "#src/marketplace/index";
import { recordBrokenKey } from "./broken-key";
import { alertFor, textOf } from "./poll-alerts";
import { MAX_POLL_PAGES, type PollerDeps } from "./poller-deps";
import type { RentalFacts } from "#src/db/repos/rental-ends";
import { DEFAULT_GUARD_SETTINGS, findGuardSettingsOf } from "#src/db/repos/guard-settings";
import { findBalanceWatches } from "#src/db/repos/balance-watch";
import { findDeliveryMarks } from "#src/db/repos/delivery-marks";
import { guardPoll, type GuardTarget } from "./guard-poll";

// One user's poll: their notification pages read, the new ones turned into alerts, the rule list checked.

/** What one poll needs to know about its user, loaded for a whole batch in one query. */
export interface PollTarget {
  telegramId: number;
  credential: Credential | null;
  primed: boolean;
  failures: number;
  /** When the rule list was last read (0: never). */
  rulesCheckedAt: number;
  /** Creation time of the newest notification seen (marketplace clock, ms), or null. */
  seenUntil: number | null;
  /** The look ahead's state: the low-balance check and the delivery alerts (guard-poll.ts). */
  guard: GuardTarget;
}

/** The poll targets of these users, in their order. */
export async function loadTargets(db: Kysely<Database>, telegramIds: number[]): Promise<PollTarget[]> {
  if (telegramIds.length === 0) return [];
  const states = await findPollStates(db, telegramIds);
  const credentials = await findCredentials(db, telegramIds);
  const stateOf = new Map(states.map((row) => [Number(row.telegram_id), row]));
  const credentialOf = new Map(credentials.map((row) => [Number(row.telegram_id), row]));
  // The look ahead's state, read only for the users with an active rule (the others have none to look at).
  const ruled = telegramIds.filter((telegramId) => stateOf.get(telegramId)?.rule_active === 1);
  const [settings, watches, marks] = await Promise.all([
    findGuardSettingsOf(db, ruled),
    findBalanceWatches(db, ruled),
    findDeliveryMarks(db, ruled),
  ]);
  return telegramIds.map((telegramId) => ({
    telegramId,
    credential: credentialOf.get(telegramId) ?? null,
    primed: stateOf.get(telegramId)?.primed === 1,
    failures: Number(stateOf.get(telegramId)?.failures ?? 0),
    rulesCheckedAt: Number(stateOf.get(telegramId)?.rules_checked_at ?? 0),
    seenUntil: nullableNumber(stateOf.get(telegramId)?.seen_until),
    guard: {
      ruleActive: stateOf.get(telegramId)?.rule_active === 1,
      settings: settings.get(telegramId) ?? DEFAULT_GUARD_SETTINGS,
      watch: watches.get(telegramId) ?? null,
      marks: marks.get(telegramId) ?? new Map(),
    },
  }));
}

const nullableNumber = (value: number | string | null | undefined): number | null =>
  value === null || value === undefined ? null : Number(value);

/** A notification's creation time in ms, or null when the marketplace sent one Date cannot read. */
function createdMs(notification: Notification): number | null {
  const ms = Date.parse(notification.createdAt);
  return Number.isFinite(ms) ? ms : null;
}

/**
 * Reads the newest page and, while a page holds nothing seen before, the next ones (at most
 * {@link MAX_POLL_PAGES}); priming reads the newest page only. Returns the notifications not seen
 * before (newest first) and the ids on the first page, or the outcome when the reading failed.
 */
async function readNewNotifications(
  deps: PollerDeps,
  target: PollTarget,
  client: MarketplaceClient,
  pace: () => Promise<void>,
  now: number,
): Promise<{ fresh: Notification[]; firstPage: string[] } | PollOutcome> {
  const { telegramId } = target;
  const fresh: Notification[] = [];
  const freshIds = new Set<string>();
  let firstPage: string[] = [];
  for (let number = 1; ; number += 1) {
    let page;
    try {
      if (number > 1) await pace();
      page = await client.notifications({ page: number });
    } catch (error) {
      if (error instanceof MarketplaceError && (error.kind === "unauthorized" || error.kind === "forbidden")) {
        // Revoked: told once, and no longer claimed for polling until the user links again.
        if (await recordBrokenKey(deps.db, deps.translations, telegramId, now)) deps.onQueued();
        deps.logger.info(
          { userId: telegramId, kind: error.kind },
          "marketplace refused a user's key while polling; marked broken, polling stops until they link again",
        );
        return { telegramId, kind: "skipped" };
      }
      // A later page lost: nothing is recorded, so the next poll reads from the newest page again
      // (recording the newer pages alone would make the unread older ones look seen).
      deps.logger.debug({ userId: telegramId, page: number, err: error }, "notification poll failed; backing off");
      const failures = target.failures + 1;
      return {
        telegramId,
        kind: "failed",
        failures,
        nextPollAt: now + Math.min(30 * 60_000, 15_000 * 2 ** Math.min(failures, 7)),
      };
    }
    const ids = page.items.map((item) => item.id);
    if (number === 1) firstPage = ids;
    const seenIds = await seenAmong(deps.db, telegramId, ids);
    let reachedSeen = false;
    for (const item of page.items) {
      const created = createdMs(item);
      if (seenIds.has(item.id) || (target.seenUntil !== null && created !== null && created < target.seenUntil)) {
        reachedSeen = true;
        continue;
      }
      // A notification raised between two page reads shifts the list: the next page repeats some.
      if (!freshIds.has(item.id)) {
        freshIds.add(item.id);
        fresh.push(item);
      }
    }
    const size = page.pageSize > 0 ? page.pageSize : page.items.length;
    const lastPage = page.items.length === 0 || page.items.length < size || number * size >= page.total;
    // Priming reads the newest page only: what is already there at link time is not replayed.
    if (reachedSeen || lastPage || !target.primed) break;
    if (number >= MAX_POLL_PAGES) {
      deps.metrics?.pollPageLimit.inc();
      deps.logger.warn(
        { userId: telegramId, pages: number },
        `no notification already seen in the newest ${MAX_POLL_PAGES} pages; the older ones are left unread`,
      );
      break;
    }
    deps.metrics?.pollExtraPages.inc();
  }
  return { fresh, firstPage };
}

/**
 * Fetches one user's new notifications and works out what to record: the ids not seen before and,
 * once the user is primed, the alerts they make (oldest first). Reads the newest page and, while a
 * page holds nothing seen before, the next ones (at most {@link MAX_POLL_PAGES}); priming reads the
 * newest page only. Reads the rule list when it is due or a new notification is about a rule.
 * `pace` is awaited before every request after the first (the poll rate counts them all).
 * Writes nothing but a broken key mark; the outcome is recorded by {@link recordPollOutcomes}.
 * Never marks anything read at the marketplace.
 */
export async function pollTarget(
  deps: PollerDeps,
  target: PollTarget,
  pace: () => Promise<void> = async () => undefined,
): Promise<PollOutcome> {
  const { telegramId, credential } = target;
  if (!credential || credential.broken_at) return { telegramId, kind: "skipped" };
  const now = deps.now();
  let client: MarketplaceClient;
  try {
    const apiKey = openApiKey(deps.box, credential);
    client = deps.marketplace(() => apiKey);
  } catch {
    return { telegramId, kind: "skipped" };
  }
  const read = await readNewNotifications(deps, target, client, pace, now);
  if ("kind" in read) return read;
  const { fresh, firstPage } = read;
  const alerts: PollAlert[] = [];
  const rentals: RentalFacts[] = [];
  const later = new Set<string>();
  if (target.primed) {
    for (const notification of [...fresh].reverse()) {
      const alert = await alertFor(deps, telegramId, client, notification, rentals);
      if (alert === "later") later.add(notification.id);
      else alerts.push(...alert);
    }
  }
  let rules: { active: boolean; checkedAt: number } | null = null;
  let list: AutomationRule[] | null = null;
  const aboutRules = target.primed && fresh.some((notification) => /automation|rule/.test(textOf(notification)));
  if (aboutRules || now - target.rulesCheckedAt >= RULE_RECHECK_MS) {
    try {
      await pace();
      list = await client.listAutomations();
      rules = { active: list.some((rule) => rule.status.toLowerCase() === "active"), checkedAt: target.rulesCheckedAt };
    } catch (error) {
      deps.logger.debug(
        { userId: telegramId, kind: error instanceof MarketplaceError ? error.kind : "unexpected" },
        "rule list not readable; read again at the next poll",
      );
    }
  }
  const recorded = fresh.filter((item) => !later.has(item.id));
  const deposit = target.primed && fresh.some((notification) => /deposit|top.?up|credit/.test(textOf(notification)));
  const guard = await guardPoll(deps, telegramId, guardOf(target, rules), client, pace, { list, deposit });
  if (guard) alerts.push(...guard.alerts);
  return {
    telegramId,
    kind: "polled",
    seen: recorded.map((item) => item.id),
    alerts,
    ...(rentals.length > 0 ? { rentals } : {}),
    firstPage: fresh.length > 0 ? firstPage : null,
    seenUntil: newSeenUntil(
      target.seenUntil,
      recorded,
      fresh.filter((item) => later.has(item.id)),
    ),
    rules,
    ...(guard ? { guard: { watch: guard.watch, marks: guard.marks } } : {}),
  };
}

/** The look ahead's target, with what this poll learnt of the rules (a rule found active, or none left). */
function guardOf(target: PollTarget, rules: { active: boolean } | null): GuardTarget {
  return rules === null ? target.guard : { ...target.guard, ruleActive: rules.active };
}

/**
 * The creation time of the newest notification now recorded as seen, when it moved forward; null
 * otherwise. A settlement left for a later look holds it back, so that one is still read as new.
 */
function newSeenUntil(current: number | null, recorded: Notification[], later: Notification[]): number | null {
  let newest = -Infinity;
  for (const item of recorded) newest = Math.max(newest, createdMs(item) ?? -Infinity);
  for (const item of later) newest = Math.min(newest, (createdMs(item) ?? Infinity) - 1);
  return Number.isFinite(newest) && (current === null || newest > current) ? newest : null;
}
