/** The /api/v1 surface: fault injection first, then authentication, then the resource routes. */
import { Hono } from "hono";
import { problemResponse, SandboxError } from "../problem";
import type { World } from "../records";
import { apiKeyAuth } from "./auth";
import type { ApiEnv } from "./env";
import { faultInjection } from "./faults";
import { registerAutomationRoutes } from "./automations";
import { registerNotificationRoutes } from "./notifications";
import { registerOrderRoutes } from "./orders";
import { registerPricingRoutes } from "./pricing";
import { registerWalletRoutes } from "./wallet";

export function createApiApp(world: World): Hono<ApiEnv> {
  const app = new Hono<ApiEnv>();
  app.use("/api/v1/*", faultInjection(world));
  app.use("/api/v1/*", apiKeyAuth(world));
  registerPricingRoutes(app, world);
  registerOrderRoutes(app, world);
  registerAutomationRoutes(app, world);
  registerWalletRoutes(app, world);
  registerNotificationRoutes(app, world);
  app.all("/api/v1/*", (c) => {
    throw new SandboxError(404, "route.not_found", "Not found", `no endpoint ${c.req.method} ${c.req.path}`);
  });
  app.onError((error, c) => {
    const known =
      error instanceof SandboxError
        ? error
        : new SandboxError(500, "internal.error", "Internal error", `the sandbox failed: ${error.message}`);
    return problemResponse(world.settings.errorCodePlacement, known, c.req.path);
  });
  return app;
}
