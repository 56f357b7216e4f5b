import type { FakeState } from "./fake-state";
import type { UpdateQueue } from "./update-queue";

const RETRY_DELAY_MS = 1000;
// Telegram gives a webhook at most 60 s to answer before it retries.
const ANSWER_TIMEOUT_MS = 60_000;

/**
 * Posts queued updates to the webhook one at a time, oldest first, with the secret token header;
 * an update is confirmed on a 2xx answer and retried otherwise, as Telegram does.
 */
export function createWebhookDelivery(state: FakeState, updates: UpdateQueue) {
  let running = false;
  let closed = false;

  async function deliverAll(): Promise<void> {
    if (running) return;
    running = true;
    try {
      for (let update = updates.peek(); !closed && state.webhook && update; update = updates.peek()) {
        if (await post(state.webhook, update)) updates.confirm(update.update_id);
        else await new Promise((resolve) => setTimeout(resolve, RETRY_DELAY_MS).unref());
      }
    } finally {
      running = false;
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
      return response.ok;
    } catch {
      return false;
    }
  }

  const stop = updates.onEnqueue(() => void deliverAll());
  return {
    kick: () => void deliverAll(),
    close(): void {
      closed = true;
      stop();
    },
  };
}
