/**
 * Outgoing order.filled / order.failed webhooks. A failed delivery (non-2xx or network error)
 * is retried by tick() after 1s, 2s, 4s, 8s, 16s on the injected clock: six attempts in all.
 */
import { newUuid } from "./ids";
import type { OrderRecord, WebhookDelivery, World } from "./types";
import { orderView } from "./views";
import { nowIso } from "./world";

export const WEBHOOK_MAX_ATTEMPTS = 6;
const WEBHOOK_TIMEOUT_MS = 5000;

export function enqueueOrderEvent(world: World, order: OrderRecord, event: "order.filled" | "order.failed"): void {
  const account = world.accounts.get(order.accountId);
  if (!account?.webhookUrl) return;
  const eventId = newUuid(world.random);
  world.webhooks.push({
    eventId,
    accountId: account.id,
    url: account.webhookUrl,
    event,
    payload: { id: eventId, event, createdAt: nowIso(world), data: { order: orderView(order, world.settings.int64Format) } },
    attempts: 0,
    nextAttemptAt: world.now().getTime(),
    state: "pending",
    lastError: null,
  });
}

async function attempt(world: World, delivery: WebhookDelivery): Promise<string | null> {
  try {
    const response = await world.webhookFetch(delivery.url, {
      method: "POST",
      headers: {
        "Content-Type": "application/json",
        "User-Agent": "marketplace-sandbox/1",
        "X-Marketplace-Event": delivery.event,
        "X-Marketplace-Delivery": delivery.eventId,
      },
      body: JSON.stringify(delivery.payload),
      signal: AbortSignal.timeout(WEBHOOK_TIMEOUT_MS),
    });
    // Drain the body so keep-alive sockets are released.
    await response.arrayBuffer().catch(() => undefined);
    return response.ok ? null : `HTTP ${response.status}`;
  } catch (error) {
    return error instanceof Error ? error.message : String(error);
  }
}

/** Sends every delivery whose time has come, one at a time, and schedules retries of the failures. */
export async function deliverDueWebhooks(world: World): Promise<void> {
  const due = world.webhooks.filter((delivery) => delivery.state === "pending" && delivery.nextAttemptAt <= world.now().getTime());
  for (const delivery of due) {
    delivery.attempts += 1;
    const failure = await attempt(world, delivery);
    if (failure === null) {
      delivery.state = "delivered";
      delivery.lastError = null;
      continue;
    }
    delivery.lastError = failure;
    if (delivery.attempts >= WEBHOOK_MAX_ATTEMPTS) delivery.state = "failed";
    else delivery.nextAttemptAt = world.now().getTime() + 1000 * 2 ** (delivery.attempts - 1);
  }
}
