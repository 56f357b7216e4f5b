/**
 * A small Prometheus text-format registry: counters with labels plus process metrics.
 * Enough for /metrics without another dependency.
 */
type Labels = Record<string, string>;

class Counter {
  private readonly values = new Map<string, { labels: Labels; value: number }>();
  constructor(
    readonly name: string,
    readonly help: string,
  ) {}

  inc(labels: Labels = {}, by = 1): void {
    const key = seriesKey(labels);
    const entry = this.values.get(key);
    if (entry) entry.value += by;
    else this.values.set(key, { labels: { ...labels }, value: by });
  }

  get(labels: Labels = {}): number {
    return this.values.get(seriesKey(labels))?.value ?? 0;
  }

  render(): string {
    const lines = [`# HELP ${this.name} ${this.help}`, `# TYPE ${this.name} counter`];
    for (const { labels, value } of this.values.values()) lines.push(`${this.name}${renderLabels(labels)} ${value}`);
    return lines.join("\n");
  }
}

/**
 * One series' key: its label names and values in the order given. A value is prefixed with its
 * length, so whatever it holds it cannot run into the next label (names are the code's own, without
 * control characters). Counted on every update and Bot API call, so no JSON encoding here.
 */
function seriesKey(labels: Labels): string {
  let key = "";
  for (const name in labels) {
    const value = labels[name]!;
    key += `${name}\u0001${value.length}\u0001${value}`;
  }
  return key;
}

function renderLabels(labels: Labels): string {
  const entries = Object.entries(labels);
  if (entries.length === 0) return "";
  return `{${entries.map(([name, value]) => `${name}="${value.replace(/\\/g, "\\\\").replace(/"/g, '\\"').replace(/\n/g, "\\n")}"`).join(",")}}`;
}

export class Metrics {
  readonly updates = new Counter("bot_updates_handled_total", "Telegram updates handled, by type and outcome");
  readonly apiCalls = new Counter("marketplace_api_calls_total", "Marketplace API calls, by method, route and outcome");
  readonly telegramCalls = new Counter("telegram_api_calls_total", "Telegram Bot API requests made by the bot, by method and outcome (ok, error)");
  readonly httpRequests = new Counter("http_requests_total", "HTTP requests served, by route and status");
  readonly alerts = new Counter("alerts_total", "Pushed alerts, by outcome");
  readonly pollExtraPages = new Counter("notification_poll_extra_pages_total", "Notification pages read past the newest one (more than a page arrived between two polls of a user)");
  readonly pollPageLimit = new Counter("notification_poll_page_limit_total", "Polls that stopped at the page limit without reaching a notification already seen (the older ones were not read)");
  readonly publicWorkLimited = new Counter("public_work_limited_total", "Times a bound on public work bit, by limit (flood, quote_shared, quote_waited, inline_deadline, watch_rents_deferred, stats_reused, chart_waited)");
  readonly refusedRequests = new Counter("http_requests_refused_total", "HTTP requests refused by an access rule or a limit, by route and reason (metrics_forbidden, metrics_unauthorized, unknown_token_limit)");
  private readonly gauges = new Map<string, { help: string; read: () => number | Promise<number> }>();
  private readonly labeledGauges = new Map<string, { help: string; read: () => Promise<Array<{ labels: Labels; value: number }>> }>();

  /** Registers a gauge with one series per label set, all read at scrape time in one go. */
  labeledGauge(name: string, help: string, read: () => Promise<Array<{ labels: Labels; value: number }>>): void {
    this.labeledGauges.set(name, { help, read });
  }

  /** Registers a gauge read at scrape time (queue depth, leases…). */
  gauge(name: string, help: string, read: () => number | Promise<number>): void {
    this.gauges.set(name, { help, read });
  }

  async render(): Promise<string> {
    const memory = process.memoryUsage();
    const cpu = process.cpuUsage();
    const blocks = [this.updates.render(), this.apiCalls.render(), this.telegramCalls.render(), this.httpRequests.render(), this.alerts.render(), this.pollExtraPages.render(), this.pollPageLimit.render(), this.publicWorkLimited.render(), this.refusedRequests.render()];
    for (const [name, gauge] of this.gauges) {
      blocks.push(`# HELP ${name} ${gauge.help}\n# TYPE ${name} gauge\n${name} ${await gauge.read()}`);
    }
    for (const [name, gauge] of this.labeledGauges) {
      const series = (await gauge.read()).map(({ labels, value }) => `${name}${renderLabels(labels)} ${value}`);
      blocks.push([`# HELP ${name} ${gauge.help}`, `# TYPE ${name} gauge`, ...series].join("\n"));
    }
    blocks.push(
      `# HELP process_resident_memory_bytes Resident memory size in bytes\n# TYPE process_resident_memory_bytes gauge\nprocess_resident_memory_bytes ${memory.rss}`,
      `# HELP nodejs_heap_used_bytes V8 heap used\n# TYPE nodejs_heap_used_bytes gauge\nnodejs_heap_used_bytes ${memory.heapUsed}`,
      `# HELP process_cpu_seconds_total CPU time spent\n# TYPE process_cpu_seconds_total counter\nprocess_cpu_seconds_total ${(cpu.user + cpu.system) / 1e6}`,
      `# HELP process_uptime_seconds Process uptime\n# TYPE process_uptime_seconds gauge\nprocess_uptime_seconds ${process.uptime()}`,
    );
    return `${blocks.join("\n")}\n`;
  }
}
