import { z } from "zod";
import { absentAsNull, dateTimeSchema, idSchema, trxSchema } from "./scalars";

/** Both balances as decimal strings; `usdtTrc20` is USDT, not TRX, so only its decimal shape is checked. */
/** Neither field is marked required by the spec: an absent one is null (shown as unknown). */
export const balanceSchema = z.object({
  usdtTrc20: absentAsNull(trxSchema),
  trx: absentAsNull(trxSchema),
});
export type Balance = z.output<typeof balanceSchema>;

/** The account's personal deposit address, stable after the first call; minimums per currency (missing list = none given). */
export const depositAddressSchema = z.object({
  network: z.string(),
  address: z.string(),
  minimums: z
    .array(z.object({ currency: z.string(), amount: trxSchema }))
    .nullish()
    .transform((value) => value ?? []),
});
export type DepositAddress = z.output<typeof depositAddressSchema>;

/** A balance transaction. `amount` is in `currency` (USDT-TRC20 or TRX); type and status are open strings. */
export const ledgerEntrySchema = z.object({
  id: idSchema,
  type: z.string(),
  currency: z.string(),
  amount: trxSchema,
  txId: z.string().nullable(),
  status: z.string(),
  createdAt: dateTimeSchema,
});
export type LedgerEntry = z.output<typeof ledgerEntrySchema>;
