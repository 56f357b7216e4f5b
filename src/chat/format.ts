import { formatDecimalForLocale, trxToSun } from "#src/marketplace/money";
import type { Language, Translate } from "./i18n";
import { marketWord } from "./html";

/*
 * Numbers are written as the reader's language writes them, and every formatter takes that
 * language: a handler passes its update's (ctx.lang, from /settings or Telegram), a pushed alert
 * its recipient's. (An AsyncLocalStorage carried it before: on Node 20 and 22 it puts a hook on
 * every promise of the process, a few per cent of an update's CPU.)
 */

/** "65,000" (ru "65 000") from an int64 string or bigint. */
export function volumeText(volume: string | bigint, language: Language): string {
  return formatDecimalForLocale(volume.toString(), language);
}

/** "1,234" (ru "1 234"): a count (of orders, pages, entries) as the reader's language writes it. */
export function countText(count: number, language: Language): string {
  return formatDecimalForLocale(String(count), language);
}

/** "1,090.705" (ru "1 090,705"): a decimal amount of any currency, without its unit, never through a float. */
export function amountText(value: string, language: Language): string {
  return formatDecimalForLocale(value, language);
}

/** "1,090.705 TRX" (ru "1 090,705 TRX") from the API's decimal string, never through a float. */
export function trxText(trx: string, language: Language): string {
  return `${formatDecimalForLocale(trx, language)} TRX`;
}

/** What stands for an amount the marketplace left out (a field its spec does not mark required). */
export const UNKNOWN_AMOUNT = "—";

/** {@link amountText}, or {@link UNKNOWN_AMOUNT} for an amount left out. */
export function knownAmountText(value: string | null, language: Language): string {
  return value === null ? UNKNOWN_AMOUNT : amountText(value, language);
}

/** {@link trxText}, or {@link UNKNOWN_AMOUNT} for an amount left out. */
export function knownTrxText(trx: string | null, language: Language): string {
  return trx === null ? UNKNOWN_AMOUNT : trxText(trx, language);
}

/** Price per unit in sun with up to 3 decimals, computed exactly (ru "71,5"). */
export function sunPerUnit(priceTrx: string, volume: bigint, language: Language): string {
  if (volume <= 0n) return "0";
  const milliSun = (trxToSun(priceTrx) * 1000n) / volume;
  const whole = milliSun / 1000n;
  const fraction = (milliSun % 1000n).toString().padStart(3, "0").replace(/0+$/, "");
  return formatDecimalForLocale(fraction ? `${whole}.${fraction}` : whole.toString(), language);
}

/** A timestamp in UTC, compact: 2026-11-22 05:31 UTC. Invalid input is shown as given. */
export function timeText(iso: string): string {
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return iso;
  return `${date.toISOString().slice(0, 16).replace("T", " ")} UTC`;
}

/** "Energy" or "Bandwidth" in the reader's language; another resource as the marketplace names it. */
export function resourceText(ctx: { tr: Translate }, resource: string): string {
  return resource === "energy" || resource === "bandwidth" ? ctx.tr(`resource-${resource}`) : marketWord(resource);
}

/** The units of a duration as each language writes them after the number. */
const DURATION_UNITS: Record<Language, Record<"m" | "h" | "d", string>> = {
  en: { m: "m", h: "h", d: "d" },
  ru: { m: " мин", h: " ч", d: " дн." },
  zh: { m: " 分钟", h: " 小时", d: " 天" },
};

/**
 * A marketplace duration ("15m", "1h", "3d") as the reader's language writes it: en "1h", ru
 * "1 ч", zh "1 天". One the marketplace writes otherwise is shown as its own word (cut short).
 */
export function durationText(duration: string, language: Language): string {
  const match = /^(\d{1,6})([mhd])$/i.exec(duration.trim());
  if (!match) return marketWord(duration);
  return `${match[1]}${DURATION_UNITS[language][match[2]!.toLowerCase() as "m" | "h" | "d"]}`;
}
