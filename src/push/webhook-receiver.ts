import type { Context, Hono } from "hono";
import type { ServerEnv } from "#src/server/create-server";
import { hashToken } from "#src/security/secret-box";
import { clientAddress } from "#src/server/client-address";
import { databaseHealth } from "#src/db/health";
import { UnknownTokenLimiter } from "./unknown-token-limit";
import { IngestBatcher, type Outcome, type WebhookReceiverDeps } from "./webhook-ingest";
import { judge, validSignature, WEBHOOK_BODY_LIMIT } from "./webhook-payload";

// The marketplace webhook route.

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
      if (
        wait > 0 &&
        !(deps.secret && validSignature(deps.secret, await c.req.text(), c.req.header(deps.signatureHeader)))
      ) {
        deps.metrics?.refusedRequests.inc({ route: "/webhooks/marketplace/:token", reason: "unknown_token_limit" });
        c.header("Retry-After", String(Math.ceil(wait / 1000)));
        return c.json({ error: "too many requests for unknown tokens" }, 429);
      }
      // Logged once per window when an address reaches the limit: the address, never the token.
      const recordUnknown = () => {
        if (unknownTokens.record(address, deps.now()))
          deps.logger.warn(
            { client: address },
            "a client reached the unknown-token limit of marketplace webhooks; its requests are answered 429 until its window ends",
          );
      };
      if (token.length < 16 || token.length > 128) {
        recordUnknown();
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
        if (databaseHealth(deps.db)?.explains(error))
          deps.logger.debug(
            { err: error, route },
            "marketplace webhook not stored (database unreachable); answered 503",
          );
        else deps.logger.error({ err: error, route }, "marketplace webhook could not be stored; answered 503");
        c.header("Retry-After", "5");
        return c.json({ error: "temporarily unavailable; send it again" }, 503);
      }
      if (outcome.status === 404) recordUnknown();
      return c.json(outcome.body, outcome.status);
    });
  };
}
