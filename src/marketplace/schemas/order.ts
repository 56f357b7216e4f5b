import { z } from "zod";
import { int64Schema } from "../int64";
import { absentAsNull, dateTimeSchema, idSchema, int32Schema, trxSchema } from "./scalars";

/** A one-off purchase. `status` is open: Created and Filled are named, a failed state exists under an unnamed literal. */
export const orderSchema = z.object({
  id: idSchema,
  resource: z.string(),
  targetAddress: z.string(),
  volume: int64Schema,
  duration: z.string(),
  priceTrx: trxSchema,
  activationTrx: trxSchema,
  totalTrx: trxSchema,
  status: z.string(),
  txId: z.string().nullable(),
  createdAt: dateTimeSchema,
});
export type Order = z.output<typeof orderSchema>;

/** Order counters for the key's account; energy counted over the current calendar month. */
export const orderStatsSchema = z.object({
  totalOrders: int32Schema,
  energyDeliveredThisMonth: int64Schema,
});
export type OrderStats = z.output<typeof orderStatsSchema>;

/** Per-resource bounds for orders; the source of truth, since bounds change over time. `unit` is what one transaction costs. */
export const orderOptionsSchema = z.object({
  resources: z.array(
    z.object({
      resource: z.string(),
      durations: z.array(z.string()),
      unit: int64Schema,
      minVolume: int64Schema,
      maxVolume: int64Schema,
    }),
  ),
  activationMaxTrx: absentAsNull(trxSchema),
});
export type OrderOptions = z.output<typeof orderOptionsSchema>;

/**
 * The cost of an order before placing it. The price parts are always needed; the activation
 * fee, the burn comparison (energy only), the saving and the balance may be absent (null).
 */
export const orderPreviewSchema = z.object({
  // The price is what the card is for; the spec marks none of these required, so the rest may be absent.
  priceTrx: trxSchema,
  baseCostTrx: absentAsNull(trxSchema),
  commissionTrx: absentAsNull(trxSchema),
  activationTrx: absentAsNull(trxSchema),
  burnCostTrx: absentAsNull(trxSchema),
  // A number as a string; a server may write the sign too ("65.9%"), which the card adds itself.
  savingsPercent: absentAsNull(z.string().transform((value) => value.trim().replace(/\s*%$/, ""))),
  balanceTrx: absentAsNull(trxSchema),
});
export type OrderPreview = z.output<typeof orderPreviewSchema>;

/** The public provider price with no commission (GET /api/v1/pricing/quote). */
export const priceQuoteSchema = z.object({
  priceTrx: trxSchema,
});
export type PriceQuote = z.output<typeof priceQuoteSchema>;
