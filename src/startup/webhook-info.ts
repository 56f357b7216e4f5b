import type { Logger } from "#src/logger";
import type { Metrics } from "#src/metrics";

/** What the watch reads of getWebhookInfo (grammY's Api answers with more). */
export interface WebhookInfoAnswer {
  pending_update_count: number;
  last_error_date?: number;
  last_error_message?: string;
}

export interface WebhookInfoDeps {
  getWebhookInfo: () => Promise<WebhookInfoAnswer>;
  metrics: Metrics;
  logger: Logger;
  now: () => number;
  /** How often Telegram is asked (default every minute). */
  everyMs?: number;
}

export interface WebhookInfoWatch {
  /** Reads getWebhookInfo once now (the timer does so every `everyMs`). */
  readNow(): Promise<void>;
  /** Stops the timer and waits for a read in flight, so no call to Telegram outlives the app. */
  stop(): Promise<void>;
}

export const WEBHOOK_INFO_EVERY_MS = 60_000;

/**
 * Telegram's own view of the webhook, read every minute in webhook mode: a webhook Telegram cannot
 * reach brings the bot no traffic at all, so nothing the bot counts itself shows it. Exports
 * `telegram_webhook_pending_updates` (updates Telegram holds, not yet delivered) and
 * `telegram_webhook_last_error_age_seconds` (seconds since Telegram's last failed delivery; absent
 * while Telegram reports none). A failed read keeps the last values and is logged once at warn
 * until a read succeeds again.
 */
export function watchWebhookInfo(deps: WebhookInfoDeps): WebhookInfoWatch {
  let pending: number | null = null;
  let lastErrorAtMs: number | null = null;
  let failing = false;
  let stopped = false;

  deps.metrics.labeledGauge(
    "telegram_webhook_pending_updates",
    "Updates Telegram holds for this bot's webhook, not yet delivered (getWebhookInfo's pending_update_count, read every minute in webhook mode)",
    async () => (pending === null ? [] : [{ labels: {}, value: pending }]),
  );
  deps.metrics.labeledGauge(
    "telegram_webhook_last_error_age_seconds",
    "Seconds since Telegram's last failed delivery to this bot's webhook (getWebhookInfo's last_error_date); absent while Telegram reports none",
    async () =>
      lastErrorAtMs === null ? [] : [{ labels: {}, value: Math.max(0, (deps.now() - lastErrorAtMs) / 1000) }],
  );

  const remember = (info: WebhookInfoAnswer) => {
    pending = info.pending_update_count;
    const errorAtMs = info.last_error_date === undefined ? null : info.last_error_date * 1000;
    if (errorAtMs !== null && errorAtMs !== lastErrorAtMs) {
      // Telegram's own words (e.g. "Wrong response from the webhook: 502 Bad Gateway"); the URL is not logged.
      deps.logger.warn(
        {
          lastErrorMessage: info.last_error_message,
          pendingUpdates: info.pending_update_count,
          secondsAgo: Math.round((deps.now() - errorAtMs) / 1000),
        },
        "Telegram reports a failed delivery to the webhook",
      );
    }
    lastErrorAtMs = errorAtMs;
  };

  const readNow = async () => {
    try {
      const info = await deps.getWebhookInfo();
      if (stopped) return;
      remember(info);
      if (failing) deps.logger.info("getWebhookInfo answers again; the webhook gauges are current");
      failing = false;
    } catch (error) {
      if (stopped || failing) return;
      failing = true;
      deps.logger.warn(
        { err: error },
        "getWebhookInfo failed; the webhook gauges keep their last values until it answers",
      );
    }
  };

  // One read at a time: a tick that finds Telegram still answering the last one is skipped.
  let reading: Promise<void> | null = null;
  const read = () => {
    reading ??= readNow().finally(() => (reading = null));
    return reading;
  };
  const timer = setInterval(() => void read(), deps.everyMs ?? WEBHOOK_INFO_EVERY_MS);
  timer.unref();
  void read();
  return {
    readNow: read,
    async stop() {
      stopped = true;
      clearInterval(timer);
      await reading;
    },
  };
}
