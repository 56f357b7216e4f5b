/**
 * The programmatic control surface: set up accounts and keys, move money, force outcomes and
 * inspect state. Arguments may arrive from HTTP as untrusted JSON, so each is checked.
 */
import { parseTrx, sunToTrx } from "../marketplace/money";
import { autoResumeRules, cancelRule, findRule, fireRule, setAutomationOptions, systemPauseRule } from "./automations";
import { newApiKey, newUuid } from "./ids";
import { fillHistory } from "./history";
import { settleAllOrders } from "./orders";
import { bookRateSun, DURATIONS, rateKey, rateSun } from "./price-book";
import { SandboxError } from "./problem";
import type { Currency, Duration, ErrorCodePlacement, FailureMode, FireResult, Int64Format, PriceRateView, Resource, SandboxControl, Scope } from "./types";
import type { ApiKeyRecord, World } from "./records";
import { balanceView, firingView, ledgerView, notificationView, orderView, ruleView } from "./views";
import { createAccountRecord, depositTxId, newestFirst, notificationsOf, postLedgerEntry, raiseNotification, requireAccount } from "./world";

const SCOPES: readonly Scope[] = ["read", "purchase", "full"];
const PLACEMENTS: readonly ErrorCodePlacement[] = ["code", "type", "type-uri", "title", "detail"];

function badArgument(detail: string): SandboxError {
  return new SandboxError(400, "control.bad_argument", "Bad argument", detail);
}

function amountArg(value: unknown, name: string, { allowZero = true } = {}): bigint {
  const sun = typeof value === "string" ? parseTrx(value) : typeof value === "number" ? parseTrx(String(value)) : null;
  if (sun === null || sun < 0n || (!allowZero && sun === 0n)) throw badArgument(`${name} must be a ${allowZero ? "non-negative" : "positive"} decimal amount string, got ${JSON.stringify(value)}`);
  return sun;
}

function limitArg(value: unknown): bigint | null {
  return value === null || value === undefined ? null : amountArg(value, "dailyLimitTrx");
}

function stringArg(value: unknown, name: string): string {
  if (typeof value !== "string" || value.trim() === "") throw badArgument(`${name} must be a non-empty string`);
  return value;
}

function oneOf<T extends string>(value: unknown, allowed: readonly T[], name: string): T {
  if (typeof value !== "string" || !(allowed as readonly string[]).includes(value)) throw badArgument(`${name} must be one of ${allowed.join(", ")}`);
  return value as T;
}

function requireKey(world: World, apiKey: unknown): ApiKeyRecord {
  const key = typeof apiKey === "string" ? world.keysByApiKey.get(apiKey) : undefined;
  if (!key) throw new SandboxError(404, "api_key.not_found", "Not found", "no such API key");
  return key;
}

export function createControl(world: World): SandboxControl {
  const rateView = (resource: Resource, duration: Duration): PriceRateView => ({
    resource,
    duration,
    sunPerUnit: Number(rateSun(resource, duration, world.rateOverrides)),
    overridden: world.rateOverrides?.has(rateKey(resource, duration)) === true && rateSun(resource, duration, world.rateOverrides) !== bookRateSun(resource, duration),
  });

  // Control results are for assertions and scripts: always plain numbers, whatever the API's int64 format.
  const format = "number" as const;

  const control: SandboxControl = {
    createAccount(args = {}) {
      const trx = amountArg(args.trx ?? "0", "trx");
      const usdt = amountArg(args.usdt ?? "0", "usdt");
      const account = createAccountRecord(world);
      if (trx > 0n) postLedgerEntry(world, account, { type: "Deposit", currency: "TRX", amountSun: trx, txId: depositTxId(world) });
      if (usdt > 0n) postLedgerEntry(world, account, { type: "Deposit", currency: "USDT-TRC20", amountSun: usdt, txId: depositTxId(world) });
      return { accountId: account.id };
    },

    createKey({ accountId, scope, dailyLimitTrx }) {
      const account = requireAccount(world, accountId);
      const key: ApiKeyRecord = {
        id: newUuid(world.random),
        apiKey: newApiKey(world.random),
        accountId: account.id,
        scope: oneOf(scope, SCOPES, "scope"),
        dailyLimitSun: limitArg(dailyLimitTrx),
        revoked: false,
      };
      world.keysByApiKey.set(key.apiKey, key);
      return { apiKey: key.apiKey };
    },

    revokeKey({ apiKey }) {
      requireKey(world, apiKey).revoked = true;
    },

    setSpendLimit({ apiKey, dailyLimitTrx }) {
      requireKey(world, apiKey).dailyLimitSun = limitArg(dailyLimitTrx);
    },

    accountIdForKey(apiKey) {
      return (typeof apiKey === "string" && world.keysByApiKey.get(apiKey)?.accountId) || null;
    },

    creditDeposit({ accountId, currency, amount }) {
      const account = requireAccount(world, accountId);
      const kind = oneOf<Currency>(currency, ["TRX", "USDT-TRC20"], "currency");
      const sun = amountArg(amount, "amount", { allowZero: false });
      const entry = postLedgerEntry(world, account, { type: "Deposit", currency: kind, amountSun: sun, txId: depositTxId(world) });
      raiseNotification(world, account.id, {
        type: "deposit.credited",
        level: "success",
        title: "Deposit credited",
        body: `${sunToTrx(sun)} ${kind} was credited to your balance.`,
      });
      autoResumeRules(world, account);
      return ledgerView(entry);
    },

    setBalance({ accountId, trx, usdt }) {
      const account = requireAccount(world, accountId);
      // Written as Adjustment entries so the ledger still sums to the balance.
      if (trx !== undefined) {
        const delta = amountArg(trx, "trx") - account.trxSun;
        if (delta !== 0n) postLedgerEntry(world, account, { type: "Adjustment", currency: "TRX", amountSun: delta });
      }
      if (usdt !== undefined) {
        const delta = amountArg(usdt, "usdt") - account.usdtSun;
        if (delta !== 0n) postLedgerEntry(world, account, { type: "Adjustment", currency: "USDT-TRC20", amountSun: delta });
      }
      return balanceView(account);
    },

    getBalance(accountId) {
      return balanceView(requireAccount(world, accountId));
    },

    failNextOrder({ accountId, mode }) {
      requireAccount(world, accountId).failNext = oneOf<FailureMode>(mode, ["sync", "async"], "mode");
    },

    settleNow(args = {}) {
      if (args.accountId !== undefined) requireAccount(world, args.accountId);
      return settleAllOrders(world, args.accountId).map((order) => orderView(order, format));
    },

    setSettleDelay({ ms }) {
      if (ms !== null && (typeof ms !== "number" || !Number.isFinite(ms) || ms < 0)) throw badArgument("ms must be a non-negative number of milliseconds, or null (orders wait for settleNow)");
      world.settleDelayMs = ms;
      return { settleDelayMs: world.settleDelayMs };
    },

    getSettleDelay() {
      return { settleDelayMs: world.settleDelayMs };
    },

    markUnactivated({ address }) {
      world.unactivatedAddresses.add(stringArg(address, "address"));
    },

    markActivated({ address }) {
      world.unactivatedAddresses.delete(stringArg(address, "address"));
    },

    fireRule({ ruleId }): FireResult {
      const rule = findRule(world, null, stringArg(ruleId, "ruleId"));
      const outcome = fireRule(world, rule);
      return outcome.fired
        ? { fired: true, firing: firingView(outcome.firing, format), rule: ruleView(rule, format) }
        : { fired: false, reason: outcome.reason, rule: ruleView(rule, format) };
    },

    systemPauseRule({ ruleId }) {
      const rule = findRule(world, null, stringArg(ruleId, "ruleId"));
      systemPauseRule(world, rule);
      return ruleView(rule, format);
    },

    cancelRule({ ruleId }) {
      const rule = findRule(world, null, stringArg(ruleId, "ruleId"));
      cancelRule(world, rule);
      return ruleView(rule, format);
    },

    addNotification({ accountId, type, level, title, body, link }) {
      const account = requireAccount(world, accountId);
      const record = raiseNotification(world, account.id, {
        type: type ?? "announcement",
        level: level ?? "info",
        title: stringArg(title, "title"),
        body: stringArg(body, "body"),
        link: link ?? null,
      });
      return notificationView(record);
    },

    setWebhookUrl({ accountId, url }) {
      const account = requireAccount(world, accountId);
      if (url !== null && (typeof url !== "string" || !/^https?:\/\//.test(url) || !URL.canParse(url))) {
        throw badArgument(`url must be an http(s) URL or null, got ${JSON.stringify(url)}`);
      }
      account.webhookUrl = url;
    },

    listOrders(accountId) {
      const account = requireAccount(world, accountId);
      return newestFirst(world.orders.filter((order) => order.accountId === account.id)).map((order) => orderView(order, format));
    },

    listRules(accountId) {
      const account = requireAccount(world, accountId);
      return newestFirst(world.rules.filter((rule) => rule.accountId === account.id)).map((rule) => ruleView(rule, format));
    },

    ledger(accountId) {
      const account = requireAccount(world, accountId);
      return newestFirst(world.ledger.filter((entry) => entry.accountId === account.id)).map(ledgerView);
    },

    listNotifications(accountId) {
      const account = requireAccount(world, accountId);
      return newestFirst(notificationsOf(world, account.id)).map(notificationView);
    },

    injectFault({ times, ...fault }) {
      const remaining = times ?? 1;
      if (!Number.isInteger(remaining) || remaining < 1) throw badArgument("times must be a positive integer");
      if (fault.status !== undefined && (!Number.isInteger(fault.status) || fault.status < 200 || fault.status > 599)) {
        throw badArgument("status must be an HTTP status between 200 and 599");
      }
      world.faults.push({ ...fault, remaining });
    },

    clearFaults() {
      world.faults.length = 0;
    },

    setErrorCodePlacement({ placement }) {
      world.settings.errorCodePlacement = oneOf(placement, PLACEMENTS, "placement");
    },

    setInt64Format({ format: int64Format }) {
      world.settings.int64Format = oneOf<Int64Format>(int64Format, ["number", "string"], "format");
    },

    setAutomationOptions(args) {
      return setAutomationOptions(world, args ?? {});
    },

    setPrice(args) {
      const resource = oneOf<Resource>(args?.resource, ["energy", "bandwidth"], "resource");
      const duration = oneOf<Duration>(args?.duration, DURATIONS, "duration");
      const key = rateKey(resource, duration);
      if (args.sunPerUnit === null) {
        world.rateOverrides?.delete(key);
      } else {
        const raw = args.sunPerUnit;
        const text = typeof raw === "number" ? String(raw) : raw;
        // A whole number of sun: the price formula stays exact in bigint.
        if (typeof text !== "string" || !/^[1-9]\d{0,8}$/.test(text)) throw badArgument(`sunPerUnit must be a whole number of sun from 1 to 999999999, or null, got ${JSON.stringify(raw)}`);
        world.rateOverrides ??= new Map();
        world.rateOverrides.set(key, BigInt(text));
      }
      return rateView(resource, duration);
    },

    getPrices() {
      return (["energy", "bandwidth"] as const).flatMap((resource) => DURATIONS.map((duration) => rateView(resource, duration)));
    },

    fillHistory({ accountId, days }) {
      const account = requireAccount(world, accountId);
      const span = days ?? 30;
      if (typeof span !== "number" || !Number.isInteger(span) || span < 1 || span > 90) throw badArgument("days must be a whole number from 1 to 90");
      return fillHistory(world, account, span);
    },
  };
  return control;
}
