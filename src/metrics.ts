/**
 * The bot's Prometheus metrics, on prom-client. Each Metrics instance (each app, each replica) has
 * its own registry; Node's default metrics (event-loop lag, GC, heap) are collected once per
 * process into a registry of their own and merged into every render, so tests that start many
 * apps in one process do not stack their observers.
 */
import {
  collectDefaultMetrics,
  Counter as PromCounter,
  Histogram as PromHistogram,
  Registry,
  type Metric,
} from "prom-client";

type Labels = Record<string, string>;

let processRegistry: Registry | null = null;

/** The process-wide registry of Node's default metrics, started on first use. */
function defaultMetricsRegistry(): Registry {
  if (!processRegistry) {
    processRegistry = new Registry();
    collectDefaultMetrics({ register: processRegistry });
  }
  return processRegistry;
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

/**
 * A prom-client counter with a synchronous reading of each series (prom-client's own `get` is
 * asynchronous and returns every series at once); callers and tests read one series by its labels.
 */
export class Counter<L extends string = string> {
  private readonly counter: PromCounter<L>;
  private readonly values = new Map<string, number>();

  constructor(registry: Registry, name: string, help: string, labelNames: readonly L[] = []) {
    this.counter = new PromCounter({ name, help, labelNames, registers: [registry] });
  }

  inc(labels: Partial<Record<L, string>> = {}, by = 1): void {
    const key = seriesKey(labels as Labels);
    const before = this.values.get(key);
    // prom-client keeps the label object of a new series: a copy, so the caller may reuse its own.
    this.counter.inc(before === undefined ? { ...labels } : labels, by);
    this.values.set(key, (before ?? 0) + by);
  }

  get(labels: Partial<Record<L, string>> = {}): number {
    return this.values.get(seriesKey(labels as Labels)) ?? 0;
  }

  /**
   * Shows the series at 0 before anything is counted in it, so a rate or a sum over it (a rule, a
   * dashboard panel) has data from the first scrape rather than nothing until the first event.
   */
  zero(labels: Partial<Record<L, string>>): void {
    if (this.values.has(seriesKey(labels as Labels))) return;
    this.inc(labels, 0);
  }
}

/** A prom-client histogram of durations in seconds, with a synchronous count of each series. */
export class Histogram<L extends string = string> {
  private readonly histogram: PromHistogram<L>;
  private readonly counts = new Map<string, number>();

  constructor(registry: Registry, name: string, help: string, labelNames: readonly L[], buckets: number[]) {
    this.histogram = new PromHistogram({ name, help, labelNames, buckets, registers: [registry] });
  }

  observe(labels: Partial<Record<L, string>>, seconds: number): void {
    if (!Number.isFinite(seconds)) return;
    const key = seriesKey(labels as Labels);
    const before = this.counts.get(key);
    this.histogram.observe(before === undefined ? { ...labels } : labels, Math.max(0, seconds));
    this.counts.set(key, (before ?? 0) + 1);
  }

  /** Runs `work` and, when it succeeds, observes how long it took (a failed run is not a finished one). */
  async timeSuccess<T>(labels: Partial<Record<L, string>>, work: () => Promise<T>): Promise<T> {
    const started = performance.now();
    const result = await work();
    this.observe(labels, (performance.now() - started) / 1000);
    return result;
  }

  /** How many observations the series holds. */
  count(labels: Partial<Record<L, string>> = {}): number {
    return this.counts.get(seriesKey(labels as Labels)) ?? 0;
  }
}

/**
 * A gauge read at scrape time. A read that fails (the database is away) leaves the gauge without a
 * value for that scrape instead of failing the whole /metrics answer: `database_up` must still say 0.
 */
function scrapeTimeGauge(
  name: string,
  help: string,
  read: () => Promise<Array<{ labels: Labels; value: number }>>,
): Metric {
  const gauge = {
    name,
    help,
    type: "gauge",
    aggregator: "sum",
    async get() {
      const values = await read().catch(() => []);
      return { name, help, type: "gauge", aggregator: "sum", values };
    },
    reset() {},
  };
  return gauge as unknown as Metric;
}

/** Buckets for work a person waits on: an update's handling, one HTTP call (5 ms … 30 s). */
const CALL_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30];
/** Buckets for an alert's way from its event to the chat (1 s … 1 h): chat pacing and retries make it long. */
const DELIVERY_BUCKETS = [1, 2, 5, 10, 30, 60, 120, 300, 600, 1800, 3600];
/** Buckets for one poll cycle over every due user (0.1 s … 10 min). */
const CYCLE_BUCKETS = [0.1, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300, 600];

export class Metrics {
  /** This instance's own registry: one per app, so replicas and tests never share series. */
  readonly registry = new Registry();
  readonly updates = new Counter(
    this.registry,
    "bot_updates_handled_total",
    "Telegram updates handled, by type and outcome",
    ["type", "outcome"],
  );
  readonly updateSeconds = new Histogram(
    this.registry,
    "bot_update_seconds",
    "Time to handle one Telegram update, by type",
    ["type"],
    CALL_BUCKETS,
  );
  readonly apiCalls = new Counter(
    this.registry,
    "marketplace_api_calls_total",
    "Marketplace API calls, by method, route and outcome",
    ["method", "route", "outcome"],
  );
  readonly apiCallSeconds = new Histogram(
    this.registry,
    "marketplace_api_call_seconds",
    "Marketplace API call durations (each attempt), by route and HTTP status (none: no answer)",
    ["route", "status"],
    CALL_BUCKETS,
  );
  readonly telegramCalls = new Counter(
    this.registry,
    "telegram_api_calls_total",
    "Telegram Bot API requests made by the bot, by method and outcome (ok, error)",
    ["method", "outcome"],
  );
  readonly telegramCallSeconds = new Histogram(
    this.registry,
    "telegram_api_call_seconds",
    "Telegram Bot API request durations, by method and outcome (ok, error)",
    ["method", "outcome"],
    CALL_BUCKETS,
  );
  readonly telegram429 = new Counter(
    this.registry,
    "telegram_429_total",
    "Bot API requests Telegram refused with 429 (too many requests), by scope (chat: the call targeted a chat; bot: it did not)",
    ["scope"],
  );
  readonly httpRequests = new Counter(
    this.registry,
    "http_requests_total",
    "HTTP requests served, by route and status",
    ["route", "status"],
  );
  readonly alerts = new Counter(this.registry, "alerts_total", "Pushed alerts, by outcome", ["outcome"]);
  readonly alertDeliverySeconds = new Histogram(
    this.registry,
    "alert_delivery_seconds",
    "Time from an alert's event (its outbox row's creation) to Telegram accepting it",
    [],
    DELIVERY_BUCKETS,
  );
  readonly pollCycleSeconds = new Histogram(
    this.registry,
    "poll_cycle_seconds",
    "Duration of one finished notification poll cycle of this replica",
    [],
    CYCLE_BUCKETS,
  );
  readonly pollTicksSkipped = new Counter(
    this.registry,
    "poll_ticks_skipped_total",
    "Cron ticks skipped because this replica's poll cycle was still running",
  );
  readonly pollExtraPages = new Counter(
    this.registry,
    "notification_poll_extra_pages_total",
    "Notification pages read past the newest one (more than a page arrived between two polls of a user)",
  );
  readonly pollPageLimit = new Counter(
    this.registry,
    "notification_poll_page_limit_total",
    "Polls that stopped at the page limit without reaching a notification already seen (the older ones were not read)",
  );
  readonly pollLookAhead = new Counter(
    this.registry,
    "poll_look_ahead_requests_total",
    "Marketplace requests the poller made to look ahead for users with an active rule (the low-balance check, delivery alerts), by what was read",
    ["read"] as const,
  );
  readonly publicWorkLimited = new Counter(
    this.registry,
    "public_work_limited_total",
    "Times a bound on public work bit, by limit (flood, quote_shared, quote_waited, inline_deadline, watch_rents_deferred, stats_reused, chart_waited)",
    ["limit"],
  );
  readonly refusedRequests = new Counter(
    this.registry,
    "http_requests_refused_total",
    "HTTP requests refused by an access rule or a limit, by route and reason (metrics_forbidden, metrics_unauthorized, unknown_token_limit)",
    ["route", "reason"],
  );
  private readonly started = Date.now();

  constructor() {
    for (const scope of ["chat", "bot"]) this.telegram429.zero({ scope });
    for (const outcome of ["sent", "throttled", "blocked", "refused", "retry"]) this.alerts.zero({ outcome });
    this.gauge(
      "process_uptime_seconds",
      "Seconds since this replica's metrics started",
      () => (Date.now() - this.started) / 1000,
    );
  }

  /** Registers a gauge with one series per label set, all read at scrape time in one go. */
  labeledGauge(name: string, help: string, read: () => Promise<Array<{ labels: Labels; value: number }>>): void {
    this.registry.registerMetric(scrapeTimeGauge(name, help, read));
  }

  /** Registers a gauge read at scrape time (queue depth, leases…). */
  gauge(name: string, help: string, read: () => number | Promise<number>): void {
    this.registry.registerMetric(scrapeTimeGauge(name, help, async () => [{ labels: {}, value: await read() }]));
  }

  /** Counts one Bot API request and its duration; a 429 is counted by scope too. */
  telegramCall(
    method: string,
    outcome: "ok" | "error",
    call: { seconds: number; errorCode?: number; chat?: boolean },
  ): void {
    this.telegramCalls.inc({ method, outcome });
    this.telegramCallSeconds.observe({ method, outcome }, call.seconds);
    if (call.errorCode === 429) this.telegram429.inc({ scope: call.chat ? "chat" : "bot" });
  }

  /** Counts one marketplace call (each attempt) and its duration; `status` is absent when no answer came. */
  marketplaceCall(call: { method: string; route: string; outcome: string; status?: number; durationMs: number }): void {
    this.apiCalls.inc({ method: call.method, route: call.route, outcome: call.outcome });
    this.apiCallSeconds.observe(
      { route: call.route, status: call.status === undefined ? "none" : String(call.status) },
      call.durationMs / 1000,
    );
  }

  /** The Prometheus text format: this instance's metrics, then the process's default ones. */
  async render(): Promise<string> {
    return Registry.merge([this.registry, defaultMetricsRegistry()]).metrics();
  }
}
