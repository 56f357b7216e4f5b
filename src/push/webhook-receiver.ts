import { createHmac, timingSafeEqual } from "node:crypto";
import type { Hono } from "hono";
import type { Kysely } from "kysely";
import { z } from "zod";
import type { Database } from "../db/schema";
import { findUserByWebhookToken } from "../db/repos/webhook-tokens";
import type { Logger } from "../logger";
import type { ServerEnv } from "../server/create-server";
import { finalState, recipientFor, settlementAlert, settlementKey, type OrderFacts, type Translations } from "./alerts";
import { enqueueAlert } from "./outbox";

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
  if (!isObject(body)) return null;
  const event = [body.event, body.type, body.name].find((value): value is string => typeof value === "string" && value.length > 0 && value.length < 100);
  if (!event) return null;
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
}

/**
 * POST /webhooks/marketplace/:token. The event is acknowledged only after its dedupe key and its
 * alert are committed in one transaction; a duplicate is acknowledged and queues nothing.
 */
export function registerMarketplaceWebhook(deps: WebhookReceiverDeps) {
  return (app: Hono<ServerEnv>) => {
    app.post("/webhooks/marketplace/:token", async (c) => {
      const declared = Number(c.req.header("content-length") ?? "0");
      if (declared > WEBHOOK_BODY_LIMIT) return c.json({ error: "body too large" }, 413);
      const telegramId = await findUserByWebhookToken(deps.db, c.req.param("token"));
      if (telegramId === undefined) return c.json({ error: "unknown token" }, 404);
      const raw = await c.req.text();
      if (Buffer.byteLength(raw, "utf8") > WEBHOOK_BODY_LIMIT) return c.json({ error: "body too large" }, 413);
      if (deps.secret && !validSignature(deps.secret, raw, c.req.header(deps.signatureHeader))) return c.json({ error: "bad signature" }, 401);
      let body: unknown;
      try {
        body = JSON.parse(raw);
      } catch {
        return c.json({ error: "malformed JSON" }, 400);
      }
      const event = readEvent(body);
      if (!event) {
        deps.logger.warn({ userId: telegramId }, "marketplace webhook without a recognisable event; nothing queued");
        return c.json({ error: "not a recognisable event" }, 422);
      }
      const name = event.event.toLowerCase();
      const state = name === "order.filled" ? "filled" : name === "order.failed" ? "failed" : null;
      if (!state) {
        deps.logger.info({ userId: telegramId, event: event.event }, "marketplace webhook event acknowledged without an alert");
        return c.json({ ok: true, ignored: true });
      }
      const dedupeKey = event.eventId ? `event:${event.eventId}` : `order:${event.order.id}:${name}`;
      const now = deps.now();
      const recipient = await recipientFor(deps.db, deps.translations, telegramId, "orders");
      const facts: OrderFacts = { ...event.order, totalTrx: event.order.totalTrx ?? event.order.priceTrx };
      const queued = await deps.db.transaction().execute(async (trx) => {
        const fresh = await trx.insertInto("webhook_events").values({ dedupe_key: `${telegramId}:${dedupeKey}`, received_at: now }).onConflict((oc) => oc.doNothing()).executeTakeFirst();
        if ((fresh.numInsertedOrUpdatedRows ?? 0n) === 0n) return "duplicate";
        if (!recipient) return "muted";
        const inserted = await enqueueAlert(trx, { telegramId, chatId: recipient.chatId, dedupeKey: settlementKey(event.order.id, state ?? finalState(event.order.status) ?? "filled"), payload: settlementAlert(recipient, facts, state), now });
        return inserted ? "queued" : "already-alerted";
      });
      deps.logger.info({ userId: telegramId, event: name, orderId: event.order.id, outcome: queued }, "marketplace webhook stored");
      if (queued === "queued") deps.onQueued();
      return c.json({ ok: true, duplicate: queued === "duplicate" });
    });
  };
}

/** Dedupe keys are kept 4 days (senders retry for up to 3). */
export async function pruneWebhookEvents(db: Kysely<Database>, now: number): Promise<void> {
  await db.deleteFrom("webhook_events").where("received_at", "<", now - 4 * 86_400_000).execute();
}
