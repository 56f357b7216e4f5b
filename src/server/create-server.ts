import { createHash, timingSafeEqual } from "node:crypto";
import { Hono, type Context } from "hono";
import { bodyLimit } from "hono/body-limit";
import type { Kysely } from "kysely";
import type { Database } from "#src/db/schema";
import type { Logger } from "#src/logger";
import { isLoopbackHost } from "#src/listen-address";
import type { Metrics } from "#src/metrics";
import { databaseHealth } from "#src/db/health";
import { pingDatabase } from "#src/db/repos/ping";
import { registerMetricsRefusals } from "#src/server/routes/metrics-refusals";
import { contextProxies, peerAddress, requestOrigin } from "./client-address";
import { NO_TRUSTED_PROXIES, type TrustedProxies } from "#src/trusted-proxies";

export interface ServerDeps {
  db: Kysely<Database>;
  logger: Logger;
  metrics: Metrics;
  /** This replica's id, shown by /metrics (several replicas share one database); never by /readyz. */
  replicaId?: string;
  dialect?: string;
  /** METRICS_TOKEN: what a client other than loopback must send as `Authorization: Bearer …` to read /metrics. */
  metricsToken?: string;
  /** TRUSTED_PROXIES: the only peers whose X-Forwarded-For is believed (limits, /metrics' loopback rule, logs). */
  trustedProxies?: TrustedProxies;
}

export type ServerEnv = { Variables: { requestId: string; trustedProxies: TrustedProxies } };

/** Maximum body of any POST route unless a route sets a smaller one (Telegram updates are small). */
export const DEFAULT_BODY_LIMIT = 1024 * 1024;

/**
 * The HTTP server: health, readiness and metrics here; feature routes are registered by their own
 * functions (Telegram webhook, marketplace webhooks, the playground) through `routes`.
 */
export function createServer(deps: ServerDeps, routes: Array<(app: Hono<ServerEnv>) => void> = []): Hono<ServerEnv> {
  const app = new Hono<ServerEnv>();

  app.use("*", async (c, next) => {
    c.set("requestId", crypto.randomUUID());
    c.set("trustedProxies", deps.trustedProxies ?? NO_TRUSTED_PROXIES);
    await next();
    const route = c.req.routePath || "unmatched";
    deps.metrics.httpRequests.inc({ route, status: String(c.res.status) });
  });

  // A declared length is checked from the header alone: touching the body stream here would make
  // the Node adapter build a full fetch Request for every POST, the costliest part of a small
  // webhook. Node's parser never reads past Content-Length. Chunked bodies are counted as they stream.
  const streamedLimit = bodyLimit({
    maxSize: DEFAULT_BODY_LIMIT,
    onError: (cc) => cc.json({ error: "body too large" }, 413),
  });
  app.use("*", async (c, next) => {
    if (c.req.method !== "POST") return next();
    const declared = c.req.header("content-length");
    if (declared === undefined || c.req.header("transfer-encoding") !== undefined) return streamedLimit(c, next);
    if (!/^\d{1,15}$/.test(declared.trim())) return c.json({ error: "bad content-length" }, 400);
    if (Number(declared) > DEFAULT_BODY_LIMIT) return c.json({ error: "body too large" }, 413);
    return next();
  });

  app.get("/healthz", (c) => c.json({ status: "ok" }));

  app.get("/readyz", async (c) => {
    try {
      await pingDatabase(deps.db);
      // Nothing about this replica (its id, its dialect): /readyz is reachable through the proxy.
      return c.json({ status: "ready", database: "ok" });
    } catch (error) {
      // An unreachable database is logged once by its health tracker (src/db/health.ts), not per probe.
      if (databaseHealth(deps.db)?.explains(error))
        deps.logger.debug({ err: error }, "readiness check: database unreachable");
      else deps.logger.warn({ err: error }, "readiness check: database unreachable");
      return c.json({ status: "not ready", database: "unreachable" }, 503);
    }
  });

  app.get("/metrics", async (c) => {
    const refused = metricsRefusal(c, deps.metricsToken);
    if (refused === 401) {
      deps.metrics.refusedRequests.inc({ route: "/metrics", reason: "metrics_unauthorized" });
      c.header("WWW-Authenticate", 'Bearer realm="metrics"');
      return c.json({ error: "unauthorized" }, 401);
    }
    if (refused === 403) {
      deps.metrics.refusedRequests.inc({ route: "/metrics", reason: "metrics_forbidden" });
      return c.json({ error: "forbidden" }, 403);
    }
    let text = await deps.metrics.render();
    if (deps.replicaId) {
      const label = (value: string) => value.replace(/["\\\n]/g, "_");
      text = `${text.trimEnd()}\n# HELP replica_info This replica (several may share the database)\n# TYPE replica_info gauge\nreplica_info{replica="${label(deps.replicaId)}",dialect="${label(deps.dialect ?? "")}"} 1\n`;
    }
    return c.text(text, 200, { "content-type": "text/plain; version=0.0.4" });
  });

  registerMetricsRefusals(app, deps.metrics);

  for (const register of routes) register(app);

  app.notFound((c) => c.json({ error: "not found" }, 404));
  app.onError((error, c) => {
    const requestId = c.get("requestId");
    // The route pattern, never the path: /webhooks/marketplace/:token carries a personal secret.
    deps.logger.error(
      { err: error, requestId, client: requestOrigin(c), method: c.req.method, route: c.req.routePath || "unmatched" },
      "HTTP handler failed",
    );
    return c.json({ error: "internal error", requestId }, 500);
  });
  return app;
}

/** Headers a proxy adds when it forwards someone else's request. */
const FORWARDING_HEADERS = ["x-forwarded-for", "forwarded", "x-real-ip"] as const;

/**
 * True when the request comes from this machine. From a trusted proxy (TRUSTED_PROXIES) carrying
 * `X-Forwarded-For`, the client that header names (see requestOrigin) decides. Otherwise the TCP
 * peer must be a loopback address and no proxy may say it forwarded the request: a proxy on the
 * same machine connects from loopback on behalf of outside clients, so a forwarding header makes
 * the request an outside one; nobody can look like loopback by writing such a header (it only ever
 * takes the exemption away). No socket (an in-process request) is not loopback either.
 */
export function isLoopbackClient(c: Context): boolean {
  const peer = peerAddress(c);
  if (!peer) return false;
  if (contextProxies(c).trusts(peer) && c.req.header("x-forwarded-for") !== undefined)
    return isLoopbackHost(requestOrigin(c) ?? "");
  if (!isLoopbackHost(peer)) return false;
  return FORWARDING_HEADERS.every((name) => c.req.header(name) === undefined);
}

/** Digests of equal length, so comparing them takes the same time whatever was sent. */
const digest = (value: string) => createHash("sha256").update(value, "utf8").digest();

/**
 * Why /metrics refuses this request, or null when it may read them: loopback clients always may;
 * any other client needs `Authorization: Bearer <METRICS_TOKEN>` (403 while METRICS_TOKEN is unset,
 * 401 for a missing or wrong token, compared in constant time).
 */
function metricsRefusal(c: Context, token: string | undefined): 401 | 403 | null {
  if (isLoopbackClient(c)) return null;
  if (!token) return 403;
  const match = /^Bearer +(\S+) *$/i.exec(c.req.header("authorization") ?? "");
  if (!match) return 401;
  return timingSafeEqual(digest(match[1]!), digest(token)) ? null : 401;
}
