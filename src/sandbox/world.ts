/** The sandbox's in-memory state and the small primitives every operation shares. */
import { randomInt } from "node:crypto";
import { newTxId, newUuid } from "./ids";
import { SandboxError } from "./problem";
import type { Currency, SandboxOptions } from "./types";
import type { AccountRecord, LedgerRecord, NotificationRecord, World } from "./records";

export function createWorld(options: SandboxOptions): World {
  return {
    now: options.now ?? (() => new Date()),
    random: options.random ?? (() => randomInt(0, 2 ** 47) / 2 ** 47),
    // Looked up at call time so a test that stubs globalThis.fetch after construction is honoured.
    webhookFetch: options.webhookFetch ?? ((input, init) => globalThis.fetch(input, init)),
    settleDelayMs: options.settleDelayMs === undefined ? 3000 : options.settleDelayMs,
    accounts: new Map(),
    keysByApiKey: new Map(),
    orders: [],
    rules: [],
    ledger: [],
    notifications: [],
    notificationsByAccount: new Map(),
    webhooks: [],
    faults: [],
    unactivatedAddresses: new Set(),
    settings: { errorCodePlacement: "type-uri", int64Format: "number" },
  };
}

export function nowIso(world: World): string {
  return world.now().toISOString();
}

/** The UTC calendar day ("2025-01-31") of an ISO timestamp. */
export function utcDay(iso: string): string {
  return iso.slice(0, 10);
}

export function requireAccount(world: World, accountId: unknown): AccountRecord {
  const account = typeof accountId === "string" ? world.accounts.get(accountId) : undefined;
  if (!account)
    throw new SandboxError(404, "account.not_found", "Account not found", `no account ${JSON.stringify(accountId)}`);
  return account;
}

export function createAccountRecord(world: World): AccountRecord {
  const account: AccountRecord = {
    id: newUuid(world.random),
    trxSun: 0n,
    usdtSun: 0n,
    depositAddress: null,
    webhookUrl: null,
    failNext: null,
    idempotency: new Map(),
  };
  world.accounts.set(account.id, account);
  return account;
}

/** Moves a balance and writes the matching ledger entry; amountSun is signed (debits negative). */
export function postLedgerEntry(
  world: World,
  account: AccountRecord,
  entry: { type: string; currency: Currency; amountSun: bigint; txId?: string | null },
): LedgerRecord {
  if (entry.currency === "TRX") account.trxSun += entry.amountSun;
  else account.usdtSun += entry.amountSun;
  const record: LedgerRecord = {
    id: newUuid(world.random),
    accountId: account.id,
    type: entry.type,
    currency: entry.currency,
    amountSun: entry.amountSun,
    txId: entry.txId ?? null,
    status: "Completed",
    createdAt: nowIso(world),
  };
  world.ledger.push(record);
  return record;
}

/** A deposit arrives from the chain, so it carries a tx id. */
export function depositTxId(world: World): string {
  return newTxId(world.random);
}

export function raiseNotification(
  world: World,
  accountId: string,
  notification: { type: string; level: string; title: string; body: string; link?: string | null },
): NotificationRecord {
  const record: NotificationRecord = {
    id: newUuid(world.random),
    accountId,
    type: notification.type,
    level: notification.level,
    title: notification.title,
    body: notification.body,
    link: notification.link ?? null,
    read: false,
    createdAt: nowIso(world),
  };
  world.notifications.push(record);
  const list = world.notificationsByAccount.get(accountId);
  if (list) list.push(record);
  else world.notificationsByAccount.set(accountId, [record]);
  return record;
}

/** An account's notifications in creation order. */
export function notificationsOf(world: World, accountId: string): NotificationRecord[] {
  return world.notificationsByAccount.get(accountId) ?? [];
}

/** Newest first without disturbing the stored creation order (timestamps can tie under a frozen clock). */
export function newestFirst<T>(items: readonly T[]): T[] {
  return [...items].reverse();
}
