import type { Kysely } from "kysely";
import type { FollowerDeps } from "./order-follower";
import type { Database } from "../db/schema";
import { findCredential, markKeyBroken, openApiKey } from "../db/repos/credentials";
import { MarketplaceError, type MarketplaceClient, type Notification } from "../marketplace";
import { finalState, notificationAlert, recipientFor, rulePausedAlert, settlementAlert, settlementKey } from "./alerts";
import { isPostgres } from "../db/dialect";
import { enqueueAlert, type OutboxPayload } from "./outbox";

export interface PollerDeps extends FollowerDeps {
  /** Marketplace requests per second the poller may make. */
  ratePerSecond: number;
  concurrency?: number;
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

/** Builds the alert for one notification and its dedupe key (settlements share the order's key). */
async function alertFor(deps: PollerDeps, telegramId: number, client: MarketplaceClient, notification: Notification): Promise<{ key: string; payload: OutboxPayload } | null> {
  const text = textOf(notification);
  const id = UUID.exec(`${notification.link ?? ""} ${notification.body} ${notification.title}`)?.[0];
  const now = deps.now();
  if (text.includes("order") && id && /fill|fail|settle|deliver|refund/.test(text)) {
    const recipient = await recipientFor(deps.db, deps.translations, telegramId, "orders");
    if (!recipient) return null;
    try {
      const order = await client.getOrder(id);
      const state = finalState(order.status);
      if (state) return { key: settlementKey(order.id, state), payload: settlementAlert(recipient, order, state) };
    } catch {
      // fall through to the notification's own words
    }
    return { key: `notification:${notification.id}`, payload: notificationAlert(recipient, notification) };
  }
  if (/pause/.test(text) && /automation|rule|refill|renewal|smart/.test(`${text} ${notification.body.toLowerCase()}`)) {
    const recipient = await recipientFor(deps.db, deps.translations, telegramId, "rules");
    if (!recipient) return null;
    const ruleId = id ?? (await findPausedRule(client, notification));
    return { key: `notification:${notification.id}`, payload: await rulePausedAlert(deps.db, recipient, ruleId, `${notification.title}: ${notification.body}`, now) };
  }
  const kind = /deposit|top.?up|credit/.test(text) ? "deposits" : "other";
  const recipient = await recipientFor(deps.db, deps.translations, telegramId, kind);
  if (!recipient) return null;
  return { key: `notification:${notification.id}`, payload: notificationAlert(recipient, notification) };
}

/** Polls one user's newest notifications page; queues those not yet relayed. Never marks them read at the marketplace. */
export async function pollUser(deps: PollerDeps, telegramId: number): Promise<number> {
  const credential = await findCredential(deps.db, telegramId);
  if (!credential || credential.broken_at) return 0;
  const state = await deps.db.selectFrom("poll_state").selectAll().where("telegram_id", "=", telegramId).executeTakeFirst();
  let client: MarketplaceClient;
  try {
    const apiKey = openApiKey(deps.box, credential);
    client = deps.marketplace(() => apiKey);
  } catch {
    return 0;
  }
  const now = deps.now();
  let page;
  try {
    page = await client.notifications({ page: 1 });
  } catch (error) {
    if (error instanceof MarketplaceError && (error.kind === "unauthorized" || error.kind === "forbidden")) {
      await markKeyBroken(deps.db, telegramId, now);
    }
    const failures = (state?.failures ?? 0) + 1;
    await deps.db
      .insertInto("poll_state")
      .values({ telegram_id: telegramId, primed: state?.primed ?? 0, failures, next_poll_at: now + Math.min(30 * 60_000, 15_000 * 2 ** Math.min(failures, 7)) })
      .onConflict((oc) => oc.column("telegram_id").doUpdateSet({ failures, next_poll_at: now + Math.min(30 * 60_000, 15_000 * 2 ** Math.min(failures, 7)) }))
      .execute();
    return 0;
  }
  const ids = page.items.map((item) => item.id);
  const seen = ids.length === 0 ? [] : await deps.db.selectFrom("seen_notifications").select("notification_id").where("telegram_id", "=", telegramId).where("notification_id", "in", ids).execute();
  const seenIds = new Set(seen.map((row) => row.notification_id));
  const fresh = page.items.filter((item) => !seenIds.has(item.id));
  const primed = state?.primed === 1;
  const alerts: Array<{ key: string; payload: OutboxPayload } | null> = [];
  if (primed) for (const notification of [...fresh].reverse()) alerts.push(await alertFor(deps, telegramId, client, notification));
  const recipientChat = (await deps.db.selectFrom("users").select("chat_id").where("telegram_id", "=", telegramId).executeTakeFirst())?.chat_id;
  let queued = 0;
  await deps.db.transaction().execute(async (trx) => {
    for (const notification of fresh) {
      await trx.insertInto("seen_notifications").values({ telegram_id: telegramId, notification_id: notification.id, seen_at: now }).onConflict((oc) => oc.doNothing()).execute();
    }
    for (const alert of alerts) {
      if (!alert || recipientChat === undefined) continue;
      if (await enqueueAlert(trx, { telegramId, chatId: recipientChat, dedupeKey: alert.key, payload: alert.payload, now })) queued += 1;
    }
    await trx
      .insertInto("poll_state")
      .values({ telegram_id: telegramId, primed: 1, failures: 0, next_poll_at: now })
      .onConflict((oc) => oc.column("telegram_id").doUpdateSet({ primed: 1, failures: 0, next_poll_at: now }))
      .execute();
  });
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
    .where("telegram_id", "in", (eb) =>
      eb
        .selectFrom("poll_state as s")
        .innerJoin("credentials as c", "c.telegram_id", "s.telegram_id")
        .innerJoin("users as u", "u.telegram_id", "s.telegram_id")
        .select("s.telegram_id")
        .where("c.broken_at", "is", null)
        .where("u.active", "=", 1)
        .where("s.last_cycle", "<", cycle)
        .where("s.next_poll_at", "<=", now)
        .where((e) => e.or([e("s.lease_until", "is", null), e("s.lease_until", "<", now)]))
        .orderBy("s.telegram_id")
        .limit(limit)
        .$if(pg, (qb) => qb.forUpdate("s").skipLocked()),
    )
    .where("last_cycle", "<", cycle)
    .where((eb) => eb.or([eb("lease_until", "is", null), eb("lease_until", "<", now)]))
    .returning("telegram_id")
    .execute();
  return rows.map((row) => Number(row.telegram_id)).sort((a, b) => a - b);
}

/** Marks a claimed user as done for the cycle and lets go of the lease. */
async function finishUser(db: Kysely<Database>, owner: string, telegramId: number, cycle: number): Promise<void> {
  await db.updateTable("poll_state").set({ last_cycle: cycle, lease_owner: null, lease_until: null }).where("telegram_id", "=", telegramId).where("lease_owner", "=", owner).execute();
}

/**
 * Works on one poll cycle with the other replicas: claims batches of due users until none is
 * left, polling each with bounded concurrency and at most `ratePerSecond` marketplace requests
 * per second from this replica. Users a dead replica held come back when their lease runs out.
 */
export async function pollCycle(deps: PollerDeps, owner: string, cycle: number, leaseMs = 60_000): Promise<{ users: number; queued: number }> {
  const interval = 1000 / deps.ratePerSecond;
  const concurrency = deps.concurrency ?? 16;
  let polled = 0;
  let queued = 0;
  const started = Date.now();
  for (;;) {
    const batch = await claimUsersToPoll(deps.db, owner, cycle, deps.now(), Math.max(concurrency * 4, 32), leaseMs);
    if (batch.length === 0) break;
    let next = 0;
    const worker = async () => {
      while (next < batch.length) {
        const telegramId = batch[next++]!;
        const wait = started + polled++ * interval - Date.now();
        if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
        queued += await pollUser(deps, telegramId).catch((error: unknown) => {
          deps.logger.warn({ err: error }, "notification poll of one user failed");
          return 0;
        });
        await finishUser(deps.db, owner, telegramId, cycle).catch((error: unknown) => deps.logger.warn({ err: error }, "could not record a poll as done; the user's lease will run out"));
      }
    };
    await Promise.all(Array.from({ length: Math.min(concurrency, batch.length) }, worker));
  }
  return { users: polled, queued };
}

/** One on-demand poll cycle over every active linked user whose back-off has passed (single-replica helper). */
export async function pollAll(deps: PollerDeps, owner = "local"): Promise<{ users: number; queued: number }> {
  const cycle = await openPollCycle(deps.db, owner, await nextPollCycleId(deps.db, Date.now()), deps.now());
  return pollCycle(deps, owner, cycle);
}
