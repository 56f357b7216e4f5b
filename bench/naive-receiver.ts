import type { Hono } from "hono";
import { findUserByWebhookToken } from "../src/db/repos/webhook-tokens";
import { settlementAlert, settlementKey, type OrderFacts } from "../src/chat/alerts";
import { recipientFor } from "../src/push/recipients";
import { enqueueAlert } from "../src/db/repos/outbox";
import { readEvent, WEBHOOK_BODY_LIMIT } from "../src/push/webhook-payload";
import type { WebhookReceiverDeps } from "../src/push/webhook-ingest";
import type { ServerEnv } from "../src/server/create-server";

/**
 * The reference the real receiver is measured against: the same checks, but one transaction (and
 * so, with synchronous=FULL, one fsync) per request, and the token and user looked up per request.
 * This is the receiver as it was before group commit.
 */
export function registerNaiveWebhook(deps: WebhookReceiverDeps) {
  return (app: Hono<ServerEnv>) => {
    app.post("/webhooks/marketplace/:token", async (c) => {
      const declared = Number(c.req.header("content-length") ?? "0");
      if (declared > WEBHOOK_BODY_LIMIT) return c.json({ error: "body too large" }, 413);
      const telegramId = await findUserByWebhookToken(deps.db, c.req.param("token"));
      if (telegramId === undefined) return c.json({ error: "unknown token" }, 404);
      const raw = await c.req.text();
      if (Buffer.byteLength(raw, "utf8") > WEBHOOK_BODY_LIMIT) return c.json({ error: "body too large" }, 413);
      let body: unknown;
      try {
        body = JSON.parse(raw);
      } catch {
        return c.json({ error: "malformed JSON" }, 400);
      }
      const event = readEvent(body);
      if (!event) return c.json({ error: "not a recognisable event" }, 422);
      const name = event.event.toLowerCase();
      const state = name === "order.filled" ? "filled" : name === "order.failed" ? "failed" : null;
      if (!state) return c.json({ ok: true, ignored: true });
      const dedupeKey = event.eventId ? `event:${event.eventId}` : `order:${event.order.id}:${name}`;
      const now = deps.now();
      const recipient = await recipientFor(deps.db, deps.translations, telegramId, "orders");
      const facts: OrderFacts = { ...event.order, totalTrx: event.order.totalTrx ?? event.order.priceTrx };
      const queued = await deps.db.transaction().execute(async (trx) => {
        const fresh = await trx
          .insertInto("webhook_events")
          .values({ dedupe_key: `${telegramId}:${dedupeKey}`, received_at: now })
          .onConflict((oc) => oc.doNothing())
          .executeTakeFirst();
        if ((fresh.numInsertedOrUpdatedRows ?? 0n) === 0n) return "duplicate";
        if (!recipient) return "muted";
        const inserted = await enqueueAlert(trx, {
          telegramId,
          chatId: recipient.chatId,
          dedupeKey: settlementKey(event.order.id, state),
          payload: settlementAlert(recipient, facts, state),
          now,
        });
        return inserted ? "queued" : "already-alerted";
      });
      deps.logger.info(
        { userId: telegramId, event: name, orderId: event.order.id, outcome: queued },
        "marketplace webhook stored",
      );
      if (queued === "queued") deps.onQueued();
      return c.json({ ok: true, duplicate: queued === "duplicate" });
    });
  };
}
