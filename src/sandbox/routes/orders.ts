/** /api/v1/orders: placement, lookups, stats, options and the read-only preview. */
import type { Hono } from "hono";
import { z } from "zod";
import { sunToTrx } from "#src/marketplace/money";
import { activationFeeSun, findOrder, orderStats, placeOrder } from "../orders";
import {
  ACTIVATION_MAX_TRX,
  burnCostSun,
  DURATIONS,
  isDuration,
  ORDER_LIMITS,
  providerCostSun,
  savingsPercent,
  withCommission,
} from "../price-book";
import { validationError } from "../problem";
import type { Duration, Resource } from "../types";
import type { World } from "../records";
import { int64, orderView } from "../views";
import { newestFirst } from "../world";
import { requireScope } from "./auth";
import type { ApiEnv } from "./env";
import {
  addressInput,
  checkVolume,
  durationInput,
  int64Input,
  pageOf,
  paging,
  parseWith,
  pathUuid,
  queryInt64,
  readJsonBody,
  resourceQuery,
} from "./request-parsing";

const resourceInput = z.enum(["energy", "bandwidth"], { error: "must be energy or bandwidth" });

const orderBody = z.object({
  // Omitted or null means energy, the resource the rest of the API defaults to.
  resource: resourceInput.nullish().transform((value): Resource => value ?? "energy"),
  targetAddress: addressInput,
  volume: int64Input,
  duration: durationInput,
});

/** `days`: a duration ("15m", "1h", "1d") or a bare whole number of days; default one day. */
function daysQuery(raw: string | undefined): Duration | { days: number } {
  if (raw === undefined || raw === "") return "1d";
  if (isDuration(raw)) return raw;
  if (/^[1-9]\d{0,3}$/.test(raw)) return Number(raw) === 1 ? "1d" : { days: Number(raw) };
  throw validationError(
    400,
    `days must be one of ${DURATIONS.join(", ")} or a whole number of days, got ${JSON.stringify(raw)}`,
  );
}

export function registerOrderRoutes(app: Hono<ApiEnv>, world: World): void {
  app.post("/api/v1/orders", requireScope("purchase"), async (c) => {
    const request = parseWith(orderBody, await readJsonBody(c), 422);
    const limits = ORDER_LIMITS[request.resource];
    checkVolume(request.volume, { min: limits.minVolume, max: limits.maxVolume }, 422);
    const idempotencyKey = c.req.header("Idempotency-Key")?.trim() || null;
    const { order } = placeOrder(world, c.get("key"), c.get("account"), request, idempotencyKey);
    return c.json(orderView(order, world.settings.int64Format), 200);
  });

  app.get("/api/v1/orders/stats", requireScope("read"), (c) => {
    const stats = orderStats(world, c.get("account").id);
    return c.json({
      totalOrders: stats.totalOrders,
      energyDeliveredThisMonth: int64(stats.energyDeliveredThisMonth, world.settings.int64Format),
    });
  });

  app.get("/api/v1/orders/options", requireScope("read"), (c) => {
    const format = world.settings.int64Format;
    return c.json({
      resources: (["energy", "bandwidth"] as const).map((resource) => ({
        resource,
        durations: [...DURATIONS],
        unit: int64(ORDER_LIMITS[resource].unit, format),
        minVolume: int64(ORDER_LIMITS[resource].minVolume, format),
        maxVolume: int64(ORDER_LIMITS[resource].maxVolume, format),
      })),
      activationMaxTrx: ACTIVATION_MAX_TRX,
    });
  });

  app.get("/api/v1/orders/preview", requireScope("read"), (c) => {
    const resource = resourceQuery(c.req.query("resource"));
    const volume = queryInt64(c, "volume");
    if (volume === undefined) throw validationError(400, "volume is required");
    const limits = ORDER_LIMITS[resource];
    checkVolume(volume, { min: limits.minVolume, max: limits.maxVolume }, 400);
    const price = withCommission(
      providerCostSun(resource, volume, daysQuery(c.req.query("days")), world.rateOverrides),
    );
    const target = c.req.query("target");
    // The spec gives the saving versus burning TRX for energy only; bandwidth answers null for both.
    const burn = resource === "energy" ? burnCostSun(resource, volume) : null;
    return c.json({
      priceTrx: sunToTrx(price.priceSun),
      baseCostTrx: sunToTrx(price.baseSun),
      commissionTrx: sunToTrx(price.commissionSun),
      activationTrx: sunToTrx(target ? activationFeeSun(world, target) : 0n),
      burnCostTrx: burn === null ? null : sunToTrx(burn),
      savingsPercent: burn === null ? null : savingsPercent(burn, price.priceSun),
      balanceTrx: sunToTrx(c.get("account").trxSun),
    });
  });

  app.get("/api/v1/orders/:id", requireScope("read"), (c) => {
    const order = findOrder(world, c.get("account").id, pathUuid(c, "order"));
    return c.json(orderView(order, world.settings.int64Format));
  });

  app.get("/api/v1/orders", requireScope("read"), (c) => {
    const { page, pageSize } = paging(c);
    const mine = newestFirst(world.orders.filter((order) => order.accountId === c.get("account").id));
    const items = pageOf(mine, page, pageSize).map((order) => orderView(order, world.settings.int64Format));
    return c.json({ items, page, pageSize, total: mine.length });
  });
}
