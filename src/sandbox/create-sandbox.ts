/** Wires the world, the API, the control surface and the clock-driven tick into one Sandbox. */
import { Hono } from "hono";
import { renewDueRules } from "./automations";
import { createControl } from "./control";
import { settleDueOrders } from "./orders";
import { problemResponse, SandboxError } from "./problem";
import { createApiApp } from "./routes/api-app";
import { createControlApp } from "./routes/control-app";
import type { Sandbox, SandboxOptions } from "./types";
import { postOrderWebhook, type OrderEventName, type OrderWebhookResult } from "./order-webhook";
import { restoreWorld, serializeWorld, type SandboxSnapshot } from "./snapshot";
import { deliverDueWebhooks } from "./webhooks";
import { createWorld } from "./world";

export function createSandbox(options: SandboxOptions = {}): Sandbox {
  return createRestorableSandbox(options).sandbox;
}

/**
 * A sandbox that starts from a saved snapshot (its demo account and key included) when one is
 * given, and can write its state out again: the embedded sandbox keeps it in the data folder.
 */
export function createRestorableSandbox(
  options: SandboxOptions = {},
  snapshot?: SandboxSnapshot,
): {
  sandbox: Sandbox;
  serialize(): string;
  postOrderWebhook(args: { orderId: string; url: string; event?: OrderEventName }): Promise<OrderWebhookResult>;
} {
  const world = createWorld(options);
  const control = createControl(world);

  let demo: { accountId: string; apiKey: string };
  if (snapshot) {
    restoreWorld(world, snapshot);
    demo = { ...snapshot.demo };
  } else {
    const { accountId } = control.createAccount({ trx: "1000", usdt: "50" });
    const { apiKey } = control.createKey({ accountId, scope: "purchase", dailyLimitTrx: null });
    demo = { accountId, apiKey };
  }

  const app = new Hono();
  app.route("/", createApiApp(world));
  app.route("/_sandbox", createControlApp(world, control, demo));
  app.notFound((c) =>
    problemResponse(
      world.settings.errorCodePlacement,
      new SandboxError(404, "route.not_found", "Not found", `no endpoint ${c.req.method} ${c.req.path}`),
      c.req.path,
    ),
  );

  // Settlement and renewals are synchronous, so ticks cannot interleave them. Webhook deliveries run
  // beside later ticks (one in flight is never sent twice): a hanging receiver must not hold up
  // everyone's settlement. tick() still resolves once the deliveries it started are done.
  const tick = (): Promise<void> => {
    settleDueOrders(world);
    renewDueRules(world);
    return deliverDueWebhooks(world);
  };

  const startTimers = (intervalMs = 1000): (() => void) => {
    const handle = setInterval(() => {
      tick().catch((error: unknown) => console.error("sandbox tick failed", error));
    }, intervalMs);
    // Timers alone should not keep a process (or a test run) alive.
    handle.unref();
    return () => clearInterval(handle);
  };

  return {
    sandbox: { app, control, tick, startTimers, demo },
    serialize: () => serializeWorld(world, demo),
    postOrderWebhook: (args) => postOrderWebhook(world, args),
  };
}
