import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { parseYamlSubset } from "../kit/yaml-subset";

interface Panel {
  id: number;
  type: string;
  title: string;
  gridPos: { h: number; w: number; x: number; y: number };
  datasource?: { type: string; uid: string };
  targets: Array<{ refId: string; expr: string; datasource?: { type: string; uid: string } }>;
}

const dashboard = JSON.parse(readFileSync("deploy/grafana/dashboard.json", "utf8")) as {
  uid: string;
  title: string;
  schemaVersion: number;
  version: number;
  panels: Panel[];
  templating: { list: Array<{ name: string; type: string; query: string }> };
  time: { from: string; to: string };
};

describe("deploy/grafana/dashboard.json", () => {
  it("is Grafana's dashboard model: a uid, a title, a schema version, panels with a type, a place and queries", () => {
    expect(dashboard.uid).toMatch(/^[A-Za-z0-9_-]{1,40}$/);
    expect(dashboard.title).toBeTruthy();
    expect(Number.isInteger(dashboard.schemaVersion) && dashboard.schemaVersion >= 30).toBe(true);
    expect(Number.isInteger(dashboard.version)).toBe(true);
    expect(dashboard.time.from).toMatch(/^now-/);
    expect(dashboard.panels.length).toBeGreaterThan(0);
    const ids = new Set<number>();
    for (const panel of dashboard.panels) {
      expect(Number.isInteger(panel.id), panel.title).toBe(true);
      expect(ids.has(panel.id), `panel id ${panel.id} repeats`).toBe(false);
      ids.add(panel.id);
      expect(["timeseries", "stat", "gauge", "table", "bargauge"]).toContain(panel.type);
      expect(panel.title).toBeTruthy();
      const { h, w, x, y } = panel.gridPos;
      for (const value of [h, w, x, y]) expect(Number.isInteger(value) && value >= 0, panel.title).toBe(true);
      expect(w > 0 && h > 0 && x + w <= 24, `${panel.title} fits the 24 columns`).toBe(true);
      expect(panel.targets.length, panel.title).toBeGreaterThan(0);
      const refIds = panel.targets.map((target) => target.refId);
      expect(new Set(refIds).size, `${panel.title}: refIds are unique`).toBe(refIds.length);
      for (const target of panel.targets) {
        expect(target.expr.trim(), panel.title).not.toBe("");
        expect((target.datasource ?? panel.datasource)?.type, panel.title).toBe("prometheus");
      }
    }
  });

  it("lays no panel over another", () => {
    const cells = new Map<string, string>();
    for (const panel of dashboard.panels) {
      const { h, w, x, y } = panel.gridPos;
      for (let row = y; row < y + h; row++) {
        for (let column = x; column < x + w; column++) {
          const key = `${row}:${column}`;
          expect(cells.get(key), `${panel.title} overlaps ${cells.get(key)}`).toBeUndefined();
          cells.set(key, panel.title);
        }
      }
    }
  });

  it("asks for its Prometheus as a variable, so it imports into any Grafana", () => {
    const variable = dashboard.templating.list.find((each) => each.type === "datasource");
    expect(variable?.query).toBe("prometheus");
    for (const panel of dashboard.panels) expect(panel.datasource?.uid).toBe(`\${${variable!.name}}`);
  });

  it("shows updates, alerts, latency percentiles, marketplace and Telegram errors, the poll schedule and the outbox", () => {
    const exprs = dashboard.panels.flatMap((panel) => panel.targets.map((target) => target.expr)).join("\n");
    for (const metric of [
      "bot_updates_handled_total",
      "alerts_total",
      "marketplace_api_calls_total",
      "telegram_api_calls_total",
      "telegram_429_total",
      "poll_schedule_users",
      "outbox_queue_depth",
      "outbox_oldest_alert_age_seconds",
      "alert_delivery_seconds_bucket",
      "poll_cycle_seconds",
    ])
      expect(exprs).toContain(metric);
    for (const histogram of [
      "bot_update_seconds",
      "telegram_api_call_seconds",
      "marketplace_api_call_seconds",
      "alert_delivery_seconds",
      "poll_cycle_seconds",
    ])
      expect(exprs).toMatch(
        new RegExp(`histogram_quantile\\(0\\.\\d+, sum by \\([^)]*\\ble\\b[^)]*\\) \\(rate\\(${histogram}_bucket`),
      );
  });

  it("is provisioned with the datasource it expects", () => {
    const datasources = parseYamlSubset(
      readFileSync("deploy/grafana/provisioning/datasources/prometheus.yml", "utf8"),
    ) as { datasources: Array<{ type: string; url: string }> };
    expect(datasources.datasources.map((each) => each.type)).toEqual(["prometheus"]);
    const providers = parseYamlSubset(
      readFileSync("deploy/grafana/provisioning/dashboards/tron-energy-bot.yml", "utf8"),
    ) as { providers: Array<{ type: string; options: { path: string } }> };
    const compose = readFileSync("compose.yaml", "utf8");
    // compose mounts the dashboard where the provider looks for it.
    expect(compose).toContain(`./deploy/grafana/dashboard.json:${providers.providers[0]!.options.path}/`);
  });
});
