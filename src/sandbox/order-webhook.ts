/**
 * A webhook sent on request for an order that already exists (the playground's "Send webhook"
 * button): the payload and headers of a settlement's webhook, posted at once to a URL of the
 * caller's choosing, whatever URL the account registered. One attempt, no retries: the caller
 * shows the outcome. It is kept in the world's webhook list (final state) for the state dump.
 */
import { newUuid } from "./ids";
import { SandboxError } from "./problem";
import type { World } from "./records";
import { orderView } from "./views";
import { nowIso } from "./world";

export type OrderEventName = "order.filled" | "order.failed";

export interface OrderWebhookResult {
  eventId: string;
  event: OrderEventName;
  delivered: boolean;
  /** Why it was not delivered: "HTTP 404", a network error. */
  error: string | null;
}

const FINAL_EVENT: Record<string, OrderEventName | undefined> = { Filled: "order.filled", Failed: "order.failed" };
const TIMEOUT_MS = 5000;

/** Posts the event (by default the one matching the order's final status); 409 while the order is Created. */
export async function postOrderWebhook(
  world: World,
  args: { orderId: unknown; url: unknown; event?: unknown },
): Promise<OrderWebhookResult> {
  const order =
    typeof args.orderId === "string" ? world.orders.find((candidate) => candidate.id === args.orderId) : undefined;
  if (!order)
    throw new SandboxError(404, "order.not_found", "Order not found", `no order ${JSON.stringify(args.orderId)}`);
  if (typeof args.url !== "string" || !/^https?:\/\//.test(args.url) || !URL.canParse(args.url)) {
    throw new SandboxError(400, "control.bad_argument", "Bad argument", "url must be an http(s) URL");
  }
  if (args.event !== undefined && args.event !== "order.filled" && args.event !== "order.failed") {
    throw new SandboxError(400, "control.bad_argument", "Bad argument", "event must be order.filled or order.failed");
  }
  const event = (args.event as OrderEventName | undefined) ?? FINAL_EVENT[order.status];
  if (!event)
    throw new SandboxError(
      409,
      "order.not_settled",
      "Order not settled",
      `order ${order.id} is still ${order.status}: settle it first or name the event`,
    );

  const eventId = newUuid(world.random);
  const payload = {
    id: eventId,
    event,
    createdAt: nowIso(world),
    data: { order: orderView(order, world.settings.int64Format) },
  };
  let error: string | null;
  try {
    const response = await world.webhookFetch(args.url, {
      method: "POST",
      headers: {
        "Content-Type": "application/json",
        "User-Agent": "marketplace-sandbox/1",
        "X-Marketplace-Event": event,
        "X-Marketplace-Delivery": eventId,
      },
      body: JSON.stringify(payload),
      signal: AbortSignal.timeout(TIMEOUT_MS),
    });
    await response.arrayBuffer().catch(() => undefined);
    error = response.ok ? null : `HTTP ${response.status}`;
  } catch (failure) {
    error = failure instanceof Error ? failure.message : String(failure);
  }
  world.webhooks.push({
    eventId,
    accountId: order.accountId,
    url: args.url,
    event,
    payload,
    attempts: 1,
    nextAttemptAt: world.now().getTime(),
    state: error === null ? "delivered" : "failed",
    lastError: error,
  });
  return { eventId, event, delivered: error === null, error };
}
