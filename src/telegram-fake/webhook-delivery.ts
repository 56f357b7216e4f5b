import type { FakeState } from "./fake-state";
import type { WebhookDeliveryOptions } from "./types";
import type { QueuedUpdate, UpdateQueue } from "./update-queue";

const RETRY_DELAY_MS = 1000;
// Telegram gives a webhook at most 60 s to answer before it retries.
const ANSWER_TIMEOUT_MS = 60_000;

/** The chat an update belongs to (undefined: none, e.g. an inline query). */
function chatOf(update: QueuedUpdate): number | undefined {
  const inner = Object.values(update).find((value) => typeof value === "object" && value !== null) as
    { chat?: { id?: number }; message?: { chat?: { id?: number } }; from?: { id?: number } } | undefined;
  return inner?.chat?.id ?? inner?.message?.chat?.id ?? inner?.from?.id;
}

/**
 * Posts queued updates to the webhook with the secret token header, oldest first; an update is
 * confirmed on a 2xx answer and retried a second later otherwise, as Telegram does (a failure is
 * remembered as getWebhookInfo's last error). Up to
 * `maxConnections` updates are in flight at once (default 1: strictly one at a time), never two
 * of one chat unless `sameChatInParallel` (what a load balancer's retry can do, Telegram never).
 */
export function createWebhookDelivery(
  state: FakeState,
  updates: UpdateQueue,
  options: WebhookDeliveryOptions = {},
  now: () => number = Date.now,
) {
  const maxConnections = Math.max(1, options.maxConnections ?? 1);
  const inFlight = new Set<number>();
  const retryAt = new Map<number, number>();
  let wakeTimer: ReturnType<typeof setTimeout> | null = null;
  let closed = false;

  function pump(): void {
    const webhook = state.webhook;
    if (closed || !webhook) return;
    const busyChats = new Set<number>();
    let nextRetry = Number.POSITIVE_INFINITY;
    for (const update of updates.waiting(100)) {
      if (inFlight.size >= maxConnections) break;
      const chat = chatOf(update);
      const chatBusy = !options.sameChatInParallel && chat !== undefined && busyChats.has(chat);
      // An earlier update of a chat, delivered or waiting, holds back the later ones (in order).
      if (chat !== undefined) busyChats.add(chat);
      if (inFlight.has(update.update_id) || chatBusy) continue;
      const due = retryAt.get(update.update_id) ?? 0;
      if (due > Date.now()) {
        nextRetry = Math.min(nextRetry, due);
        // One connection keeps Telegram's strict order: nothing overtakes an update being retried.
        if (maxConnections === 1) break;
        continue;
      }
      inFlight.add(update.update_id);
      void post(webhook, update).then((ok) => {
        inFlight.delete(update.update_id);
        if (ok) {
          retryAt.delete(update.update_id);
          updates.confirmOne(update.update_id);
        } else retryAt.set(update.update_id, Date.now() + RETRY_DELAY_MS);
        pump();
      });
    }
    if (nextRetry < Number.POSITIVE_INFINITY && !wakeTimer) {
      wakeTimer = setTimeout(() => {
        wakeTimer = null;
        pump();
      }, nextRetry - Date.now());
      wakeTimer.unref();
    }
  }

  async function post(webhook: { url: string; secretToken?: string }, update: object): Promise<boolean> {
    try {
      const response = await fetch(webhook.url, {
        method: "POST",
        headers: {
          "content-type": "application/json",
          ...(webhook.secretToken ? { "x-telegram-bot-api-secret-token": webhook.secretToken } : {}),
        },
        body: JSON.stringify(update),
        signal: AbortSignal.timeout(ANSWER_TIMEOUT_MS),
      });
      await response.body?.cancel();
      if (!response.ok) failed(`Wrong response from the webhook: ${response.status} ${response.statusText}`.trimEnd());
      return response.ok;
    } catch (error) {
      const code = (error as { cause?: { code?: string } }).cause?.code;
      failed(code === "ECONNREFUSED" ? "Connection refused" : "Connection timed out");
      return false;
    }
  }

  /** Remembers a failed delivery as Telegram does, for getWebhookInfo's last_error_date and last_error_message. */
  function failed(message: string): void {
    state.webhookLastError = { date: Math.floor(now() / 1000), message };
  }

  const stop = updates.onEnqueue(pump);
  return {
    kick: pump,
    close(): void {
      closed = true;
      if (wakeTimer) clearTimeout(wakeTimer);
      stop();
    },
  };
}
