import type { Env, Hono } from "hono";
import type { Metrics } from "#src/metrics";

const REASONS = ["metrics_forbidden", "metrics_unauthorized"] as const;

/**
 * `GET /metrics/refusals`, open to any client: how many /metrics requests this replica refused, by
 * reason, in Prometheus's text format. A scraper whose token is missing or wrong reads nothing of
 * /metrics, so its only sign is `up == 0`, the same as a replica that is down; this count (nothing
 * but two numbers) is what lets the `BotMetricsTokenRefused` rule name the token instead.
 * metrics_forbidden: METRICS_TOKEN is unset on this replica; metrics_unauthorized: the request's
 * token is missing or not this replica's.
 */
export function registerMetricsRefusals<E extends Env>(app: Hono<E>, metrics: Metrics): void {
  app.get("/metrics/refusals", (c) => {
    const lines = [
      "# HELP metrics_scrapes_refused_total /metrics requests this replica refused, by reason (metrics_forbidden: METRICS_TOKEN unset here; metrics_unauthorized: the token missing or not this replica's)",
      "# TYPE metrics_scrapes_refused_total counter",
      ...REASONS.map(
        (reason) =>
          `metrics_scrapes_refused_total{reason="${reason}"} ${metrics.refusedRequests.get({ route: "/metrics", reason })}`,
      ),
    ];
    return c.text(`${lines.join("\n")}\n`, 200, { "content-type": "text/plain; version=0.0.4" });
  });
}
