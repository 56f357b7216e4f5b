/** Records → wire JSON. int64 fields follow the chosen format so clients meet both forms the spec allows. */
import { sunToTrx } from "#src/marketplace/money";
import type {
  BalanceView,
  FiringView,
  Int64Format,
  Int64Value,
  LedgerEntryView,
  NotificationView,
  OrderView,
  RuleView,
} from "./types";
import type { AccountRecord, FiringRecord, LedgerRecord, NotificationRecord, OrderRecord, RuleRecord } from "./records";

export function int64(value: number, format: Int64Format): Int64Value {
  return format === "string" ? String(value) : value;
}

function int64OrNull(value: number | null, format: Int64Format): Int64Value | null {
  return value === null ? null : int64(value, format);
}

export function orderView(order: OrderRecord, format: Int64Format): OrderView {
  return {
    id: order.id,
    resource: order.resource,
    targetAddress: order.targetAddress,
    volume: int64(order.volume, format),
    duration: order.duration,
    priceTrx: sunToTrx(order.priceSun),
    activationTrx: sunToTrx(order.activationSun),
    totalTrx: sunToTrx(order.totalSun),
    status: order.status,
    txId: order.txId,
    createdAt: order.createdAt,
  };
}

export function ruleView(rule: RuleRecord, format: Int64Format): RuleView {
  return {
    id: rule.id,
    type: rule.type,
    resource: "energy",
    targetAddress: rule.targetAddress,
    minimal: int64OrNull(rule.minimal, format),
    volume: int64OrNull(rule.volume, format),
    duration: rule.duration,
    spentTrx: sunToTrx(rule.spentSun),
    status: rule.status,
    pauseReason: rule.pauseReason,
    autoResume: rule.autoResume,
    createdAt: rule.createdAt,
    updatedAt: rule.updatedAt,
  };
}

export function firingView(firing: FiringRecord, format: Int64Format): FiringView {
  return {
    volume: int64(firing.volume, format),
    duration: firing.duration,
    priceTrx: sunToTrx(firing.priceSun),
    createdAt: firing.createdAt,
  };
}

export function ledgerView(entry: LedgerRecord): LedgerEntryView {
  return {
    id: entry.id,
    type: entry.type,
    currency: entry.currency,
    amount: sunToTrx(entry.amountSun),
    txId: entry.txId,
    status: entry.status,
    createdAt: entry.createdAt,
  };
}

export function notificationView(notification: NotificationRecord): NotificationView {
  const { accountId: _accountId, ...view } = notification;
  return view;
}

export function balanceView(account: AccountRecord): BalanceView {
  // USDT-TRC20 has 6 decimals too, so the sun formatter fits it exactly.
  return { usdtTrc20: sunToTrx(account.usdtSun), trx: sunToTrx(account.trxSun) };
}
