/**
 * Per-key daily spend limits. Counted per UTC calendar day: order charges made with the key
 * (refunded orders do not count) plus firings of rules the key created.
 */
import { sunToTrx } from "#src/marketplace/money";
import { SandboxError } from "./problem";
import type { ApiKeyRecord, World } from "./records";
import { nowIso, utcDay } from "./world";

export function spentTodaySun(world: World, keyId: string): bigint {
  const today = utcDay(nowIso(world));
  let total = 0n;
  for (const order of world.orders) {
    if (order.keyId === keyId && order.status !== "Failed" && utcDay(order.createdAt) === today)
      total += order.totalSun;
  }
  for (const rule of world.rules) {
    if (rule.creatorKeyId !== keyId) continue;
    for (const firing of rule.firings) if (utcDay(firing.createdAt) === today) total += firing.priceSun;
  }
  return total;
}

export function wouldExceedSpendLimit(world: World, key: ApiKeyRecord, amountSun: bigint): boolean {
  return key.dailyLimitSun !== null && spentTodaySun(world, key.id) + amountSun > key.dailyLimitSun;
}

export function assertWithinSpendLimit(world: World, key: ApiKeyRecord, amountSun: bigint): void {
  if (!wouldExceedSpendLimit(world, key, amountSun)) return;
  const spent = spentTodaySun(world, key.id);
  throw new SandboxError(
    403,
    "api_key.spend_limit_exceeded",
    "Daily spend limit exceeded",
    `this request costs ${sunToTrx(amountSun)} TRX; the key has spent ${sunToTrx(spent)} of its ${sunToTrx(key.dailyLimitSun ?? 0n)} TRX daily limit (UTC day)`,
  );
}

export function findKeyById(world: World, keyId: string): ApiKeyRecord | undefined {
  for (const key of world.keysByApiKey.values()) if (key.id === keyId) return key;
  return undefined;
}
