/** GET /api/v1/pricing/quote: public, provider price without commission. */
import type { Hono } from "hono";
import { sunToTrx } from "#src/marketplace/money";
import { DURATIONS, isDuration, ORDER_LIMITS, providerCostSun } from "../price-book";
import { validationError } from "../problem";
import type { Duration } from "../types";
import type { World } from "../records";
import type { ApiEnv } from "./env";
import { checkVolume, queryInt64, resourceQuery } from "./request-parsing";

export function registerPricingRoutes(app: Hono<ApiEnv>, world: World): void {
  app.get("/api/v1/pricing/quote", (c) => {
    const resource = resourceQuery(c.req.query("resource"));
    const rawDuration = c.req.query("duration") || "1h";
    if (!isDuration(rawDuration))
      throw validationError(400, `duration must be one of ${DURATIONS.join(", ")}, got ${JSON.stringify(rawDuration)}`);
    const duration: Duration = rawDuration;
    const volume = queryInt64(c, "volume");
    if (volume === undefined) throw validationError(400, "volume is required");
    const limits = ORDER_LIMITS[resource];
    checkVolume(volume, { min: limits.minVolume, max: limits.maxVolume }, 400);
    return c.json({ priceTrx: sunToTrx(providerCostSun(resource, volume, duration, world.rateOverrides)) });
  });
}
