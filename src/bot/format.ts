import { formatTrxForDisplay, groupThousands, trxToSun } from "../marketplace/money";
import type { BotContext } from "./context";

/** "65,000" from an int64 string or bigint. */
export function volumeText(volume: string | bigint): string {
  return groupThousands(volume);
}

/** "12.5 TRX" from the API's decimal string, never through a float. */
export function trxText(trx: string): string {
  return `${formatTrxForDisplay(trx)} TRX`;
}

/** Price per unit in sun with up to 3 decimals, computed exactly. */
export function sunPerUnit(priceTrx: string, volume: bigint): string {
  if (volume <= 0n) return "0";
  const milliSun = (trxToSun(priceTrx) * 1000n) / volume;
  const whole = milliSun / 1000n;
  const fraction = (milliSun % 1000n).toString().padStart(3, "0").replace(/0+$/, "");
  return fraction ? `${whole}.${fraction}` : whole.toString();
}

/** A timestamp in UTC, compact: 2026-11-22 05:31 UTC. Invalid input is shown as given. */
export function timeText(iso: string): string {
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return iso;
  return `${date.toISOString().slice(0, 16).replace("T", " ")} UTC`;
}

export function resourceText(ctx: BotContext, resource: string): string {
  return resource === "energy" || resource === "bandwidth" ? ctx.tr(`resource-${resource}`) : resource;
}
