import { sql, type Kysely, type Transaction } from "kysely";
import type { FollowerDeps } from "./order-follower";
import type { Database } from "../db/schema";
import { scheduleCommit } from "../db/write-batcher";
import { openApiKey, type Credential } from "../db/repos/credentials";
import { MarketplaceError, type MarketplaceClient, type Notification } from "../marketplace";
import { finalState, notificationAlert, recipientFor, rulePausedAlert, settlementAlert, settlementKey } from "./alerts";
import { isPostgres } from "../db/dialect";
import { enqueueAlert, type OutboxPayload } from "./outbox";
import { recordBrokenKey } from "./broken-key";

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
}

const UUID = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/i;

function textOf(notification: Notification): string {
  return `${notification.type} ${notification.title}`.toLowerCase();
}

/** Records a user's existing notifications as seen (at link time), so they are not replayed as alerts. */
export async function primeNotifications(deps: PollerDeps, telegramId: number): Promise<void> {
  const now = deps.now();
  await deps.db.insertInto("poll_state").values({ telegram_id: telegramId, primed: 0, failures: 0, next_poll_at: now }).onConflict((oc) => oc.column("telegram_id").doUpdateSet({ primed: 0, failures: 0, next_poll_at: now })).execute();
  await pollUser(deps, telegramId).catch((error: unknown) => deps.logger.warn({ err: error, userId: telegramId }, "priming notifications failed; the first poll will do it"));
}

/**
 * A pause notification may not name its rule: pick the System-paused rule whose target the text
 * mentions (else the most recently updated one), so the alert's Resume button can act on it.
 */
async function findPausedRule(client: MarketplaceClient, notification: Notification): Promise<string | null> {
  try {
    const paused = (await client.listAutomations()).filter((rule) => rule.status.toLowerCase() === "paused" && (rule.pauseReason ?? "").toLowerCase() === "system");
    const text = `${notification.title} ${notification.body}`;
    const byTarget = paused.filter((rule) => text.includes(rule.targetAddress));
    const candidates = byTarget.length > 0 ? byTarget : paused;
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
}

/**
 * How long after it was first seen a notification is remembered once it has left the first page.
 * The poller reads only that page, so a notification pushed off it cannot come back, and one still
 * on it is never forgotten, however old (it would be relayed again).
 */
export const SEEN_NOTIFICATION_MS = 4 * 86_400_000;

/** The outcome of polling one user, written later together with other users' outcomes. */
type PollOutcome =
  | { telegramId: number; kind: "skipped" }
  /** firstPage: the ids on the page now, when it changed (something new arrived); else null. */
  | { telegramId: number; kind: "polled"; seen: string[]; alerts: Alert[]; firstPage: string[] | null }
  | { telegramId: number; kind: "failed"; failures: number; nextPollAt: number };

async function loadTargets(db: Kysely<Database>, telegramIds: number[]): Promise<PollTarget[]> {
  if (telegramIds.length === 0) return [];
  const states = await db.selectFrom("poll_state").select(["telegram_id", "primed", "failures"]).where("telegram_id", "in", telegramIds).execute();
  const credentials = await db.selectFrom("credentials").selectAll().where("telegram_id", "in", telegramIds).execute();
  const stateOf = new Map(states.map((row) => [Number(row.telegram_id), row]));
  const credentialOf = new Map(credentials.map((row) => [Number(row.telegram_id), row]));
  return telegramIds.map((telegramId) => ({
    telegramId,
    credential: credentialOf.get(telegramId) ?? null,
    primed: stateOf.get(telegramId)?.primed === 1,
    failures: Number(stateOf.get(telegramId)?.failures ?? 0),
  }));
}

/**
 * Fetches one user's newest notifications page and works out what to record: the ids not seen
 * before and, once the user is primed, the alerts they make. Writes nothing but a broken key mark;
 * the outcome is recorded by {@link recordOutcomes}. Never marks anything read at the marketplace.
 */
async function pollTarget(deps: PollerDeps, target: PollTarget): Promise<PollOutcome> {
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
  let page;
  try {
    page = await client.notifications({ page: 1 });
  } catch (error) {
    if (error instanceof MarketplaceError && (error.kind === "unauthorized" || error.kind === "forbidden")) {
      // Revoked: told once, and no longer claimed for polling until the user links again.
      if (await recordBrokenKey(deps.db, deps.translations, telegramId, now)) deps.onQueued();
      deps.logger.info({ userId: telegramId, kind: error.kind }, "marketplace refused a user's key while polling; marked broken, polling stops until they link again");
      return { telegramId, kind: "skipped" };
    }
    deps.logger.debug({ userId: telegramId, err: error }, "notification poll failed; backing off");
    const failures = target.failures + 1;
    return { telegramId, kind: "failed", failures, nextPollAt: now + Math.min(30 * 60_000, 15_000 * 2 ** Math.min(failures, 7)) };
  }
  const ids = page.items.map((item) => item.id);
  const seen = ids.length === 0 ? [] : await deps.db.selectFrom("seen_notifications").select("notification_id").where("telegram_id", "=", telegramId).where("notification_id", "in", ids).execute();
  const seenIds = new Set(seen.map((row) => row.notification_id));
  const fresh = page.items.filter((item) => !seenIds.has(item.id));
  const alerts: Alert[] = [];
  const later = new Set<string>();
  if (target.primed) {
    for (const notification of [...fresh].reverse()) {
      const alert = await alertFor(deps, telegramId, client, notification);
      if (alert === "later") later.add(notification.id);
      else if (alert) alerts.push(alert);
    }
  }
  return { telegramId, kind: "polled", seen: fresh.filter((item) => !later.has(item.id)).map((item) => item.id), alerts, firstPage: fresh.length > 0 ? ids : null };
}

/**
 * Records many users' outcomes in one transaction: notifications seen, alerts queued, poll state
 * (primed, back-off) and, inside a cycle, the user done for it with the lease let go. Returns the
 * alerts queued. An outcome lost to a crash before this commit is simply polled again.
 */
async function recordOutcomes(db: Kysely<Database>, outcomes: PollOutcome[], now: number, cycle?: { owner: string; id: number }): Promise<number> {
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
    const polled = outcomes.filter((outcome) => outcome.kind === "polled").map((outcome) => outcome.telegramId);
    for (let start = 0; start < polled.length; start += 500) {
      await trx
        .updateTable("poll_state")
        .set({ primed: 1, failures: 0, next_poll_at: now, ...done })
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
  const queued = await recordOutcomes(deps.db, [outcome], deps.now());
  if (queued > 0) deps.onQueued();
  return queued;
}

/**
 * Opens a poll cycle. Every replica's cron tick calls this with the tick's scheduled time, so the
 * first insert opens the cycle and the others find it open: a tick never starts two cycles. Users
 * linked without a poll_state row get one here (they are due in this cycle).
 */
export async function openPollCycle(db: Kysely<Database>, owner: string, id: number, now: number): Promise<number> {
  await db.insertInto("poll_cycles").values({ id, opened_by: owner, opened_at: now }).onConflict((oc) => oc.doNothing()).execute();
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
 * Claims up to `limit` users due in `cycle` (not yet polled in it, back-off passed, nobody holding
 * them) with a lease. FOR UPDATE SKIP LOCKED on PostgreSQL: replicas claiming together take
 * disjoint users; the UPDATE repeats the conditions, so no user is held twice on either dialect.
 */
export async function claimUsersToPoll(db: Kysely<Database>, owner: string, cycle: number, now: number, limit: number, leaseMs: number): Promise<number[]> {
  const pg = isPostgres(db);
  const rows = await db
    .updateTable("poll_state")
    .set({ lease_owner: owner, lease_until: now + leaseMs })
    .where((eb) => {
      const claim = usersDueIn(db, cycle, now)
        .where((e) => e.or([e("s.lease_until", "is", null), e("s.lease_until", "<", now)]))
        // No ORDER BY: the (last_cycle, next_poll_at) index then reaches the users still due
        // directly, instead of a scan past every user already done in this cycle.
        .limit(limit)
        .$if(pg, (qb) => qb.forUpdate("s").skipLocked());
      // One evaluation on PostgreSQL: a LIMIT … SKIP LOCKED subquery under IN may be rescanned and return more than its limit.
      return pg ? eb("telegram_id", "=", sql<number>`any(array(${claim}))`) : eb("telegram_id", "in", claim);
    })
    .where("last_cycle", "<", cycle)
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
export async function pollCycle(deps: PollerDeps, owner: string, cycle: number, leaseMs = 60_000, signal?: AbortSignal): Promise<{ users: number; queued: number }> {
  const interval = 1000 / deps.ratePerSecond;
  const concurrency = deps.concurrency ?? 16;
  const batchSize = Math.max(concurrency * 2, 32);
  let polled = 0;
  let queued = 0;
  const started = Date.now();

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
          const added = await recordOutcomes(deps.db, batch, deps.now(), { owner, id: cycle });
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
      const wait = started + polled++ * interval - Date.now();
      if (wait > 0) await abortableSleep(wait, signal);
      if (signal?.aborted) {
        polled -= 1;
        unpolled.push(target.telegramId);
        continue;
      }
      const outcome = await pollTarget(deps, target).catch((error: unknown): PollOutcome => {
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
 * Whether the cycle still has users to poll: due (back-off passed), linked with a working key,
 * active, and not yet done in it, whether or not a replica holds them right now. A cron tick
 * opens no new cycle while this is true, so a slow cycle is finished, not overtaken.
 */
export async function cycleHasUsersLeft(db: Kysely<Database>, cycle: number, now: number): Promise<boolean> {
  const row = await usersDueIn(db, cycle, now).limit(1).executeTakeFirst();
  return row !== undefined;
}

/** The users still to poll in `cycle`: linked with a working key, active, not done in it, back-off passed. */
function usersDueIn(db: Kysely<Database>, cycle: number, now: number) {
  return db
    .selectFrom("poll_state as s")
    .innerJoin("credentials as c", "c.telegram_id", "s.telegram_id")
    .innerJoin("users as u", "u.telegram_id", "s.telegram_id")
    .select("s.telegram_id")
    .where("c.broken_at", "is", null)
    .where("u.active", "=", 1)
    .where("s.last_cycle", "<", cycle)
    .where("s.next_poll_at", "<=", now);
}

/** One on-demand poll cycle over every active linked user whose back-off has passed (single-replica helper). */
export async function pollAll(deps: PollerDeps, owner = "local"): Promise<{ users: number; queued: number }> {
  const cycle = await openPollCycle(deps.db, owner, await nextPollCycleId(deps.db, Date.now()), deps.now());
  return pollCycle(deps, owner, cycle);
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
