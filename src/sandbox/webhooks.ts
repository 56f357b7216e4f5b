/**
 * Outgoing order.filled / order.failed webhooks. A failed delivery (non-2xx or network error)
 * is retried by tick() after 1s, 2s, 4s, 8s, 16s on the injected clock: six attempts in all.
 * Each attempt goes to the account's webhook URL as it is at that moment: a changed URL gets the
 * retries, and a cleared one drops what is still pending. Deliveries run side by side and beside
 * later ticks, so a receiver that hangs delays nobody's settlement.
 */
import { newUuid } from "./ids";
import type { OrderRecord, WebhookDelivery, World } from "./records";
import { orderView } from "./views";
import { nowIso } from "./world";

export const WEBHOOK_MAX_ATTEMPTS = 6;
const WEBHOOK_TIMEOUT_MS = 5000;
const URL_CLEARED = "dropped: the account's webhook URL was cleared";

/** Deliveries with an attempt under way; a later tick must not send them again meanwhile. */
const inFlight = new WeakSet<WebhookDelivery>();

export function enqueueOrderEvent(world: World, order: OrderRecord, event: "order.filled" | "order.failed"): void {
  const account = world.accounts.get(order.accountId);
  if (!account?.webhookUrl) return;
  const eventId = newUuid(world.random);
  world.webhooks.push({
    eventId,
    accountId: account.id,
    // Where the last attempt went (for the state dump); each attempt reads the account's URL afresh.
    url: account.webhookUrl,
    event,
    payload: {
      id: eventId,
      event,
      createdAt: nowIso(world),
      data: { order: orderView(order, world.settings.int64Format) },
    },
    attempts: 0,
    nextAttemptAt: world.now().getTime(),
    state: "pending",
    lastError: null,
  });
}

async function attempt(world: World, delivery: WebhookDelivery, url: string): Promise<string | null> {
  try {
    const response = await world.webhookFetch(url, {
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

/** One attempt of one delivery to the account's current URL, then its next state. */
async function send(world: World, delivery: WebhookDelivery): Promise<void> {
  const url = world.accounts.get(delivery.accountId)?.webhookUrl ?? null;
  if (url === null) {
    delivery.state = "failed";
    delivery.lastError = URL_CLEARED;
    return;
  }
  delivery.url = url;
  delivery.attempts += 1;
  inFlight.add(delivery);
  const failure = await attempt(world, delivery, url).finally(() => inFlight.delete(delivery));
  if (failure === null) {
    delivery.state = "delivered";
    delivery.lastError = null;
    return;
  }
  delivery.lastError = failure;
  if (delivery.attempts >= WEBHOOK_MAX_ATTEMPTS) delivery.state = "failed";
  // Backoff counts from when the attempt ended, on the injected clock.
  else delivery.nextAttemptAt = world.now().getTime() + 1000 * 2 ** (delivery.attempts - 1);
}

/**
 * Starts every delivery whose time has come, all at once, and schedules retries of the failures.
 * The returned promise settles when the attempts started here are done; callers that must not
 * wait (the settlement tick) need not await it.
 */
export function deliverDueWebhooks(world: World): Promise<void> {
  const now = world.now().getTime();
  const due = world.webhooks.filter(
    (delivery) => delivery.state === "pending" && delivery.nextAttemptAt <= now && !inFlight.has(delivery),
  );
  return Promise.all(due.map((delivery) => send(world, delivery))).then(() => undefined);
}
