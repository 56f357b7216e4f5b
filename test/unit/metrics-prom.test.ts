import { describe, expect, it } from "vitest";
import { Metrics } from "#src/metrics";

/** The `# TYPE` of each family in a Prometheus text answer. */
function types(text: string): Map<string, string> {
  const found = new Map<string, string>();
  for (const match of text.matchAll(/^# TYPE (\S+) (\S+)$/gm)) found.set(match[1]!, match[2]!);
  return found;
}

describe("/metrics on prom-client", () => {
  it("gives each family its HELP and the TYPE it is: counters, gauges, histograms", async () => {
    const metrics = new Metrics();
    metrics.updates.inc({ type: "message", outcome: "ok" });
    metrics.pollTicksSkipped.inc();
    metrics.gauge("outbox_queue_depth", "Alerts queued and not yet sent", () => 3);
    metrics.labeledGauge("poll_schedule_users", "Users by poll schedule", async () => [
      { labels: { schedule: "fast", reason: "rule" }, value: 2 },
    ]);
    const text = await metrics.render();
    const typeOf = types(text);
    expect(typeOf.get("bot_updates_handled_total")).toBe("counter");
    expect(typeOf.get("poll_ticks_skipped_total")).toBe("counter");
    expect(typeOf.get("telegram_429_total")).toBe("counter");
    expect(typeOf.get("outbox_queue_depth")).toBe("gauge");
    expect(typeOf.get("poll_schedule_users")).toBe("gauge");
    for (const histogram of [
      "bot_update_seconds",
      "telegram_api_call_seconds",
      "marketplace_api_call_seconds",
      "alert_delivery_seconds",
      "poll_cycle_seconds",
    ])
      expect(typeOf.get(histogram), histogram).toBe("histogram");
    for (const name of typeOf.keys()) expect(text, name).toMatch(new RegExp(`^# HELP ${name} \\S`, "m"));
    // Prometheus's conventions: a counter ends in _total, a histogram in its unit.
    for (const [name, type] of typeOf) {
      if (type === "counter") expect(name).toMatch(/_total$/);
      if (type === "histogram") expect(name).toMatch(/_(seconds|bytes)$/);
    }
    expect(text).toContain("outbox_queue_depth 3");
    expect(text).toContain('poll_schedule_users{schedule="fast",reason="rule"} 2');
  });

  it("fills a histogram's buckets, sum and count", async () => {
    const metrics = new Metrics();
    metrics.updateSeconds.observe({ type: "message" }, 0.02);
    metrics.updateSeconds.observe({ type: "message" }, 0.3);
    metrics.updateSeconds.observe({ type: "message" }, Number.NaN);
    expect(metrics.updateSeconds.count({ type: "message" })).toBe(2);
    const text = await metrics.render();
    expect(text).toContain('bot_update_seconds_bucket{le="0.01",type="message"} 0');
    expect(text).toContain('bot_update_seconds_bucket{le="0.025",type="message"} 1');
    expect(text).toContain('bot_update_seconds_bucket{le="0.5",type="message"} 2');
    expect(text).toContain('bot_update_seconds_bucket{le="+Inf",type="message"} 2');
    expect(text).toContain('bot_update_seconds_count{type="message"} 2');
    expect(text).toMatch(/^bot_update_seconds_sum\{type="message"\} 0\.32/m);
  });

  it("shows Node's default metrics once, however many apps the process holds", async () => {
    const first = new Metrics();
    const second = new Metrics();
    const third = new Metrics();
    for (const metrics of [first, second, third]) {
      const text = await metrics.render();
      for (const family of [
        "nodejs_eventloop_lag_seconds",
        "nodejs_gc_duration_seconds",
        "nodejs_heap_size_used_bytes",
        "process_resident_memory_bytes",
        "process_cpu_seconds_total",
      ]) {
        expect(text.match(new RegExp(`^# TYPE ${family} `, "gm")), family).toHaveLength(1);
      }
    }
  });

  it("keeps each app's counters its own and their values across scrapes", async () => {
    const one = new Metrics();
    const other = new Metrics();
    one.alerts.inc({ outcome: "sent" }, 2);
    other.alerts.inc({ outcome: "sent" });
    await one.render();
    one.alerts.inc({ outcome: "sent" });
    expect(one.alerts.get({ outcome: "sent" })).toBe(3);
    expect(await one.render()).toContain('alerts_total{outcome="sent"} 3');
    expect(await other.render()).toContain('alerts_total{outcome="sent"} 1');
  });

  it("still answers when a gauge cannot be read, without that gauge's value", async () => {
    const metrics = new Metrics();
    metrics.gauge("outbox_queue_depth", "Alerts queued", () => Promise.reject(new Error("database unreachable")));
    metrics.gauge("database_up", "1 when the database answers", () => 0);
    const text = await metrics.render();
    expect(text).toContain("database_up 0");
    expect(text).not.toMatch(/^outbox_queue_depth /m);
  });

  it("counts a Bot API call's duration, and a 429 by scope", () => {
    const metrics = new Metrics();
    metrics.telegramCall("sendMessage", "error", { seconds: 0.1, errorCode: 429, chat: true });
    metrics.telegramCall("getUpdates", "ok", { seconds: 0.2 });
    expect(metrics.telegramCalls.get({ method: "sendMessage", outcome: "error" })).toBe(1);
    expect(metrics.telegramCallSeconds.count({ method: "getUpdates", outcome: "ok" })).toBe(1);
    expect(metrics.telegram429.get({ scope: "chat" })).toBe(1);
    expect(metrics.telegram429.get({ scope: "bot" })).toBe(0);
  });

  it("shows the 429 scopes and the alert outcomes at 0 before the first one, so rates over them have data", async () => {
    const text = await new Metrics().render();
    expect(text).toMatch(/^telegram_429_total\{scope="chat"\} 0$/m);
    expect(text).toMatch(/^telegram_429_total\{scope="bot"\} 0$/m);
    for (const outcome of ["sent", "throttled", "blocked", "refused", "retry"])
      expect(text).toContain(`alerts_total{outcome="${outcome}"} 0`);
    // The unlabelled histograms show their buckets at 0 too.
    expect(text).toContain('alert_delivery_seconds_bucket{le="+Inf"} 0');
    expect(text).toContain('poll_cycle_seconds_bucket{le="+Inf"} 0');
  });

  it("counts a marketplace call by route and HTTP status, none when no answer came", async () => {
    const metrics = new Metrics();
    metrics.marketplaceCall({
      method: "GET",
      route: "/api/v1/orders/{id}",
      outcome: "ok",
      status: 200,
      durationMs: 40,
    });
    metrics.marketplaceCall({ method: "GET", route: "/api/v1/orders/{id}", outcome: "timeout", durationMs: 3000 });
    expect(metrics.apiCalls.get({ method: "GET", route: "/api/v1/orders/{id}", outcome: "ok" })).toBe(1);
    expect(metrics.apiCallSeconds.count({ route: "/api/v1/orders/{id}", status: "200" })).toBe(1);
    expect(metrics.apiCallSeconds.count({ route: "/api/v1/orders/{id}", status: "none" })).toBe(1);
    expect(await metrics.render()).toContain(
      'marketplace_api_call_seconds_bucket{le="5",route="/api/v1/orders/{id}",status="none"} 1',
    );
  });

  it("times a poll cycle that finished, not one that failed", async () => {
    const metrics = new Metrics();
    expect(await metrics.pollCycleSeconds.timeSuccess({}, async () => "done")).toBe("done");
    await expect(
      metrics.pollCycleSeconds.timeSuccess({}, () => Promise.reject(new Error("database unreachable"))),
    ).rejects.toThrow("database unreachable");
    expect(metrics.pollCycleSeconds.count()).toBe(1);
  });
});
