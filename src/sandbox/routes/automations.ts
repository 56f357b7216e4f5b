/** /api/v1/automations: refill, renewal and smart rules, their state changes and firings. */
import type { Hono } from "hono";
import { z } from "zod";
import { sunToTrx } from "../../marketplace/money";
import { cancelRule, createRule, findRule, pauseRule, resumeRule } from "../automations";
import type { RuleRequest } from "../automations";
import { AUTOMATION_LIMITS, DURATIONS, firingShape, isDuration, providerCostSun, withCommission } from "../price-book";
import { validationError } from "../problem";
import type { Duration, RuleType, World } from "../types";
import { firingView, int64, ruleView } from "../views";
import { newestFirst } from "../world";
import { requireScope } from "./auth";
import type { ApiEnv } from "./env";
import { addressInput, checkVolume, durationInput, int64Input, parseWith, pathUuid, queryInt64, readJsonBody } from "./request-parsing";

const MAX_FIRINGS_LISTED = 50;
const REFILL_BOUNDS = { min: AUTOMATION_LIMITS.minVolume, max: AUTOMATION_LIMITS.maxVolume };
const RENEWAL_BOUNDS = { min: AUTOMATION_LIMITS.renewalMinVolume, max: AUTOMATION_LIMITS.renewalMaxVolume };

const autoResumeInput = z.boolean({ error: "must be true or false" }).optional().transform((value) => value ?? false);

const refillBody = z.object({ targetAddress: addressInput, minimal: int64Input, volume: int64Input, duration: durationInput, autoResume: autoResumeInput });
const renewalBody = z.object({ targetAddress: addressInput, volume: int64Input, autoResume: autoResumeInput });
const smartBody = z.object({ targetAddress: addressInput, autoResume: autoResumeInput });

/** Preview type names: the spec's "refill"/"smart", plus "renewal"; the rule type literals are accepted too. */
const PREVIEW_TYPES: Record<string, RuleType> = {
  refill: "auto-refill",
  "auto-refill": "auto-refill",
  renewal: "auto-renewal",
  "auto-renewal": "auto-renewal",
  smart: "smart",
};

export function registerAutomationRoutes(app: Hono<ApiEnv>, world: World): void {
  const view = (rule: Parameters<typeof ruleView>[0]) => ruleView(rule, world.settings.int64Format);

  app.get("/api/v1/automations/options", requireScope("read"), (c) => {
    const format = world.settings.int64Format;
    return c.json({
      durations: [...DURATIONS],
      energyUnit: int64(AUTOMATION_LIMITS.energyUnit, format),
      minVolume: int64(AUTOMATION_LIMITS.minVolume, format),
      maxVolume: int64(AUTOMATION_LIMITS.maxVolume, format),
      renewalMinVolume: int64(AUTOMATION_LIMITS.renewalMinVolume, format),
      renewalMaxVolume: int64(AUTOMATION_LIMITS.renewalMaxVolume, format),
    });
  });

  app.get("/api/v1/automations/preview", requireScope("read"), (c) => {
    const rawType = c.req.query("type") || "refill";
    const type = PREVIEW_TYPES[rawType];
    if (!type) throw validationError(400, `type must be refill, renewal or smart, got ${JSON.stringify(rawType)}`);
    let volume: number | null = null;
    let duration: Duration | null = null;
    if (type !== "smart") {
      volume = queryInt64(c, "volume") ?? null;
      if (volume === null) throw validationError(400, "volume is required");
      checkVolume(volume, type === "auto-refill" ? REFILL_BOUNDS : RENEWAL_BOUNDS, 400);
    }
    if (type === "auto-refill") {
      const raw = c.req.query("duration");
      if (!isDuration(raw)) throw validationError(400, `duration must be one of ${DURATIONS.join(", ")}, got ${JSON.stringify(raw ?? null)}`);
      duration = raw;
    }
    const shape = firingShape({ type, volume, duration });
    const price = withCommission(providerCostSun("energy", shape.volume, shape.duration));
    return c.json({ priceTrx: sunToTrx(price.priceSun), baseCostTrx: sunToTrx(price.baseSun), commissionTrx: sunToTrx(price.commissionSun) });
  });

  app.get("/api/v1/automations", requireScope("read"), (c) => {
    const mine = world.rules.filter((rule) => rule.accountId === c.get("account").id);
    return c.json(newestFirst(mine).map(view));
  });

  app.post("/api/v1/automations", requireScope("purchase"), async (c) => {
    const body = parseWith(refillBody, await readJsonBody(c), 422);
    checkVolume(body.volume, REFILL_BOUNDS, 422);
    if (body.minimal < 0) throw validationError(422, `minimal must be 0 or more, got ${body.minimal}`);
    const request: RuleRequest = { type: "auto-refill", ...body };
    return c.json(view(createRule(world, c.get("key"), c.get("account"), request)));
  });

  app.post("/api/v1/automations/renewal", requireScope("purchase"), async (c) => {
    const body = parseWith(renewalBody, await readJsonBody(c), 422);
    checkVolume(body.volume, RENEWAL_BOUNDS, 422);
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
    return c.json(newestFirst(rule.firings).slice(0, MAX_FIRINGS_LISTED).map((firing) => firingView(firing, world.settings.int64Format)));
  });
}
