import { createHmac, timingSafeEqual } from "node:crypto";
import type { Context, Hono } from "hono";
import type { Kysely } from "kysely";
import { z } from "zod";
import type { Database } from "../db/schema";
import { alertEnabled, type User } from "../db/repos/users";
import { hashToken } from "../security/secret-box";
import type { Logger } from "../logger";
import type { Metrics } from "../metrics";
import type { ServerEnv } from "../server/create-server";
import { recipientLanguage, settlementAlert, settlementKey, type FinalState, type OrderFacts, type Recipient, type Translations } from "../chat/alerts";
import { scheduleCommit } from "../db/write-batcher";
import { clientAddress } from "../server/client-address";
import { UnknownTokenLimiter } from "./unknown-token-limit";
import { markUsersInMotion } from "../db/repos/poll-schedule";
import { enqueueAlerts } from "../db/repos/outbox";
import { databaseHealth, isDatabaseUnreachable } from "../db/health";

export const WEBHOOK_BODY_LIMIT = 64 * 1024;

const int64Text = z.union([z.number().int(), z.string().regex(/^-?\d+$/)]).transform(String);
const orderShape = z
  .object({
    id: z.string().min(1).max(100),
    status: z.string().max(50).optional(),
    resource: z.string().max(50).optional(),
    volume: int64Text.optional(),
    targetAddress: z.string().max(100).optional(),
    totalTrx: z.string().max(50).optional(),
    priceTrx: z.string().max(50).optional(),
    txId: z.string().max(200).nullable().optional(),
  })
  .loose();

type Json = Record<string, unknown>;
const isObject = (value: unknown): value is Json => typeof value === "object" && value !== null && !Array.isArray(value);

/**
 * The payload shape is not fixed by the marketplace spec: the event name comes from `event`,
 * `type` or `name`, the order from `data.order`, `data`, `order`, `payload` or the body itself.
 */
export function readEvent(body: unknown): { event: string; eventId: string | null; order: z.infer<typeof orderShape> } | null {
  const event = readEventName(body);
  if (!event || !isObject(body)) return null;
  const data = isObject(body.data) ? body.data : undefined;
  const candidates = [data && isObject(data.order) ? data.order : undefined, data, isObject(body.order) ? body.order : undefined, isObject(body.payload) ? body.payload : undefined, body];
  for (const candidate of candidates) {
    if (!candidate) continue;
    const parsed = orderShape.safeParse(candidate);
    if (parsed.success && (candidate !== body || "targetAddress" in body || "status" in body)) {
      const eventIdSource = candidate === body ? (body.eventId ?? body.event_id) : (body.id ?? body.eventId ?? body.event_id);
      const eventId = typeof eventIdSource === "string" && eventIdSource.length <= 100 ? eventIdSource : null;
      return { event, eventId, order: parsed.data };
    }
  }
  return null;
}

/**
 * The event name, from `event`, `type` or `name`: the first that names a settlement, else the
 * first string (`{ "type": "order", "name": "order.filled" }` is a settlement, not an event "order").
 */
export function readEventName(body: unknown): string | null {
  if (!isObject(body)) return null;
  const names = [body.event, body.type, body.name].filter((value): value is string => typeof value === "string" && value.length > 0 && value.length < 100);
  return names.find((name) => SETTLEMENT_EVENTS.has(name.toLowerCase())) ?? names[0] ?? null;
}

// A Map, not an object: an event named "constructor" must not find anything.
const SETTLEMENT_EVENTS = new Map<string, FinalState>([
  ["order.filled", "filled"],
  ["order.failed", "failed"],
]);

function validSignature(secret: string, raw: string, header: string | undefined): boolean {
  if (!header) return false;
  const expected = `sha256=${createHmac("sha256", secret).update(raw, "utf8").digest("hex")}`;
  const a = Buffer.from(header.trim());
  const b = Buffer.from(expected);
  return a.length === b.length && timingSafeEqual(a, b);
}

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

/** What one request asks of the batch: the token to resolve and, when it parsed, the event to store. */
type Verdict =
  | { kind: "reject"; status: 400 | 401 | 413 | 422; error: string }
  | { kind: "ignored"; event: string }
  | { kind: "settlement"; name: string; state: FinalState; dedupeKey: string; facts: OrderFacts; orderId: string; receivedAt: number };

type Outcome = { status: 200 | 400 | 401 | 404 | 413 | 422; body: Record<string, unknown> };

interface Pending {
  tokenHash: string;
  verdict: Verdict;
  resolve(outcome: Outcome): void;
  reject(error: unknown): void;
}

const OUTBOX_CHUNK = 200;

/**
 * Classifies one request before any database work: signature, JSON, event shape, and the alert
 * facts. The token is resolved later, in the batch, so an unknown token still wins (404).
 */
function judge(deps: WebhookReceiverDeps, raw: string, signature: string | undefined): Verdict {
  if (Buffer.byteLength(raw, "utf8") > WEBHOOK_BODY_LIMIT) return { kind: "reject", status: 413, error: "body too large" };
  if (deps.secret && !validSignature(deps.secret, raw, signature)) return { kind: "reject", status: 401, error: "bad signature" };
  let body: unknown;
  try {
    body = JSON.parse(raw);
  } catch {
    return { kind: "reject", status: 400, error: "malformed JSON" };
  }
  const event = readEvent(body);
  if (!event) {
    const name = readEventName(body);
    if (!name) return { kind: "reject", status: 422, error: "not a recognisable event" };
    // A settlement without its order cannot be alerted on; the sender should hear about it.
    if (SETTLEMENT_EVENTS.has(name.toLowerCase())) return { kind: "reject", status: 422, error: "order event without an order" };
    // Other events (ping, deposit.credited, …) are acknowledged so the sender does not retry them.
    return { kind: "ignored", event: name.slice(0, 100) };
  }
  const name = event.event.toLowerCase();
  const state: FinalState | null = SETTLEMENT_EVENTS.get(name) ?? null;
  if (!state) return { kind: "ignored", event: event.event };
  return {
    kind: "settlement",
    name,
    state,
    dedupeKey: event.eventId ? `event:${event.eventId}` : `order:${event.order.id}:${name}`,
    facts: { ...event.order, totalTrx: event.order.totalTrx ?? event.order.priceTrx },
    orderId: event.order.id,
    receivedAt: deps.now(),
  };
}

/**
 * Group commit. Requests arriving together share one token lookup and one transaction: their dedupe
 * keys and alerts are written with multi-row inserts, and every request is answered only after
 * the transaction holding its rows has committed (with synchronous=FULL, after the fsync). While a
 * batch commits, the next one gathers; commits start at least `commitGapMs` apart, so a lone
 * request waits at most that long (and only for the next turn of the loop after a quiet spell).
 */
class IngestBatcher {
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
        this.deps.logger.warn({ err: error, size: batch.length }, "webhook group commit failed; retrying its requests one by one");
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
    const { db, logger, translations } = this.deps;
    const hashes = [...new Set(batch.map((item) => item.tokenHash))];
    const owners = await db
      .selectFrom("webhook_tokens")
      .leftJoin("users", "users.telegram_id", "webhook_tokens.telegram_id")
      .select(["webhook_tokens.token_hash", "webhook_tokens.telegram_id as owner"])
      .selectAll("users")
      .where("webhook_tokens.token_hash", "in", hashes)
      .execute();
    const byHash = new Map(owners.map((row) => [row.token_hash, row]));

    const outcomes = new Map<Pending, Outcome>();
    const events: Array<{ item: Pending; telegramId: number; key: string; recipient: Recipient | null }> = [];
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
        if (verdict.status === 422) logger.warn({ userId: telegramId }, "marketplace webhook without a recognisable event; nothing queued");
        outcomes.set(item, { status: verdict.status, body: { error: verdict.error } });
        continue;
      }
      if (verdict.kind === "ignored") {
        logger.info({ userId: telegramId, event: verdict.event }, "marketplace webhook event acknowledged without an alert");
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
      const recipient = user && user.active === 1 && alertEnabled(user, "orders") ? { telegramId, chatId: user.chat_id, ...recipientLanguage(translations, user.language ?? user.telegram_language) } : null;
      events.push({ item, telegramId, key, recipient });
    }

    let queued = 0;
    if (events.length > 0) {
      const counts = { fresh: 0, duplicate: 0, muted: 0, alreadyAlerted: 0 };
      await db.transaction().execute(async (trx) => {
        const fresh = new Set<string>();
        for (let start = 0; start < events.length; start += OUTBOX_CHUNK) {
          const chunk = events.slice(start, start + OUTBOX_CHUNK);
          const rows = await trx
            .insertInto("webhook_events")
            .values(chunk.map((event) => ({ dedupe_key: event.key, received_at: (event.item.verdict as { receivedAt: number }).receivedAt })))
            .onConflict((oc) => oc.doNothing())
            .returning("dedupe_key")
            .execute();
          for (const row of rows) fresh.add(row.dedupe_key);
        }
        const alerts: Array<{ event: (typeof events)[number]; alertKey: string; payload: string; at: number }> = [];
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
          alerts.push({ event, alertKey, payload: JSON.stringify(settlementAlert(event.recipient, verdict.facts, verdict.state)), at: verdict.receivedAt });
        }
        for (let start = 0; start < alerts.length; start += OUTBOX_CHUNK) {
          const chunk = alerts.slice(start, start + OUTBOX_CHUNK);
          queued += await enqueueAlerts(
            trx,
            chunk.map((alert) => ({ telegramId: alert.event.telegramId, chatId: alert.event.recipient!.chatId, dedupeKey: alert.alertKey, payload: alert.payload, at: alert.at })),
          );
        }
        counts.alreadyAlerted += alerts.length - queued;
        // An order of theirs is moving: their notifications are read every cycle for a while.
        await markUsersInMotion(trx, events.map((event) => event.telegramId), "order", this.deps.now());
      });
      // One line per batch at info (per event at debug): cheap at thousands of events a second.
      logger.info({ events: events.length, ...counts, queued }, "marketplace webhooks stored");
      if (logger.isLevelEnabled("debug")) {
        for (const event of events) {
          const verdict = event.item.verdict as Extract<Verdict, { kind: "settlement" }>;
          logger.debug({ userId: event.telegramId, event: verdict.name, orderId: verdict.orderId, duplicate: outcomes.get(event.item)?.body.duplicate === true }, "marketplace webhook stored");
        }
      }
    }
    for (const item of batch) item.resolve(outcomes.get(item) ?? { status: 200, body: { ok: true } });
    if (queued > 0) this.deps.onQueued();
  }
}

/**
 * POST /webhooks/marketplace/:token. The event is acknowledged only after its dedupe key and its
 * alert are committed (group commit: concurrent requests share one transaction); a duplicate is
 * acknowledged and queues nothing. Answers: 404 unknown token, 413 over 64 KiB, 401 bad signature
 * (with a secret set), 400 malformed JSON, 422 no recognisable event name (or an order event
 * without an order); 200 and nothing queued for any other event name; 503 with Retry-After when the
 * event could not be stored (the database unreachable): never 200 for what is not committed, so
 * the marketplace sends it again.
 *
 * A client address past its limit of unknown tokens gets 429 with Retry-After for every token,
 * known or not, without a database read: the answer tells a guesser nothing and costs nothing. The
 * marketplace retries a 429; with MARKETPLACE_WEBHOOK_SECRET set, a request carrying a valid
 * signature (which a guesser cannot make) is served as usual even from a limited address, so
 * deliveries through a load balancer (every client shares its address) go on during a flood.
 */
export function registerMarketplaceWebhook(deps: WebhookReceiverDeps) {
  const batcher = new IngestBatcher(deps);
  const unknownTokens = deps.unknownTokens ?? new UnknownTokenLimiter();
  return (app: Hono<ServerEnv>) => {
    app.post("/webhooks/marketplace/:token", async (c: Context<ServerEnv>) => {
      const declared = Number(c.req.header("content-length") ?? "0");
      if (declared > WEBHOOK_BODY_LIMIT) return c.json({ error: "body too large" }, 413);
      const token = c.req.param("token") ?? "";
      const address = clientAddress(c);
      const wait = unknownTokens.waitFor(address, deps.now());
      if (wait > 0 && !(deps.secret && validSignature(deps.secret, await c.req.text(), c.req.header(deps.signatureHeader)))) {
        deps.metrics?.refusedRequests.inc({ route: "/webhooks/marketplace/:token", reason: "unknown_token_limit" });
        c.header("Retry-After", String(Math.ceil(wait / 1000)));
        return c.json({ error: "too many requests for unknown tokens" }, 429);
      }
      if (token.length < 16 || token.length > 128) {
        unknownTokens.record(address, deps.now());
        return c.json({ error: "unknown token" }, 404);
      }
      const raw = await c.req.text();
      let outcome: Outcome;
      try {
        outcome = await batcher.submit(hashToken(token), judge(deps, raw, c.req.header(deps.signatureHeader)));
      } catch (error) {
        // Not stored, so not acknowledged: 503, and the marketplace sends it again. An unreachable
        // database is logged once by its health tracker, not once per delivery.
        // The route pattern, never the path: it carries the user's personal token.
        const route = "/webhooks/marketplace/:token";
        if (databaseHealth(deps.db)?.explains(error)) deps.logger.debug({ err: error, route }, "marketplace webhook not stored (database unreachable); answered 503");
        else deps.logger.error({ err: error, route }, "marketplace webhook could not be stored; answered 503");
        c.header("Retry-After", "5");
        return c.json({ error: "temporarily unavailable; send it again" }, 503);
      }
      if (outcome.status === 404) unknownTokens.record(address, deps.now());
      return c.json(outcome.body, outcome.status);
    });
  };
}

/** How long a webhook's dedupe key is kept: 4 days (senders retry for up to 3). */
export const WEBHOOK_DEDUPE_MS = 4 * 86_400_000;

/** Forgets dedupe keys past WEBHOOK_DEDUPE_MS, at most `limit` of them a call. Returns how many went. */
export async function pruneWebhookEvents(db: Kysely<Database>, now: number, limit = 10_000): Promise<number> {
  const before = now - WEBHOOK_DEDUPE_MS;
  const result = await db
    .deleteFrom("webhook_events")
    .where("dedupe_key", "in", (eb) => eb.selectFrom("webhook_events").select("dedupe_key").where("received_at", "<", before).limit(limit))
    .where("received_at", "<", before)
    .executeTakeFirst();
  return Number(result.numDeletedRows);
}
