import { sql, type Kysely, type Transaction } from "kysely";
import type { FollowerDeps } from "./order-follower";
import type { Database } from "../db/schema";
import { scheduleCommit } from "../db/write-batcher";
import { openApiKey, type Credential } from "../db/repos/credentials";
import { MarketplaceError, type MarketplaceClient, type Notification } from "../marketplace";
import { finalState, notificationAlert, recipientFor, rulePausedAlert, settlementAlert, settlementKey } from "../chat/alerts";
import { isPostgres } from "../db/dialect";
import { enqueueAlert, type OutboxPayload } from "../db/repos/outbox";
import { recordBrokenKey } from "./broken-key";
import { RULE_RECHECK_MS, scheduleAfterPoll } from "../db/repos/poll-schedule";
import type { Metrics } from "../metrics";

export interface PollerDeps extends FollowerDeps {
  /** Marketplace requests per second the poller may make. */
  ratePerSecond: number;
  concurrency?: number;
  /**
   * Least time between two commits of a cycle's outcomes, in ms (default 25). Answers keep
   * arriving one by one at the poll rate; spacing the commits lets a few dozen users share one
   * fsync instead of holding the event loop for one per user.
   */
  commitGapMs?: number;
  /** How long a user with nothing in motion waits between polls, in ms (POLL_IDLE_INTERVAL; default 10 minutes). */
  idleIntervalMs?: number;
  /** Counts pages read past the newest and polls stopped at the page limit. */
  metrics?: Pick<Metrics, "pollExtraPages" | "pollPageLimit">;
}

/** POLL_IDLE_INTERVAL's default. */
export const DEFAULT_IDLE_INTERVAL_MS = 10 * 60_000;

/**
 * Most notification pages one poll reads. A poll reads further pages until one holds a
 * notification already seen; past this many, the older ones are left unread (logged and counted).
 */
export const MAX_POLL_PAGES = 10;

const UUID = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/i;

function textOf(notification: Notification): string {
  return `${notification.type} ${notification.title}`.toLowerCase();
}

/**
 * Records a user's existing notifications as seen (at link time), so they are not replayed as
 * alerts, and reads their rule list (the key may belong to another account than before).
 */
export async function primeNotifications(deps: PollerDeps, telegramId: number): Promise<void> {
  const now = deps.now();
  const fresh = { primed: 0, failures: 0, next_poll_at: now, rules_checked_at: 0, seen_until: null };
  await deps.db.insertInto("poll_state").values({ telegram_id: telegramId, ...fresh }).onConflict((oc) => oc.column("telegram_id").doUpdateSet(fresh)).execute();
  await pollUser(deps, telegramId).catch((error: unknown) => deps.logger.warn({ err: error, userId: telegramId }, "priming notifications failed; the first poll will do it"));
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

type Alert = { key: string; chatId: number; payload: OutboxPayload };

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
async function alertFor(deps: PollerDeps, telegramId: number, client: MarketplaceClient, notification: Notification): Promise<Alert | null | "later"> {
  const text = textOf(notification);
  const id = UUID.exec(`${notification.link ?? ""} ${notification.body} ${notification.title}`)?.[0];
  const now = deps.now();
  if (text.includes("order") && id && /fill|fail|settle|deliver|refund/.test(text)) {
    const recipient = await recipientFor(deps.db, deps.translations, telegramId, "orders");
    if (!recipient) return null;
    try {
      const order = await client.getOrder(id);
      const state = finalState(order.status);
      if (state) return { key: settlementKey(order.id, state), chatId: recipient.chatId, payload: settlementAlert(recipient, order, state) };
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
    return { key: `notification:${notification.id}`, chatId: recipient.chatId, payload: await rulePausedAlert(deps.db, recipient, ruleId, `${notification.title}: ${notification.body}`, now) };
  }
  const kind = /deposit|top.?up|credit/.test(text) ? "deposits" : "other";
  const recipient = await recipientFor(deps.db, deps.translations, telegramId, kind);
  if (!recipient) return null;
  return { key: `notification:${notification.id}`, chatId: recipient.chatId, payload: notificationAlert(recipient, notification) };
}

/** What one poll needs to know about its user, loaded for a whole batch in one query. */
interface PollTarget {
  telegramId: number;
  credential: Credential | null;
  primed: boolean;
  failures: number;
  /** When the rule list was last read (0: never). */
  rulesCheckedAt: number;
  /** Creation time of the newest notification seen (marketplace clock, ms), or null. */
  seenUntil: number | null;
}

/**
 * How long after it was first seen a notification is remembered once it has left the first page.
 * The poller reads further pages only until one holds a notification it remembers, and the ones on
 * the first page are never forgotten, so it always finds one; past that, a notification older than
 * the newest seen is never taken for new (`seen_until`).
 */
export const SEEN_NOTIFICATION_MS = 4 * 86_400_000;

/** The outcome of polling one user, written later together with other users' outcomes. */
type PollOutcome =
  | { telegramId: number; kind: "skipped" }
  /**
   * firstPage: the ids on the first page now, when something new arrived; else null.
   * seenUntil: the newer creation time of the newest notification seen, when it moved.
   * rules: what a read of the rule list found, and the rules_checked_at it was read against.
   */
  | { telegramId: number; kind: "polled"; seen: string[]; alerts: Alert[]; firstPage: string[] | null; seenUntil: number | null; rules: { active: boolean; checkedAt: number } | null }
  | { telegramId: number; kind: "failed"; failures: number; nextPollAt: number };

async function loadTargets(db: Kysely<Database>, telegramIds: number[]): Promise<PollTarget[]> {
  if (telegramIds.length === 0) return [];
  const states = await db.selectFrom("poll_state").select(["telegram_id", "primed", "failures", "rules_checked_at", "seen_until"]).where("telegram_id", "in", telegramIds).execute();
  const credentials = await db.selectFrom("credentials").selectAll().where("telegram_id", "in", telegramIds).execute();
  const stateOf = new Map(states.map((row) => [Number(row.telegram_id), row]));
  const credentialOf = new Map(credentials.map((row) => [Number(row.telegram_id), row]));
  return telegramIds.map((telegramId) => ({
    telegramId,
    credential: credentialOf.get(telegramId) ?? null,
    primed: stateOf.get(telegramId)?.primed === 1,
    failures: Number(stateOf.get(telegramId)?.failures ?? 0),
    rulesCheckedAt: Number(stateOf.get(telegramId)?.rules_checked_at ?? 0),
    seenUntil: nullableNumber(stateOf.get(telegramId)?.seen_until),
  }));
}

const nullableNumber = (value: number | string | null | undefined): number | null => (value === null || value === undefined ? null : Number(value));

/** A notification's creation time in ms, or null when the marketplace sent one Date cannot read. */
function createdMs(notification: Notification): number | null {
  const ms = Date.parse(notification.createdAt);
  return Number.isFinite(ms) ? ms : null;
}

/**
 * Fetches one user's new notifications and works out what to record: the ids not seen before and,
 * once the user is primed, the alerts they make (oldest first). Reads the newest page and, while a
 * page holds nothing seen before, the next ones (at most {@link MAX_POLL_PAGES}); priming reads the
 * newest page only. Reads the rule list when it is due or a new notification is about a rule.
 * `pace` is awaited before every request after the first (the poll rate counts them all).
 * Writes nothing but a broken key mark; the outcome is recorded by {@link recordOutcomes}.
 * Never marks anything read at the marketplace.
 */
async function pollTarget(deps: PollerDeps, target: PollTarget, pace: () => Promise<void> = async () => undefined): Promise<PollOutcome> {
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
        deps.logger.info({ userId: telegramId, kind: error.kind }, "marketplace refused a user's key while polling; marked broken, polling stops until they link again");
        return { telegramId, kind: "skipped" };
      }
      // A later page lost: nothing is recorded, so the next poll reads from the newest page again
      // (recording the newer pages alone would make the unread older ones look seen).
      deps.logger.debug({ userId: telegramId, page: number, err: error }, "notification poll failed; backing off");
      const failures = target.failures + 1;
      return { telegramId, kind: "failed", failures, nextPollAt: now + Math.min(30 * 60_000, 15_000 * 2 ** Math.min(failures, 7)) };
    }
    const ids = page.items.map((item) => item.id);
    if (number === 1) firstPage = ids;
    const seen = ids.length === 0 ? [] : await deps.db.selectFrom("seen_notifications").select("notification_id").where("telegram_id", "=", telegramId).where("notification_id", "in", ids).execute();
    const seenIds = new Set(seen.map((row) => row.notification_id));
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
      deps.logger.warn({ userId: telegramId, pages: number }, `no notification already seen in the newest ${MAX_POLL_PAGES} pages; the older ones are left unread`);
      break;
    }
    deps.metrics?.pollExtraPages.inc();
  }
  const alerts: Alert[] = [];
  const later = new Set<string>();
  if (target.primed) {
    for (const notification of [...fresh].reverse()) {
      const alert = await alertFor(deps, telegramId, client, notification);
      if (alert === "later") later.add(notification.id);
      else if (alert) alerts.push(alert);
    }
  }
  let rules: { active: boolean; checkedAt: number } | null = null;
  const aboutRules = target.primed && fresh.some((notification) => /automation|rule/.test(textOf(notification)));
  if (aboutRules || now - target.rulesCheckedAt >= RULE_RECHECK_MS) {
    try {
      await pace();
      const list = await client.listAutomations();
      rules = { active: list.some((rule) => rule.status.toLowerCase() === "active"), checkedAt: target.rulesCheckedAt };
    } catch (error) {
      deps.logger.debug({ userId: telegramId, kind: error instanceof MarketplaceError ? error.kind : "unexpected" }, "rule list not readable; read again at the next poll");
    }
  }
  const recorded = fresh.filter((item) => !later.has(item.id));
  return { telegramId, kind: "polled", seen: recorded.map((item) => item.id), alerts, firstPage: fresh.length > 0 ? firstPage : null, seenUntil: newSeenUntil(target.seenUntil, recorded, fresh.filter((item) => later.has(item.id))), rules };
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

/**
 * Records many users' outcomes in one transaction: notifications seen, alerts queued, poll state
 * (primed, back-off, the schedule: fast with its reason, or idle for `idleMs`) and, inside a
 * cycle, the user done for it with the lease let go. Returns the alerts queued. An outcome lost to
 * a crash before this commit is simply polled again.
 */
async function recordOutcomes(db: Kysely<Database>, outcomes: PollOutcome[], now: number, idleMs: number, cycle?: { owner: string; id: number }): Promise<number> {
  if (outcomes.length === 0) return 0;
  const done = cycle ? { last_cycle: cycle.id, lease_owner: null, lease_until: null } : {};
  return db.transaction().execute(async (trx) => {
    let queued = 0;
    const seenRows = outcomes.flatMap((outcome) => (outcome.kind === "polled" ? outcome.seen.map((id) => ({ telegram_id: outcome.telegramId, notification_id: id, seen_at: now })) : []));
    for (let start = 0; start < seenRows.length; start += 300) {
      await trx.insertInto("seen_notifications").values(seenRows.slice(start, start + 300)).onConflict((oc) => oc.doNothing()).execute();
    }
    // Only a page with something new can have pushed older notifications off it: the retention
    // of seen notifications costs nothing on the polls that find nothing new.
    for (const outcome of outcomes) {
      if (outcome.kind === "polled" && outcome.firstPage !== null) await forgetSeenOffFirstPage(trx, outcome.telegramId, outcome.firstPage, now - SEEN_NOTIFICATION_MS);
    }
    for (const outcome of outcomes) {
      if (outcome.kind !== "polled") continue;
      for (const alert of outcome.alerts) {
        if (await enqueueAlert(trx, { telegramId: outcome.telegramId, chatId: alert.chatId, dedupeKey: alert.key, payload: alert.payload, now })) queued += 1;
      }
    }
    for (const outcome of outcomes) {
      if (outcome.kind !== "polled") continue;
      if (outcome.seenUntil !== null) {
        await trx.updateTable("poll_state").set({ seen_until: outcome.seenUntil }).where("telegram_id", "=", outcome.telegramId).where((eb) => eb.or([eb("seen_until", "is", null), eb("seen_until", "<", outcome.seenUntil!)])).execute();
      }
      // Only against the rule state the list was read for: a rule created or resumed meanwhile wins.
      if (outcome.rules) {
        await trx.updateTable("poll_state").set({ rule_active: outcome.rules.active ? 1 : 0, rules_checked_at: now }).where("telegram_id", "=", outcome.telegramId).where("rules_checked_at", "=", outcome.rules.checkedAt).execute();
      }
    }
    const polled = outcomes.filter((outcome) => outcome.kind === "polled").map((outcome) => outcome.telegramId);
    const schedule = scheduleAfterPoll(now, idleMs);
    for (let start = 0; start < polled.length; start += 500) {
      await trx
        .updateTable("poll_state")
        .set({ primed: 1, failures: 0, ...schedule, ...done })
        .where("telegram_id", "in", polled.slice(start, start + 500))
        .$if(cycle !== undefined, (qb) => qb.where("lease_owner", "=", cycle!.owner))
        .execute();
    }
    for (const outcome of outcomes) {
      if (outcome.kind !== "failed") continue;
      await trx
        .updateTable("poll_state")
        .set({ failures: outcome.failures, next_poll_at: outcome.nextPollAt, ...done })
        .where("telegram_id", "=", outcome.telegramId)
        .$if(cycle !== undefined, (qb) => qb.where("lease_owner", "=", cycle!.owner))
        .execute();
    }
    const skipped = outcomes.filter((outcome) => outcome.kind === "skipped").map((outcome) => outcome.telegramId);
    if (cycle && skipped.length > 0) {
      await trx.updateTable("poll_state").set(done).where("telegram_id", "in", skipped).where("lease_owner", "=", cycle.owner).execute();
    }
    return queued;
  });
}

/** Forgets a user's notifications seen before `before` that are no longer on the first page. */
async function forgetSeenOffFirstPage(trx: Transaction<Database>, telegramId: number, firstPage: string[], before: number): Promise<void> {
  if (firstPage.length === 0) return;
  await trx.deleteFrom("seen_notifications").where("telegram_id", "=", telegramId).where("seen_at", "<", before).where("notification_id", "not in", firstPage).execute();
}

/** Polls one user now (at link time, to prime); queues the notifications not yet relayed. */
export async function pollUser(deps: PollerDeps, telegramId: number): Promise<number> {
  const [target] = await loadTargets(deps.db, [telegramId]);
  const outcome = await pollTarget(deps, target!);
  const queued = await recordOutcomes(deps.db, [outcome], deps.now(), deps.idleIntervalMs ?? DEFAULT_IDLE_INTERVAL_MS);
  if (queued > 0) deps.onQueued();
  return queued;
}

/**
 * Opens a poll cycle. Every replica's cron tick calls this with the tick's scheduled time, so the
 * first insert opens the cycle and the others find it open: a tick never starts two cycles. Users
 * linked without a poll_state row get one here (they are due in this cycle).
 */
export async function openPollCycle(db: Kysely<Database>, owner: string, id: number, now: number, options: { everyone?: boolean } = {}): Promise<number> {
  await db
    .insertInto("poll_cycles")
    .values({ id, opened_by: owner, opened_at: now, everyone: options.everyone ? 1 : 0 })
    .onConflict((oc) => oc.doNothing())
    .execute();
  await db
    .insertInto("poll_state")
    .columns(["telegram_id", "primed", "failures", "next_poll_at"])
    .expression((eb) =>
      eb
        .selectFrom("credentials as c")
        .select((e) => ["c.telegram_id", e.lit(0).as("primed"), e.lit(0).as("failures"), e.lit(0).as("next_poll_at")])
        .where((e) => e.not(e.exists(e.selectFrom("poll_state as s").select("s.telegram_id").whereRef("s.telegram_id", "=", "c.telegram_id")))),
    )
    .onConflict((oc) => oc.doNothing())
    .execute();
  return id;
}

/**
 * A cycle as the claims read it. A scheduled cycle covers the users due when it opened (fast ones,
 * idle ones whose interval has passed); users who become due while it runs wait for the next, so
 * a cycle always ends. An `everyone` cycle (on demand) covers every linked user whose back-off
 * has passed, whatever their schedule.
 */
export interface PollCycle {
  id: number;
  openedAt: number;
  everyone: boolean;
}

/** The cycle with this id (null when retention removed it: nobody is due in it any more). */
export async function findPollCycle(db: Kysely<Database>, id: number): Promise<PollCycle | null> {
  const row = await db.selectFrom("poll_cycles").select(["id", "opened_at", "everyone"]).where("id", "=", id).executeTakeFirst();
  return row ? { id: Number(row.id), openedAt: Number(row.opened_at), everyone: Number(row.everyone) === 1 } : null;
}

const asCycle = async (db: Kysely<Database>, cycle: number | PollCycle): Promise<PollCycle | null> => (typeof cycle === "number" ? findPollCycle(db, cycle) : cycle);

/** The newest cycle (the one replicas work on), or null before the first. */
export async function currentPollCycle(db: Kysely<Database>): Promise<number | null> {
  const row = await db.selectFrom("poll_cycles").select((eb) => eb.fn.max("id").as("id")).executeTakeFirst();
  return row?.id === null || row?.id === undefined ? null : Number(row.id);
}

/** A fresh cycle id after every existing one (an on-demand cycle: /play, tests, the benchmark). */
export async function nextPollCycleId(db: Kysely<Database>, wallNow: number): Promise<number> {
  const current = await currentPollCycle(db);
  return Math.max(wallNow, (current ?? 0) + 1);
}

/**
 * Claims up to `limit` users due in `cycle` (not yet polled in it, due by their schedule, nobody
 * holding them) with a lease. FOR UPDATE SKIP LOCKED on PostgreSQL: replicas claiming together take
 * disjoint users; the UPDATE repeats the conditions, so no user is held twice on either dialect.
 */
export async function claimUsersToPoll(db: Kysely<Database>, owner: string, cycleOrId: number | PollCycle, now: number, limit: number, leaseMs: number): Promise<number[]> {
  const cycle = await asCycle(db, cycleOrId);
  if (!cycle) return [];
  const pg = isPostgres(db);
  const rows = await db
    .updateTable("poll_state")
    .set({ lease_owner: owner, lease_until: now + leaseMs })
    .where((eb) => {
      const claim = usersDueIn(db, cycle, now)
        .where((e) => e.or([e("s.lease_until", "is", null), e("s.lease_until", "<", now)]))
        // In next_poll_at order on the (next_poll_at, last_cycle) index: the users still due come
        // first, and the idle majority (due later) and those done in this cycle (due from now on)
        // are never passed over.
        .orderBy("s.next_poll_at")
        .limit(limit)
        .$if(pg, (qb) => qb.forUpdate("s").skipLocked());
      // One evaluation on PostgreSQL: a LIMIT … SKIP LOCKED subquery under IN may be rescanned and return more than its limit.
      return pg ? eb("telegram_id", "=", sql<number>`any(array(${claim}))`) : eb("telegram_id", "in", claim);
    })
    .where("last_cycle", "<", cycle.id)
    .where((eb) => eb.or([eb("lease_until", "is", null), eb("lease_until", "<", now)]))
    .returning("telegram_id")
    .execute();
  return rows.map((row) => Number(row.telegram_id)).sort((a, b) => a - b);
}

/**
 * Works on one poll cycle with the other replicas: claims batches of due users until none is
 * left (the next batch is claimed while the current one is still being polled), polls each with
 * bounded concurrency and at most `ratePerSecond` marketplace requests per second from this
 * replica, and records the outcomes in group commits (one transaction for every user finished
 * meanwhile). Users a dead replica held come back when their lease runs out.
 */
export async function pollCycle(deps: PollerDeps, owner: string, cycleId: number, leaseMs = 60_000, signal?: AbortSignal): Promise<{ users: number; queued: number }> {
  const cycle = await findPollCycle(deps.db, cycleId);
  if (!cycle) return { users: 0, queued: 0 };
  const interval = 1000 / deps.ratePerSecond;
  const concurrency = deps.concurrency ?? 16;
  const batchSize = Math.max(concurrency * 2, 32);
  const idleMs = deps.idleIntervalMs ?? DEFAULT_IDLE_INTERVAL_MS;
  let polled = 0;
  let queued = 0;
  const started = Date.now();
  /** Request slots taken at the poll rate: one per user, and one per further page or rule list read. */
  let slots = 0;
  const pace = async () => {
    const wait = started + slots++ * interval - Date.now();
    if (wait > 0) await abortableSleep(wait, signal);
  };

  const queue: PollTarget[] = [];
  let exhausted = false;
  let claiming: Promise<void> | null = null;
  const refill = (): Promise<void> => {
    if (signal?.aborted) {
      exhausted = true;
      return Promise.resolve();
    }
    claiming ??= (async () => {
      try {
        const ids = await claimUsersToPoll(deps.db, owner, cycle, deps.now(), batchSize, leaseMs);
        if (ids.length === 0) exhausted = true;
        else queue.push(...(await loadTargets(deps.db, ids)));
      } catch (error) {
        deps.logger.warn({ err: error }, "could not claim users to poll; the rest of this cycle is left to the next tick");
        exhausted = true;
      } finally {
        claiming = null;
      }
    })();
    return claiming;
  };

  const pending: PollOutcome[] = [];
  let writing: Promise<void> | null = null;
  const commitGapMs = deps.commitGapMs ?? 25;
  let lastCommitAt = -Infinity;
  const write = (): Promise<void> => {
    writing ??= (async () => {
      // Let the outcomes finishing in this turn of the loop, and up to commitGapMs after the last
      // commit, join the same commit.
      await new Promise<void>((resolve) => scheduleCommit(lastCommitAt, commitGapMs, pending.length >= 256, resolve));
      while (pending.length > 0) {
        lastCommitAt = performance.now();
        const batch = pending.splice(0, 256);
        try {
          const added = await recordOutcomes(deps.db, batch, deps.now(), idleMs, { owner, id: cycle.id });
          queued += added;
          if (added > 0) deps.onQueued();
        } catch (error) {
          deps.logger.warn({ err: error, users: batch.length }, "could not record polls; those users' leases will run out and they are polled again");
        }
      }
      writing = null;
    })();
    return writing;
  };

  /** Users claimed but not polled when the cycle was stopped: their leases are let go at the end. */
  const unpolled: number[] = [];
  const worker = async () => {
    for (;;) {
      if (signal?.aborted) {
        exhausted = true;
        unpolled.push(...queue.splice(0).map((target) => target.telegramId));
        return;
      }
      if (queue.length < batchSize / 2 && !exhausted) void refill();
      const target = queue.shift();
      if (!target) {
        if (exhausted && !claiming) return;
        await (claiming ?? refill());
        continue;
      }
      await pace();
      if (signal?.aborted) {
        unpolled.push(target.telegramId);
        continue;
      }
      polled += 1;
      const outcome = await pollTarget(deps, target, pace).catch((error: unknown): PollOutcome => {
        deps.logger.warn({ err: error }, "notification poll of one user failed");
        return { telegramId: target.telegramId, kind: "skipped" };
      });
      pending.push(outcome);
      void write();
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  while (claiming) await claiming;
  unpolled.push(...queue.splice(0).map((target) => target.telegramId));
  while (writing || pending.length > 0) await (writing ?? write());
  if (unpolled.length > 0) {
    // Stopped: hand these users back now rather than when the lease runs out, so another
    // replica (or the next start) polls them in this cycle.
    await deps.db.updateTable("poll_state").set({ lease_owner: null, lease_until: null }).where("telegram_id", "in", unpolled).where("lease_owner", "=", owner).execute();
  }
  return { users: polled, queued };
}

function abortableSleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal?.aborted) return resolve();
    const done = () => {
      clearTimeout(timer);
      signal?.removeEventListener("abort", done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal?.addEventListener("abort", done, { once: true });
  });
}

/**
 * Whether the cycle still has users to poll: due in it, linked with a working key, active, and not
 * yet done in it, whether or not a replica holds them right now.
 */
export async function cycleHasUsersLeft(db: Kysely<Database>, cycleOrId: number | PollCycle, now: number): Promise<boolean> {
  const cycle = await asCycle(db, cycleOrId);
  if (!cycle) return false;
  const row = await usersDueIn(db, cycle, now).limit(1).executeTakeFirst();
  return row !== undefined;
}

/**
 * Whether this replica could claim a user of the cycle now: one left that nobody holds (or whose
 * holder's lease ran out). A cron tick works on the open cycle while this is true, so a slow cycle
 * is finished, not overtaken; once every user left is held by others (a replica finishing its last
 * batch, or one that stopped without handing them back), the tick opens the next cycle instead of
 * waiting on them, and they are polled in it once their holder lets go.
 */
export async function cycleHasClaimableUsers(db: Kysely<Database>, cycleOrId: number | PollCycle, now: number): Promise<boolean> {
  const cycle = await asCycle(db, cycleOrId);
  if (!cycle) return false;
  const row = await usersDueIn(db, cycle, now)
    .where((e) => e.or([e("s.lease_until", "is", null), e("s.lease_until", "<", now)]))
    .limit(1)
    .executeTakeFirst();
  return row !== undefined;
}

/** How many users are still to poll in the cycle (for /metrics). */
export async function countUsersLeftIn(db: Kysely<Database>, cycleOrId: number | PollCycle, now: number): Promise<number> {
  const cycle = await asCycle(db, cycleOrId);
  if (!cycle) return 0;
  const row = await db
    .selectFrom(usersDueIn(db, cycle, now).as("due"))
    .select((eb) => eb.fn.countAll<number>().as("n"))
    .executeTakeFirst();
  return Number(row?.n ?? 0);
}

/**
 * The users still to poll in `cycle`: linked with a working key, active, not done in it, and due:
 * in a scheduled cycle, by their schedule when it opened (next_poll_at: the next cycle for a fast
 * user, POLL_IDLE_INTERVAL later for an idle one, or the end of a back-off); in an `everyone`
 * cycle, unless backing off.
 */
function usersDueIn(db: Kysely<Database>, cycle: PollCycle, now: number) {
  return db
    .selectFrom("poll_state as s")
    .innerJoin("credentials as c", "c.telegram_id", "s.telegram_id")
    .innerJoin("users as u", "u.telegram_id", "s.telegram_id")
    .select("s.telegram_id")
    .where("c.broken_at", "is", null)
    .where("u.active", "=", 1)
    .where("s.last_cycle", "<", cycle.id)
    .$if(!cycle.everyone, (qb) => qb.where("s.next_poll_at", "<=", cycle.openedAt))
    .$if(cycle.everyone, (qb) => qb.where((eb) => eb.or([eb("s.failures", "=", 0), eb("s.next_poll_at", "<=", now)])));
}

/** One on-demand poll cycle over every active linked user whose back-off has passed, whatever their schedule (single-replica helper). */
export async function pollAll(deps: PollerDeps, owner = "local"): Promise<{ users: number; queued: number }> {
  const cycle = await openPollCycle(deps.db, owner, await nextPollCycleId(deps.db, Date.now()), deps.now(), { everyone: true });
  return pollCycle(deps, owner, cycle);
}

/**
 * Gives back every user this replica holds a poll lease on (a clean stop, after its polls were
 * stopped), so another replica or the next start polls them at once instead of after the lease.
 * A poll still in flight then records nothing (its outcome is fenced by the lease); its user is
 * simply polled again, and the outbox's dedupe keys keep that to one alert per notification.
 */
export async function releasePollLeases(db: Kysely<Database>, owner: string): Promise<number> {
  const result = await db.updateTable("poll_state").set({ lease_owner: null, lease_until: null }).where("lease_owner", "=", owner).executeTakeFirst();
  return Number(result.numUpdatedRows);
}

/**
 * Deletes up to `limit` poll cycles opened before `before`, never the newest (the one replicas
 * work on and the next id counts from). Returns how many went.
 */
export async function deletePollCyclesBefore(db: Kysely<Database>, before: number, limit: number): Promise<number> {
  const newest = await currentPollCycle(db);
  if (newest === null) return 0;
  const result = await db
    .deleteFrom("poll_cycles")
    .where("id", "in", (eb) => eb.selectFrom("poll_cycles").select("id").where("id", "<", newest).where("opened_at", "<", before).limit(limit))
    .executeTakeFirst();
  return Number(result.numDeletedRows);
}
