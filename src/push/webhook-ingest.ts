import { timingSafeEqual } from "node:crypto";
import type { Kysely, Transaction } from "kysely";
import type { Database } from "#src/db/schema";
import type { User } from "#src/db/repos/users";
import type { Logger } from "#src/logger";
import type { Metrics } from "#src/metrics";
import { settlementAlert, settlementKey, type Recipient, type Translations } from "#src/chat/alerts";
import { scheduleCommit } from "#src/db/write-batcher";
import { isDatabaseUnreachable } from "#src/db/health";
import { markUsersInMotion } from "#src/db/repos/poll-schedule";
import { enqueueAlerts, enqueueGroupAlerts, type QueuedAlert } from "#src/db/repos/outbox";
import { groupLinksOf } from "#src/db/repos/group-links";
import { recordWebhookEvents } from "#src/db/repos/webhook-events";
import { buyAgainRefs } from "#src/db/repos/buy-again-refs";
import { findTokenOwners } from "#src/db/repos/webhook-tokens";
import { recordRentals, rentalOf } from "#src/db/repos/rental-ends";
import type { UnknownTokenLimiter } from "./unknown-token-limit";
import { recipientOf } from "./recipients";
import { groupAlertOf, groupRecipientOf } from "./group-copies";
import type { Verdict } from "./webhook-payload";

// Marketplace webhooks stored in group commits: requests arriving together share one token lookup and one transaction.

export interface WebhookReceiverDeps {
  db: Kysely<Database>;
  logger: Logger;
  translations: Translations;
  now: () => number;
  secret?: string;
  signatureHeader: string;
  onQueued: () => void;
  /** Most requests one group commit carries (default 512). */
  maxBatch?: number;
  /** Counts unknown tokens per client address (default: UNKNOWN_TOKEN_LIMIT, in this process). */
  unknownTokens?: UnknownTokenLimiter;
  /** Counts the requests the unknown-token limit refused. */
  metrics?: Metrics;
  /**
   * Least time between the starts of two group commits, in ms (default 3). Each commit is an
   * fsync that holds the event loop; spacing them lets a busy stream share one, while a lone
   * request after a quiet spell still commits on the next turn of the loop.
   */
  commitGapMs?: number;
}

export type Outcome = { status: 200 | 400 | 401 | 404 | 413 | 422; body: Record<string, unknown> };

interface Pending {
  tokenHash: string;
  verdict: Verdict;
  resolve(outcome: Outcome): void;
  reject(error: unknown): void;
}

const OUTBOX_CHUNK = 200;

type TokenOwner = Awaited<ReturnType<typeof findTokenOwners>>[number];

/**
 * Group commit. Requests arriving together share one token lookup and one transaction: their dedupe
 * keys and alerts are written with multi-row inserts, and every request is answered only after
 * the transaction holding its rows has committed (with synchronous=FULL, after the fsync). While a
 * batch commits, the next one gathers; commits start at least `commitGapMs` apart, so a lone
 * request waits at most that long (and only for the next turn of the loop after a quiet spell).
 */
export class IngestBatcher {
  private pending: Pending[] = [];
  private flushing = false;
  private scheduled = false;
  private readonly maxBatch: number;
  private readonly commitGapMs: number;
  private lastCommitAt = -Infinity;

  constructor(private readonly deps: WebhookReceiverDeps) {
    this.maxBatch = deps.maxBatch ?? 512;
    this.commitGapMs = deps.commitGapMs ?? 3;
  }

  submit(tokenHash: string, verdict: Verdict): Promise<Outcome> {
    return new Promise<Outcome>((resolve, reject) => {
      this.pending.push({ tokenHash, verdict, resolve, reject });
      this.kick();
    });
  }

  private kick(): void {
    if (this.flushing || this.scheduled || this.pending.length === 0) return;
    this.scheduled = true;
    scheduleCommit(this.lastCommitAt, this.commitGapMs, this.pending.length >= this.maxBatch, () => {
      this.scheduled = false;
      void this.flush();
    });
  }

  private async flush(): Promise<void> {
    if (this.flushing) return;
    this.flushing = true;
    this.lastCommitAt = performance.now();
    const batch = this.pending.splice(0, this.maxBatch);
    try {
      await this.process(batch);
    } catch (error) {
      if (batch.length === 1 || isDatabaseUnreachable(error)) {
        // Alone, or the database is gone for all of them: nothing to gain from retrying one by one.
        for (const item of batch) item.reject(error);
      } else {
        // One bad row must not fail its neighbours: retry each request in a batch of its own.
        this.deps.logger.warn(
          { err: error, size: batch.length },
          "webhook group commit failed; retrying its requests one by one",
        );
        for (const item of batch) {
          try {
            await this.process([item]);
          } catch (single) {
            item.reject(single);
          }
        }
      }
    } finally {
      this.flushing = false;
      this.kick();
    }
  }

  private async process(batch: Pending[]): Promise<void> {
    const { db, logger } = this.deps;
    const owners = await findTokenOwners(db, [...new Set(batch.map((item) => item.tokenHash))]);
    const { outcomes, events } = sortRequests(this.deps, batch, new Map(owners.map((row) => [row.token_hash, row])));
    let queued = 0;
    if (events.length > 0) {
      const counts = { fresh: 0, duplicate: 0, muted: 0, alreadyAlerted: 0 };
      queued = await db
        .transaction()
        .execute((trx) => storeEvents(trx, events, outcomes, counts, this.deps.now, this.deps.translations));
      // One line per batch at info (per event at debug): cheap at thousands of events a second.
      logger.info({ events: events.length, ...counts, queued }, "marketplace webhooks stored");
      if (logger.isLevelEnabled("debug")) {
        for (const event of events) {
          const verdict = event.item.verdict as Extract<Verdict, { kind: "settlement" }>;
          logger.debug(
            {
              userId: event.telegramId,
              event: verdict.name,
              orderId: verdict.orderId,
              duplicate: outcomes.get(event.item)?.body.duplicate === true,
            },
            "marketplace webhook stored",
          );
        }
      }
    }
    for (const item of batch) item.resolve(outcomes.get(item) ?? { status: 200, body: { ok: true } });
    if (queued > 0) this.deps.onQueued();
  }
}

/** A settlement to store, from a known token, with the chat its alert goes to (null: muted or inactive). */
type StoredEvent = { item: Pending; telegramId: number; key: string; recipient: Recipient | null; user: User | null };

/**
 * Answers the requests that need no write (unknown token, rejected, ignored, a second copy in the
 * batch) and returns the settlements to store.
 */
function sortRequests(
  deps: WebhookReceiverDeps,
  batch: Pending[],
  byHash: Map<string, TokenOwner>,
): { outcomes: Map<Pending, Outcome>; events: StoredEvent[] } {
  const { logger, translations } = deps;
  const outcomes = new Map<Pending, Outcome>();
  const events: StoredEvent[] = [];
  const claimedKeys = new Set<string>();
  for (const item of batch) {
    const row = byHash.get(item.tokenHash);
    if (!row || !timingSafeEqual(Buffer.from(row.token_hash, "hex"), Buffer.from(item.tokenHash, "hex"))) {
      outcomes.set(item, { status: 404, body: { error: "unknown token" } });
      continue;
    }
    const telegramId = Number(row.owner);
    const verdict = item.verdict;
    if (verdict.kind === "reject") {
      if (verdict.status === 422)
        logger.warn({ userId: telegramId }, "marketplace webhook without a recognisable event; nothing queued");
      outcomes.set(item, { status: verdict.status, body: { error: verdict.error } });
      continue;
    }
    if (verdict.kind === "ignored") {
      logger.info(
        { userId: telegramId, event: verdict.event },
        "marketplace webhook event acknowledged without an alert",
      );
      outcomes.set(item, { status: 200, body: { ok: true, ignored: true } });
      continue;
    }
    const key = `${telegramId}:${verdict.dedupeKey}`;
    if (claimedKeys.has(key)) {
      // The same event twice in one batch: the first copy is stored, this one is a duplicate.
      outcomes.set(item, { status: 200, body: { ok: true, duplicate: true } });
      continue;
    }
    claimedKeys.add(key);
    const user = row.telegram_id === null ? null : (row as unknown as User);
    const recipient = recipientOf(translations, telegramId, user, "orders");
    events.push({ item, telegramId, key, recipient, user });
  }
  return { outcomes, events };
}

/**
 * Inside the batch's transaction: the events' dedupe keys, their alerts (one per user and
 * settlement), and their users' polls made fast. Sets each event's outcome; returns the alerts queued.
 */
async function storeEvents(
  trx: Transaction<Database>,
  events: StoredEvent[],
  outcomes: Map<Pending, Outcome>,
  counts: Record<"fresh" | "duplicate" | "muted" | "alreadyAlerted", number>,
  now: () => number,
  translations: Translations,
): Promise<number> {
  const fresh = await recordWebhookEvents(
    trx,
    events.map((event) => ({
      dedupe_key: event.key,
      received_at: (event.item.verdict as { receivedAt: number }).receivedAt,
    })),
    OUTBOX_CHUNK,
  );
  const alerts: Array<{
    event: StoredEvent;
    alertKey: string;
    verdict: Extract<Verdict, { kind: "settlement" }>;
    at: number;
  }> = [];
  const alertKeys = new Set<string>();
  for (const event of events) {
    const verdict = event.item.verdict as Extract<Verdict, { kind: "settlement" }>;
    if (!fresh.has(event.key)) {
      counts.duplicate += 1;
      outcomes.set(event.item, { status: 200, body: { ok: true, duplicate: true } });
      continue;
    }
    counts.fresh += 1;
    outcomes.set(event.item, { status: 200, body: { ok: true, duplicate: false } });
    if (!event.recipient) {
      counts.muted += 1;
      continue;
    }
    const alertKey = settlementKey(verdict.orderId, verdict.state);
    const pair = `${event.telegramId}:${alertKey}`;
    if (alertKeys.has(pair)) {
      counts.alreadyAlerted += 1;
      continue;
    }
    alertKeys.add(pair);
    alerts.push({ event, alertKey, verdict, at: verdict.receivedAt });
  }
  // Buy again under each private alert: the batch's references made together (a few statements, not a few per alert).
  const buyAgain = await buyAgainRefs(
    trx,
    alerts.map((alert) => ({ telegramId: alert.event.telegramId, orderId: alert.verdict.orderId })),
    now(),
  );
  const payloads = alerts.map((alert, index) =>
    JSON.stringify(settlementAlert(alert.event.recipient!, alert.verdict.facts, alert.verdict.state, buyAgain[index])),
  );
  let queued = 0;
  for (let start = 0; start < alerts.length; start += OUTBOX_CHUNK) {
    const chunk = alerts.slice(start, start + OUTBOX_CHUNK);
    queued += await enqueueAlerts(
      trx,
      chunk.map((alert, index) => ({
        telegramId: alert.event.telegramId,
        chatId: alert.event.recipient!.chatId,
        dedupeKey: alert.alertKey,
        payload: payloads[start + index]!,
        at: alert.at,
      })),
    );
  }
  counts.alreadyAlerted += alerts.length - queued;
  queued += await queueGroupCopies(trx, events, outcomes, translations);
  await recordFilledRentals(trx, events, outcomes, now());
  // An order of theirs is moving: their notifications are read every cycle for a while.
  await markUsersInMotion(
    trx,
    events.map((event) => event.telegramId),
    "order",
    now(),
  );
  return queued;
}

/** Filled orders' rentals of the batch's fresh events, for the "ends" alert (its own switch, whatever the order alerts say). */
async function recordFilledRentals(
  trx: Transaction<Database>,
  events: StoredEvent[],
  outcomes: Map<Pending, Outcome>,
  now: number,
): Promise<void> {
  await recordRentals(
    trx,
    events.flatMap((event) => {
      const verdict = event.item.verdict as Extract<Verdict, { kind: "settlement" }>;
      const fresh = outcomes.get(event.item)?.body.duplicate === false;
      return fresh && verdict.state === "filled" ? [rentalOf(event.telegramId, verdict.facts)] : [];
    }),
    now,
  );
}

/** Team alerts: the copies of the batch's fresh settlements into their owners' groups (one per event in each group). */
async function queueGroupCopies(
  trx: Transaction<Database>,
  events: StoredEvent[],
  outcomes: Map<Pending, Outcome>,
  translations: Translations,
): Promise<number> {
  const fresh = events.filter((event) => event.user && outcomes.get(event.item)?.body.duplicate === false);
  if (fresh.length === 0) return 0;
  const links = await groupLinksOf(
    trx,
    fresh.map((event) => event.telegramId),
  );
  if (links.size === 0) return 0;
  const copies: QueuedAlert[] = [];
  for (const event of fresh) {
    const verdict = event.item.verdict as Extract<Verdict, { kind: "settlement" }>;
    const recipient = groupRecipientOf(
      translations,
      event.telegramId,
      event.user,
      links.get(event.telegramId),
      verdict.state,
    );
    if (recipient)
      copies.push(
        groupAlertOf(
          recipient,
          settlementKey(verdict.orderId, verdict.state),
          settlementAlert(recipient, verdict.facts, verdict.state),
          verdict.receivedAt,
        ),
      );
  }
  return enqueueGroupAlerts(trx, copies);
}
