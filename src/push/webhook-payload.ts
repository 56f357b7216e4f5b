import { createHmac, timingSafeEqual } from "node:crypto";
import { z } from "zod";
import type { FinalState, OrderFacts } from "#src/chat/alerts";

// A marketplace webhook's body read: its signature, its event and order, and what it asks of the bot.

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
    duration: z.string().max(20).optional(),
    createdAt: z.string().max(40).optional(),
  })
  .loose();

type Json = Record<string, unknown>;
const isObject = (value: unknown): value is Json =>
  typeof value === "object" && value !== null && !Array.isArray(value);

/**
 * The payload shape is not fixed by the marketplace spec: the event name comes from `event`,
 * `type` or `name`, the order from `data.order`, `data`, `order`, `payload` or the body itself.
 */
export function readEvent(
  body: unknown,
): { event: string; eventId: string | null; order: z.infer<typeof orderShape> } | null {
  const event = readEventName(body);
  if (!event || !isObject(body)) return null;
  const data = isObject(body.data) ? body.data : undefined;
  const candidates = [
    data && isObject(data.order) ? data.order : undefined,
    data,
    isObject(body.order) ? body.order : undefined,
    isObject(body.payload) ? body.payload : undefined,
    body,
  ];
  for (const candidate of candidates) {
    if (!candidate) continue;
    const parsed = orderShape.safeParse(candidate);
    if (parsed.success && (candidate !== body || "targetAddress" in body || "status" in body)) {
      const eventIdSource =
        candidate === body ? (body.eventId ?? body.event_id) : (body.id ?? body.eventId ?? body.event_id);
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
  const names = [body.event, body.type, body.name].filter(
    (value): value is string => typeof value === "string" && value.length > 0 && value.length < 100,
  );
  return names.find((name) => SETTLEMENT_EVENTS.has(name.toLowerCase())) ?? names[0] ?? null;
}

// A Map, not an object: an event named "constructor" must not find anything.
const SETTLEMENT_EVENTS = new Map<string, FinalState>([
  ["order.filled", "filled"],
  ["order.failed", "failed"],
]);

export function validSignature(secret: string, raw: string, header: string | undefined): boolean {
  if (!header) return false;
  const expected = `sha256=${createHmac("sha256", secret).update(raw, "utf8").digest("hex")}`;
  const a = Buffer.from(header.trim());
  const b = Buffer.from(expected);
  return a.length === b.length && timingSafeEqual(a, b);
}

/** What one request asks of the batch: the token to resolve and, when it parsed, the event to store. */
export type Verdict =
  | { kind: "reject"; status: 400 | 401 | 413 | 422; error: string }
  | { kind: "ignored"; event: string }
  | {
      kind: "settlement";
      name: string;
      state: FinalState;
      dedupeKey: string;
      facts: OrderFacts;
      orderId: string;
      receivedAt: number;
    };

/**
 * Classifies one request before any database work: signature, JSON, event shape, and the alert
 * facts. The token is resolved later, in the batch, so an unknown token still wins (404).
 */
export function judge(
  deps: { secret?: string; now: () => number },
  raw: string,
  signature: string | undefined,
): Verdict {
  if (Buffer.byteLength(raw, "utf8") > WEBHOOK_BODY_LIMIT)
    return { kind: "reject", status: 413, error: "body too large" };
  if (deps.secret && !validSignature(deps.secret, raw, signature))
    return { kind: "reject", status: 401, error: "bad signature" };
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
    if (SETTLEMENT_EVENTS.has(name.toLowerCase()))
      return { kind: "reject", status: 422, error: "order event without an order" };
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
