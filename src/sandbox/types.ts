/**
 * Shapes of the sandbox marketplace: its public factory contract, its wire shapes and its control
 * surface (the records it keeps in memory are in records.ts). Amounts are bigint sun (USDT uses the same 6 decimals); times are
 * ISO strings taken from the injected clock.
 */
import type { Hono } from "hono";

export type Scope = "read" | "purchase" | "full";
export type Resource = "energy" | "bandwidth";
export type Duration = "15m" | "1h" | "1d";
export type Currency = "TRX" | "USDT-TRC20";
export type OrderStatus = "Created" | "Filled" | "Failed";
export type RuleType = "auto-refill" | "auto-renewal" | "smart";
export type RuleStatus = "active" | "paused" | "cancelled";
export type PauseReason = "User" | "System";
export type ErrorCodePlacement = "code" | "type" | "type-uri" | "title" | "detail";
export type Int64Format = "number" | "string";
export type FailureMode = "sync" | "async";

export interface SandboxOptions {
  /** Injectable clock; default () => new Date(). */
  now?: () => Date;
  /** A Created order settles at the first tick() at least this long after creation; default 3000. null: only settleNow() settles. */
  settleDelayMs?: number | null;
  /** Used to POST webhooks; default globalThis.fetch (looked up at call time). */
  webhookFetch?: typeof fetch;
  /** Source of randomness in [0, 1) for ids, keys and tx ids; default crypto-backed. */
  random?: () => number;
}

export interface Sandbox {
  /** Serves /api/v1/* per MARKETPLACE_API.md and the /_sandbox/* control routes. */
  app: Hono;
  control: SandboxControl;
  /** Processes everything due at now(): settlements, daily renewals, webhook deliveries and retries; resolves when the deliveries it started are done. */
  tick(): Promise<void>;
  /** Calls tick() every intervalMs (default 1000); returns stop(). */
  startTimers(intervalMs?: number): () => void;
  /** Funded with 1000 TRX and 50 USDT-TRC20; the key has purchase scope and no spend limit. */
  demo: { accountId: string; apiKey: string };
}

/** Wire shapes shared by the API and the control surface. */
export type Int64Value = number | string;
export interface OrderView {
  id: string;
  resource: Resource;
  targetAddress: string;
  volume: Int64Value;
  duration: string;
  priceTrx: string;
  activationTrx: string;
  totalTrx: string;
  status: OrderStatus;
  txId: string | null;
  createdAt: string;
}
export interface RuleView {
  id: string;
  type: RuleType;
  resource: "energy";
  targetAddress: string;
  minimal: Int64Value | null;
  volume: Int64Value | null;
  duration: string | null;
  spentTrx: string;
  status: RuleStatus;
  pauseReason: PauseReason | null;
  autoResume: boolean;
  createdAt: string;
  updatedAt: string;
}
export interface FiringView {
  volume: Int64Value;
  duration: string | null;
  priceTrx: string;
  createdAt: string;
}
export interface LedgerEntryView {
  id: string;
  type: string;
  currency: Currency;
  amount: string;
  txId: string | null;
  status: string;
  createdAt: string;
}
/** A notification as the API shows it: the stored record without its owner. */
export interface NotificationView {
  id: string;
  type: string;
  level: string;
  title: string;
  body: string;
  link: string | null;
  read: boolean;
  createdAt: string;
}
export interface BalanceView {
  usdtTrc20: string;
  trx: string;
}

/** What GET /api/v1/automations/options serves (plain numbers here); setAutomationOptions changes it. */
export interface AutomationOptionsView {
  durations: Duration[];
  energyUnit: number;
  minVolume: number;
  maxVolume: number;
  renewalMinVolume: number;
  renewalMaxVolume: number;
}

export type FireResult =
  | { fired: true; firing: FiringView; rule: RuleView }
  | { fired: false; reason: "insufficient_balance" | "spend_limit_exceeded"; rule: RuleView };

export interface FaultSpec {
  method?: string;
  pathPrefix?: string;
  times?: number;
  status?: number;
  body?: unknown;
  rawBody?: string;
  headers?: Record<string, string>;
  delayMs?: number;
}

/**
 * Drives the simulated world. Every method is also `POST /_sandbox/<kebab-case-name>` with a JSON
 * body of the named arguments (single positional arguments travel as `{ accountId }` or
 * `{ apiKey }`). Bad arguments throw SandboxError (400, 404 or 409).
 */
export interface SandboxControl {
  createAccount(args?: { trx?: string; usdt?: string }): { accountId: string };
  createKey(args: { accountId: string; scope: Scope; dailyLimitTrx?: string | null }): { apiKey: string };
  revokeKey(args: { apiKey: string }): void;
  setSpendLimit(args: { apiKey: string; dailyLimitTrx: string | null }): void;
  accountIdForKey(apiKey: string): string | null;
  creditDeposit(args: { accountId: string; currency: Currency; amount: string }): LedgerEntryView;
  setBalance(args: { accountId: string; trx?: string; usdt?: string }): BalanceView;
  getBalance(accountId: string): BalanceView;
  failNextOrder(args: { accountId: string; mode: FailureMode }): void;
  settleNow(args?: { accountId?: string }): OrderView[];
  /** How long after creation a tick settles an order; null: orders wait for settleNow (a demo's "settle" button). */
  setSettleDelay(args: { ms: number | null }): { settleDelayMs: number | null };
  getSettleDelay(): { settleDelayMs: number | null };
  markUnactivated(args: { address: string }): void;
  markActivated(args: { address: string }): void;
  fireRule(args: { ruleId: string }): FireResult;
  systemPauseRule(args: { ruleId: string }): RuleView;
  cancelRule(args: { ruleId: string }): RuleView;
  addNotification(args: {
    accountId: string;
    type?: string;
    level?: string;
    title: string;
    body: string;
    link?: string | null;
  }): NotificationView;
  setWebhookUrl(args: { accountId: string; url: string | null }): void;
  listOrders(accountId: string): OrderView[];
  listRules(accountId: string): RuleView[];
  ledger(accountId: string): LedgerEntryView[];
  listNotifications(accountId: string): NotificationView[];
  injectFault(args: FaultSpec): void;
  clearFaults(): void;
  setErrorCodePlacement(args: { placement: ErrorCodePlacement }): void;
  setInt64Format(args: { format: Int64Format }): void;
  /** Changes the automation options (fields left out keep their value); rule creation and previews follow them. */
  setAutomationOptions(args: Partial<AutomationOptionsView>): AutomationOptionsView;
  /**
   * Sets the provider rate (sun per unit) of one resource for one duration; `sunPerUnit` null
   * restores the price book's. Quotes, order previews and orders follow it (automation firings
   * keep the price book's rates).
   */
  setPrice(args: { resource: Resource; duration: Duration; sunPerUnit: number | string | null }): PriceRateView;
  /** Every rate in force, per resource and duration. */
  getPrices(): PriceRateView[];
  /** Backdates `days` (default 30, at most 90) of orders, rules, firings and ledger entries onto the account; the balance is unchanged. */
  fillHistory(args: { accountId: string; days?: number }): HistorySummary;
}

/** One provider rate of the price book, as setPrice left it. */
export interface PriceRateView {
  resource: Resource;
  duration: Duration;
  sunPerUnit: number;
  /** True when setPrice changed it from the price book's. */
  overridden: boolean;
}

/** What fillHistory made. */
export interface HistorySummary {
  from: string;
  to: string;
  orders: number;
  failedOrders: number;
  rules: number;
  firings: number;
  spentTrx: string;
}
