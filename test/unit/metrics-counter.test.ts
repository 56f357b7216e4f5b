import { describe, expect, it } from "vitest";
import { Metrics } from "#src/metrics";

describe("metrics counters", () => {
  it("keeps one series per label set, whatever characters the values hold", async () => {
    const metrics = new Metrics();
    // Two label sets whose names and values, run together, read the same: they stay two series.
    metrics.httpRequests.inc({ route: "a\u00011\u0001b", status: "200" });
    metrics.httpRequests.inc({ route: "a", status: "1\u0001b" });
    metrics.httpRequests.inc({ route: "/metrics", status: "200" }, 2);
    metrics.httpRequests.inc({ route: "/metrics", status: "200" });
    expect(metrics.httpRequests.get({ route: "/metrics", status: "200" })).toBe(3);
    expect(metrics.httpRequests.get({ route: "a\u00011\u0001b", status: "200" })).toBe(1);
    expect(metrics.httpRequests.get({ route: "a", status: "1\u0001b" })).toBe(1);
    expect(metrics.httpRequests.get({ route: "/metrics", status: "500" })).toBe(0);
    const text = await metrics.render();
    expect(text).toContain('http_requests_total{route="/metrics",status="200"} 3');
    expect(text.match(/^http_requests_total\{/gm)).toHaveLength(3);
  });

  it("counts a series without labels and does not keep the caller's label object", async () => {
    const metrics = new Metrics();
    metrics.pollPageLimit.inc();
    metrics.pollPageLimit.inc();
    expect(metrics.pollPageLimit.get()).toBe(2);
    const labels = { outcome: "sent" };
    metrics.alerts.inc(labels);
    labels.outcome = "changed";
    expect(await metrics.render()).toContain('alerts_total{outcome="sent"} 1');
    expect(await metrics.render()).toContain("notification_poll_page_limit_total 2");
  });
});
