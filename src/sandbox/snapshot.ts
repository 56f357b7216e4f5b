/**
 * The sandbox world as text and back, so the embedded sandbox can keep its accounts, keys,
 * orders and rules across restarts of `npm start`. Maps, sets and bigint amounts are tagged in the
 * JSON; injected dependencies (clock, randomness, fetch) and armed faults are not saved.
 */
import type { World } from "./records";

const FORMAT = 1;

/** The persisted parts of a World. */
type SavedWorld = Pick<
  World,
  | "accounts"
  | "keysByApiKey"
  | "orders"
  | "rules"
  | "ledger"
  | "notifications"
  | "webhooks"
  | "unactivatedAddresses"
  | "settings"
  | "rateOverrides"
>;

export interface SandboxSnapshot {
  demo: { accountId: string; apiKey: string };
  world: SavedWorld;
}

export function serializeWorld(world: World, demo: { accountId: string; apiKey: string }): string {
  const saved: SavedWorld = {
    accounts: world.accounts,
    keysByApiKey: world.keysByApiKey,
    orders: world.orders,
    rules: world.rules,
    ledger: world.ledger,
    notifications: world.notifications,
    webhooks: world.webhooks,
    unactivatedAddresses: world.unactivatedAddresses,
    settings: world.settings,
    // the prices set from the panel (set-price), so a price watch sees the same price after a restart
    rateOverrides: world.rateOverrides ?? new Map(),
  };
  return JSON.stringify({ format: FORMAT, demo, world: saved }, (_key, value: unknown) => {
    if (typeof value === "bigint") return { $bigint: value.toString() };
    if (value instanceof Map) return { $map: [...value.entries()] };
    if (value instanceof Set) return { $set: [...value.values()] };
    return value;
  });
}

/** Parses a snapshot written by serializeWorld; throws on anything else. */
export function parseSnapshot(text: string): SandboxSnapshot {
  const parsed = JSON.parse(text, (_key, value: unknown) => {
    if (typeof value === "object" && value !== null && !Array.isArray(value)) {
      const tagged = value as { $bigint?: unknown; $map?: unknown; $set?: unknown };
      if (typeof tagged.$bigint === "string") return BigInt(tagged.$bigint);
      if (Array.isArray(tagged.$map)) return new Map(tagged.$map as Array<[unknown, unknown]>);
      if (Array.isArray(tagged.$set)) return new Set(tagged.$set);
    }
    return value;
  }) as { format?: unknown; demo?: { accountId?: unknown; apiKey?: unknown }; world?: SavedWorld };
  if (
    parsed.format !== FORMAT ||
    typeof parsed.demo?.accountId !== "string" ||
    typeof parsed.demo.apiKey !== "string" ||
    !parsed.world
  ) {
    throw new Error("not a sandbox snapshot of a known format");
  }
  const world = parsed.world;
  if (
    !(world.accounts instanceof Map) ||
    !(world.keysByApiKey instanceof Map) ||
    !world.accounts.has(parsed.demo.accountId)
  ) {
    throw new Error("the snapshot has no demo account");
  }
  return { demo: { accountId: parsed.demo.accountId, apiKey: parsed.demo.apiKey }, world };
}

/** Puts a snapshot's records into a fresh world (rebuilding the per-account notification index). */
export function restoreWorld(world: World, snapshot: SandboxSnapshot): void {
  const saved = snapshot.world;
  world.accounts = saved.accounts;
  world.keysByApiKey = saved.keysByApiKey;
  world.orders = saved.orders ?? [];
  world.rules = saved.rules ?? [];
  world.ledger = saved.ledger ?? [];
  world.notifications = saved.notifications ?? [];
  world.webhooks = saved.webhooks ?? [];
  world.unactivatedAddresses = saved.unactivatedAddresses ?? new Set();
  if (saved.settings) world.settings = saved.settings;
  world.rateOverrides = validOverrides(saved.rateOverrides);
  world.notificationsByAccount = new Map();
  for (const notification of world.notifications) {
    const list = world.notificationsByAccount.get(notification.accountId);
    if (list) list.push(notification);
    else world.notificationsByAccount.set(notification.accountId, [notification]);
  }
}

/** Prices set from the panel, as saved: "resource:duration" → whole sun per unit; anything else is dropped. */
function validOverrides(saved: unknown): Map<string, bigint> {
  const overrides = new Map<string, bigint>();
  if (!(saved instanceof Map)) return overrides;
  for (const [key, value] of saved as Map<unknown, unknown>) {
    if (typeof key === "string" && /^(energy|bandwidth):\w+$/.test(key) && typeof value === "bigint" && value > 0n)
      overrides.set(key, value);
  }
  return overrides;
}
