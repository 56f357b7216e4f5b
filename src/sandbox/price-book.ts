/**
 * The sandbox's catalogue and price formula. Rates are sun per unit of resource; everything is
 * computed in bigint sun so that quotes, previews and charges agree to the last sun.
 */
import type { Duration, Resource, RuleType } from "./types";

export const DURATIONS: readonly Duration[] = ["15m", "1h", "1d"];

export const ORDER_LIMITS: Record<Resource, { unit: number; minVolume: number; maxVolume: number }> = {
  energy: { unit: 65_000, minVolume: 10_000, maxVolume: 5_000_000 },
  bandwidth: { unit: 350, minVolume: 1_000, maxVolume: 1_000_000 },
};

export const AUTOMATION_LIMITS = {
  energyUnit: 65_000,
  minVolume: 65_000,
  maxVolume: 2_000_000,
  renewalMinVolume: 65_000,
  renewalMaxVolume: 5_000_000,
};

const RATE_SUN: Record<Resource, Record<Duration, bigint>> = {
  energy: { "15m": 55n, "1h": 65n, "1d": 85n },
  bandwidth: { "15m": 600n, "1h": 700n, "1d": 900n },
};

/** What burning TRX for the same resource would cost, per unit. */
const BURN_SUN_PER_UNIT: Record<Resource, bigint> = { energy: 210n, bandwidth: 1000n };

export const ACTIVATION_FEE_SUN = 1_000_000n;
export const ACTIVATION_MAX_TRX = "1.1";
export const COMMISSION_PERCENT = 10n;

/** Smart mode decides delivery itself; each delivery is about 131k energy for an hour. */
export const SMART_DELIVERY = { volume: 131_000, duration: "1h" as Duration };
/** Auto-renewal renews once a day, so each firing buys a day. */
export const RENEWAL_DURATION: Duration = "1d";

export function isDuration(value: unknown): value is Duration {
  return typeof value === "string" && (DURATIONS as readonly string[]).includes(value);
}

/** Rates set by the sandbox's setPrice, keyed "resource:duration" (see World.rateOverrides). */
export type RateOverrides = ReadonlyMap<string, bigint> | undefined;

export function rateKey(resource: Resource, duration: Duration): string {
  return `${resource}:${duration}`;
}

/** Sun per unit of `resource` rented for `duration`: the override when one is set, else the book's. */
export function rateSun(resource: Resource, duration: Duration, overrides?: RateOverrides): bigint {
  return overrides?.get(rateKey(resource, duration)) ?? RATE_SUN[resource][duration];
}

/** The price book's own rate, whatever overrides say. */
export function bookRateSun(resource: Resource, duration: Duration): bigint {
  return RATE_SUN[resource][duration];
}

/** Provider price without commission: what the public quote shows. `days` multiplies the daily rate (order preview). */
export function providerCostSun(
  resource: Resource,
  volume: number,
  duration: Duration | { days: number },
  overrides?: RateOverrides,
): bigint {
  if (typeof duration === "string") return BigInt(volume) * rateSun(resource, duration, overrides);
  return BigInt(volume) * rateSun(resource, "1d", overrides) * BigInt(duration.days);
}

export interface PriceBreakdown {
  baseSun: bigint;
  commissionSun: bigint;
  priceSun: bigint;
}

/** The caller's price: provider cost plus 10% commission, rounded down to the sun. */
export function withCommission(baseSun: bigint): PriceBreakdown {
  const commissionSun = (baseSun * COMMISSION_PERCENT) / 100n;
  return { baseSun, commissionSun, priceSun: baseSun + commissionSun };
}

export function burnCostSun(resource: Resource, volume: number): bigint {
  return BigInt(volume) * BURN_SUN_PER_UNIT[resource];
}

/** (burn − price) / burn × 100 with one decimal, truncated toward zero, as a string ("73.8"). */
export function savingsPercent(burnSun: bigint, priceSun: bigint): string {
  if (burnSun === 0n) return "0.0";
  const tenths = ((burnSun - priceSun) * 1000n) / burnSun;
  const negative = tenths < 0n;
  const abs = negative ? -tenths : tenths;
  return `${negative ? "-" : ""}${abs / 10n}.${abs % 10n}`;
}

/** The volume and duration one firing of a rule delivers. */
export function firingShape(rule: { type: RuleType; volume: number | null; duration: Duration | null }): {
  volume: number;
  duration: Duration;
} {
  if (rule.type === "smart") return SMART_DELIVERY;
  if (rule.type === "auto-renewal") return { volume: rule.volume ?? 0, duration: RENEWAL_DURATION };
  return { volume: rule.volume ?? 0, duration: rule.duration ?? "1h" };
}

/** The price (with commission) of one firing. */
export function firingPriceSun(rule: { type: RuleType; volume: number | null; duration: Duration | null }): bigint {
  const shape = firingShape(rule);
  return withCommission(providerCostSun("energy", shape.volume, shape.duration)).priceSun;
}
