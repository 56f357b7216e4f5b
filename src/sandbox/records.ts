/**
 * The records the sandbox marketplace keeps in memory, and the World that holds them. Amounts are
 * bigint sun; times are ISO strings taken from the injected clock.
 */
import type {
  AutomationOptionsView,
  Currency,
  Duration,
  ErrorCodePlacement,
  FailureMode,
  FaultSpec,
  Int64Format,
  NotificationView,
  OrderStatus,
  PauseReason,
  Resource,
  RuleStatus,
  RuleType,
  Scope,
} from "./types";

export interface AccountRecord {
  id: string;
  trxSun: bigint;
  usdtSun: bigint;
  depositAddress: string | null;
  webhookUrl: string | null;
  failNext: FailureMode | null;
  /** Idempotency-Key → what the first request asked for and the order it made. */
  idempotency: Map<string, { fingerprint: string; orderId: string }>;
}

export interface ApiKeyRecord {
  id: string;
  apiKey: string;
  accountId: string;
  scope: Scope;
  dailyLimitSun: bigint | null;
  revoked: boolean;
}

export interface OrderRecord {
  id: string;
  accountId: string;
  keyId: string;
  resource: Resource;
  targetAddress: string;
  volume: number;
  duration: Duration;
  priceSun: bigint;
  activationSun: bigint;
  totalSun: bigint;
  status: OrderStatus;
  txId: string | null;
  createdAt: string;
  settledAt: string | null;
  /** Set by failNextOrder({ mode: "async" }): settles as Failed. */
  willFail: boolean;
}

export interface FiringRecord {
  volume: number;
  duration: Duration;
  priceSun: bigint;
  createdAt: string;
}

export interface RuleRecord {
  id: string;
  accountId: string;
  creatorKeyId: string;
  type: RuleType;
  targetAddress: string;
  minimal: number | null;
  volume: number | null;
  duration: Duration | null;
  spentSun: bigint;
  status: RuleStatus;
  pauseReason: PauseReason | null;
  autoResume: boolean;
  createdAt: string;
  updatedAt: string;
  /** Auto-renewal only: when tick() fires it next. */
  nextRenewalAt: string | null;
  firings: FiringRecord[];
}

export interface LedgerRecord {
  id: string;
  accountId: string;
  type: string;
  currency: Currency;
  /** Signed: debits are negative. */
  amountSun: bigint;
  txId: string | null;
  status: string;
  createdAt: string;
}

export interface NotificationRecord extends NotificationView {
  accountId: string;
}

export interface WebhookDelivery {
  eventId: string;
  accountId: string;
  url: string;
  event: "order.filled" | "order.failed";
  payload: unknown;
  attempts: number;
  nextAttemptAt: number;
  state: "pending" | "delivered" | "failed";
  lastError: string | null;
}

export interface FaultRecord extends Omit<FaultSpec, "times"> {
  remaining: number;
}

/** Everything the sandbox knows, plus its injected dependencies. Arrays are in creation order. */
export interface World {
  now: () => Date;
  random: () => number;
  webhookFetch: typeof fetch;
  settleDelayMs: number | null;
  accounts: Map<string, AccountRecord>;
  keysByApiKey: Map<string, ApiKeyRecord>;
  orders: OrderRecord[];
  rules: RuleRecord[];
  ledger: LedgerRecord[];
  notifications: NotificationRecord[];
  /** The same records per account, so an account's list is read without scanning everyone's. */
  notificationsByAccount: Map<string, NotificationRecord[]>;
  webhooks: WebhookDelivery[];
  faults: FaultRecord[];
  unactivatedAddresses: Set<string>;
  settings: { errorCodePlacement: ErrorCodePlacement; int64Format: Int64Format };
  /** Set by setAutomationOptions; unset means the price book's AUTOMATION_LIMITS and every duration. */
  automationOptions?: AutomationOptionsView;
  /** Rates set by setPrice, sun per unit, keyed "resource:duration"; unset ones are the price book's. */
  rateOverrides?: Map<string, bigint>;
}
