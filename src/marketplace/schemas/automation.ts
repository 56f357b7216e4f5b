import { z } from "zod";
import { int64Schema } from "../int64";
import { absentAsNull, dateTimeSchema, idSchema, trxSchema } from "./scalars";

/**
 * An automation rule (energy only): auto-refill, auto-renewal or smart mode. `type`, `status`
 * and `pauseReason` are open strings; the spec names active/paused/cancelled and System/User
 * without fixing the literals.
 */
export const automationRuleSchema = z.object({
  id: idSchema,
  type: z.string(),
  resource: z.string(),
  targetAddress: z.string(),
  minimal: int64Schema.nullable(),
  volume: int64Schema.nullable(),
  duration: z.string().nullable(),
  spentTrx: trxSchema,
  status: z.string(),
  pauseReason: z.string().nullable(),
  autoResume: z.boolean(),
  createdAt: dateTimeSchema,
  updatedAt: dateTimeSchema,
});
export type AutomationRule = z.output<typeof automationRuleSchema>;

/** One automation delivery, charged to the TRX balance. */
export const firingSchema = z.object({
  volume: int64Schema,
  duration: z.string().nullable(),
  priceTrx: trxSchema,
  createdAt: dateTimeSchema,
});
export type Firing = z.output<typeof firingSchema>;

/** Bounds for rules: refill uses min/maxVolume, renewal uses renewalMin/MaxVolume. */
export const automationOptionsSchema = z.object({
  durations: z.array(z.string()),
  energyUnit: int64Schema,
  minVolume: int64Schema,
  maxVolume: int64Schema,
  renewalMinVolume: int64Schema,
  renewalMaxVolume: int64Schema,
});
export type AutomationOptions = z.output<typeof automationOptionsSchema>;

/** The cost of one firing at the caller's price. */
/** The price is what the card is for; the spec marks none of these required, so the parts may be absent. */
export const automationPreviewSchema = z.object({
  priceTrx: trxSchema,
  baseCostTrx: absentAsNull(trxSchema),
  commissionTrx: absentAsNull(trxSchema),
});
export type AutomationPreview = z.output<typeof automationPreviewSchema>;
