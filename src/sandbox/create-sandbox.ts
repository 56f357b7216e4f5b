/** Wires the world, the API, the control surface and the clock-driven tick into one Sandbox. */
import { Hono } from "hono";
import { renewDueRules } from "./automations";
import { createControl } from "./control";
import { settleDueOrders } from "./orders";
import { problemResponse, SandboxError } from "./problem";
import { createApiApp } from "./routes/api-app";
import { createControlApp } from "./routes/control-app";
import type { Sandbox, SandboxOptions } from "./types";
import { deliverDueWebhooks } from "./webhooks";
import { createWorld } from "./world";

export function createSandbox(options: SandboxOptions = {}): Sandbox {
  const world = createWorld(options);
  const control = createControl(world);

  const { accountId } = control.createAccount({ trx: "1000", usdt: "50" });
  const { apiKey } = control.createKey({ accountId, scope: "purchase", dailyLimitTrx: null });
  const demo = { accountId, apiKey };

  const app = new Hono();
  app.route("/", createApiApp(world));
  app.route("/_sandbox", createControlApp(world, control, demo));
  app.notFound((c) => problemResponse(world.settings.errorCodePlacement, new SandboxError(404, "route.not_found", "Not found", `no endpoint ${c.req.method} ${c.req.path}`), c.req.path));

  // Ticks run one after another so a slow webhook receiver never lets two ticks interleave.
  let chain: Promise<void> = Promise.resolve();
  const runTick = async (): Promise<void> => {
    settleDueOrders(world);
    renewDueRules(world);
    await deliverDueWebhooks(world);
  };
  const tick = (): Promise<void> => {
    chain = chain.then(runTick, runTick);
    return chain;
  };

  const startTimers = (intervalMs = 1000): (() => void) => {
    const handle = setInterval(() => {
      tick().catch((error: unknown) => console.error("sandbox tick failed", error));
    }, intervalMs);
    // Timers alone should not keep a process (or a test run) alive.
    handle.unref();
    return () => clearInterval(handle);
  };

  return { app, control, tick, startTimers, demo };
}
