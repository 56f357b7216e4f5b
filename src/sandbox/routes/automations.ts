/** /api/v1/automations: refill, renewal and smart rules, their state changes and firings. */
import type { Hono } from "hono";
import { z } from "zod";
import { sunToTrx } from "#src/marketplace/money";
import { automationOptionsOf, cancelRule, createRule, findRule, pauseRule, resumeRule } from "../automations";
import type { RuleRequest } from "../automations";
import { firingShape, providerCostSun, withCommission } from "../price-book";
import { validationError } from "../problem";
import type { Duration, RuleType } from "../types";
import type { World } from "../records";
import { firingView, int64, ruleView } from "../views";
import { newestFirst } from "../world";
import { requireScope } from "./auth";
import type { ApiEnv } from "./env";
import {
  addressInput,
  checkVolume,
  durationInput,
  int64Input,
  parseWith,
  pathUuid,
  queryInt64,
  readJsonBody,
} from "./request-parsing";

const MAX_FIRINGS_LISTED = 50;

// Read per request: the options can change while the sandbox runs (setAutomationOptions).
function refillBounds(world: World): { min: number; max: number } {
  const options = automationOptionsOf(world);
  return { min: options.minVolume, max: options.maxVolume };
}

function renewalBounds(world: World): { min: number; max: number } {
  const options = automationOptionsOf(world);
  return { min: options.renewalMinVolume, max: options.renewalMaxVolume };
}

/** A refill duration must be one the automation options list now. */
function checkRefillDuration(world: World, duration: unknown, status: 400 | 422): Duration {
  const allowed = automationOptionsOf(world).durations;
  if (typeof duration !== "string" || !(allowed as string[]).includes(duration)) {
    throw validationError(
      status,
      `duration must be one of ${allowed.join(", ")}, got ${JSON.stringify(duration ?? null)}`,
    );
  }
  return duration as Duration;
}

const autoResumeInput = z
  .boolean({ error: "must be true or false" })
  .optional()
  .transform((value) => value ?? false);

const refillBody = z.object({
  targetAddress: addressInput,
  minimal: int64Input,
  volume: int64Input,
  duration: durationInput,
  autoResume: autoResumeInput,
});
const renewalBody = z.object({ targetAddress: addressInput, volume: int64Input, autoResume: autoResumeInput });
const smartBody = z.object({ targetAddress: addressInput, autoResume: autoResumeInput });

/**
 * Preview type names: the spec's "refill"/"smart", plus "renewal"; the rule type literals are
 * accepted too. A Map: `?type=constructor` must be refused, not find a built-in.
 */
const PREVIEW_TYPES = new Map<string, RuleType>([
  ["refill", "auto-refill"],
  ["auto-refill", "auto-refill"],
  ["renewal", "auto-renewal"],
  ["auto-renewal", "auto-renewal"],
  ["smart", "smart"],
]);

export function registerAutomationRoutes(app: Hono<ApiEnv>, world: World): void {
  const view = (rule: Parameters<typeof ruleView>[0]) => ruleView(rule, world.settings.int64Format);

  app.get("/api/v1/automations/options", requireScope("read"), (c) => {
    const format = world.settings.int64Format;
    const options = automationOptionsOf(world);
    return c.json({
      durations: options.durations,
      energyUnit: int64(options.energyUnit, format),
      minVolume: int64(options.minVolume, format),
      maxVolume: int64(options.maxVolume, format),
      renewalMinVolume: int64(options.renewalMinVolume, format),
      renewalMaxVolume: int64(options.renewalMaxVolume, format),
    });
  });

  app.get("/api/v1/automations/preview", requireScope("read"), (c) => {
    const rawType = c.req.query("type") || "refill";
    const type = PREVIEW_TYPES.get(rawType);
    if (!type) throw validationError(400, `type must be refill, renewal or smart, got ${JSON.stringify(rawType)}`);
    let volume: number | null = null;
    let duration: Duration | null = null;
    if (type !== "smart") {
      volume = queryInt64(c, "volume") ?? null;
      if (volume === null) throw validationError(400, "volume is required");
      checkVolume(volume, type === "auto-refill" ? refillBounds(world) : renewalBounds(world), 400);
    }
    if (type === "auto-refill") duration = checkRefillDuration(world, c.req.query("duration"), 400);
    const shape = firingShape({ type, volume, duration });
    const price = withCommission(providerCostSun("energy", shape.volume, shape.duration));
    return c.json({
      priceTrx: sunToTrx(price.priceSun),
      baseCostTrx: sunToTrx(price.baseSun),
      commissionTrx: sunToTrx(price.commissionSun),
    });
  });

  app.get("/api/v1/automations", requireScope("read"), (c) => {
    const mine = world.rules.filter((rule) => rule.accountId === c.get("account").id);
    return c.json(newestFirst(mine).map(view));
  });

  app.post("/api/v1/automations", requireScope("purchase"), async (c) => {
    const body = parseWith(refillBody, await readJsonBody(c), 422);
    checkVolume(body.volume, refillBounds(world), 422);
    checkRefillDuration(world, body.duration, 422);
    if (body.minimal < 0) throw validationError(422, `minimal must be 0 or more, got ${body.minimal}`);
    const request: RuleRequest = { type: "auto-refill", ...body };
    return c.json(view(createRule(world, c.get("key"), c.get("account"), request)));
  });

  app.post("/api/v1/automations/renewal", requireScope("purchase"), async (c) => {
    const body = parseWith(renewalBody, await readJsonBody(c), 422);
    checkVolume(body.volume, renewalBounds(world), 422);
    const request: RuleRequest = { type: "auto-renewal", minimal: null, duration: "1d", ...body };
    return c.json(view(createRule(world, c.get("key"), c.get("account"), request)));
  });

  app.post("/api/v1/automations/smart", requireScope("purchase"), async (c) => {
    const body = parseWith(smartBody, await readJsonBody(c), 422);
    const request: RuleRequest = { type: "smart", minimal: null, volume: null, duration: null, ...body };
    return c.json(view(createRule(world, c.get("key"), c.get("account"), request)));
  });

  const transitions = { pause: pauseRule, resume: resumeRule, cancel: cancelRule } as const;
  for (const [action, transition] of Object.entries(transitions)) {
    app.post(`/api/v1/automations/:id/${action}`, requireScope("purchase"), (c) => {
      const rule = findRule(world, c.get("account").id, pathUuid(c, "automation"));
      transition(world, rule);
      return c.json(view(rule));
    });
  }

  app.get("/api/v1/automations/:id/fires", requireScope("read"), (c) => {
    const rule = findRule(world, c.get("account").id, pathUuid(c, "automation"));
    return c.json(
      newestFirst(rule.firings)
        .slice(0, MAX_FIRINGS_LISTED)
        .map((firing) => firingView(firing, world.settings.int64Format)),
    );
  });
}
