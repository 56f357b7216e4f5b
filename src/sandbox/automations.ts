/**
 * Automation rules: creation, the pause/resume/cancel state machine, firings (each charged to the
 * TRX balance), the System pause when a firing cannot be paid, auto-resume on top-up and the
 * daily auto-renewal schedule.
 */
import { sunToTrx } from "#src/marketplace/money";
import { newUuid } from "./ids";
import { AUTOMATION_LIMITS, DURATIONS, firingPriceSun, firingShape, isDuration } from "./price-book";
import { notFound, SandboxError } from "./problem";
import { findKeyById, wouldExceedSpendLimit } from "./spend-limit";
import type { AutomationOptionsView, Duration, RuleType } from "./types";
import type { AccountRecord, ApiKeyRecord, FiringRecord, RuleRecord, World } from "./records";
import { nowIso, postLedgerEntry, raiseNotification } from "./world";

const DAY_MS = 86_400_000;

export interface RuleRequest {
  type: RuleType;
  targetAddress: string;
  minimal: number | null;
  volume: number | null;
  duration: Duration | null;
  autoResume: boolean;
}

export type FireOutcome =
  { fired: true; firing: FiringRecord } | { fired: false; reason: "insufficient_balance" | "spend_limit_exceeded" };

const LABELS: Record<RuleType, string> = {
  "auto-refill": "auto-refill",
  "auto-renewal": "auto-renewal",
  smart: "smart-mode",
};

function insufficientBalance(account: AccountRecord, costSun: bigint, what: string): SandboxError {
  return new SandboxError(
    402,
    "wallet.insufficient_balance",
    "Insufficient balance",
    `${what} needs ${sunToTrx(costSun)} TRX for one delivery but the balance is ${sunToTrx(account.trxSun)} TRX`,
  );
}

function wrongState(rule: RuleRecord, action: string): SandboxError {
  return new SandboxError(
    409,
    "automation.invalid_state",
    "Invalid state",
    `cannot ${action} a rule that is ${rule.status}`,
  );
}

function accountOf(world: World, rule: RuleRecord): AccountRecord {
  return world.accounts.get(rule.accountId)!;
}

function touch(world: World, rule: RuleRecord): void {
  rule.updatedAt = nowIso(world);
}

/** Moves a renewal's next firing to the first daily slot after now, keeping the creation time of day. */
function rollRenewalForward(world: World, rule: RuleRecord): void {
  if (rule.nextRenewalAt === null) return;
  const now = world.now().getTime();
  let next = Date.parse(rule.nextRenewalAt);
  while (next <= now) next += DAY_MS;
  rule.nextRenewalAt = new Date(next).toISOString();
}

/** The automation options in force: the options endpoint serves them and rule creation checks against them. */
export function automationOptionsOf(world: World): AutomationOptionsView {
  return world.automationOptions ?? { durations: [...DURATIONS], ...AUTOMATION_LIMITS };
}

function optionsError(detail: string): SandboxError {
  return new SandboxError(400, "control.bad_argument", "Bad argument", detail);
}

/**
 * Changes the automation options, as the operator does over time (the spec: "the bounds change").
 * Fields left out keep their value; the result must stay coherent (positive whole volumes,
 * min ≤ max, at least one known duration), else nothing changes.
 */
export function setAutomationOptions(
  world: World,
  changes: Partial<Record<keyof AutomationOptionsView, unknown>>,
): AutomationOptionsView {
  const current = automationOptionsOf(world);
  const next: AutomationOptionsView = { ...current, durations: [...current.durations] };
  for (const field of ["energyUnit", "minVolume", "maxVolume", "renewalMinVolume", "renewalMaxVolume"] as const) {
    const value = changes[field];
    if (value === undefined) continue;
    if (typeof value !== "number" || !Number.isSafeInteger(value) || value < 1)
      throw optionsError(`${field} must be a positive whole number, got ${JSON.stringify(value)}`);
    next[field] = value;
  }
  if (changes.durations !== undefined) {
    const durations = changes.durations;
    if (!Array.isArray(durations) || durations.length === 0 || !durations.every(isDuration)) {
      throw optionsError(
        `durations must be a non-empty list of ${DURATIONS.join(", ")}, got ${JSON.stringify(durations)}`,
      );
    }
    next.durations = [...new Set(durations)];
  }
  if (next.minVolume > next.maxVolume)
    throw optionsError(`minVolume ${next.minVolume} is above maxVolume ${next.maxVolume}`);
  if (next.renewalMinVolume > next.renewalMaxVolume)
    throw optionsError(`renewalMinVolume ${next.renewalMinVolume} is above renewalMaxVolume ${next.renewalMaxVolume}`);
  world.automationOptions = next;
  return { ...next, durations: [...next.durations] };
}

export function findRule(world: World, accountId: string | null, ruleId: string): RuleRecord {
  const rule = world.rules.find(
    (candidate) => candidate.id === ruleId && (accountId === null || candidate.accountId === accountId),
  );
  if (!rule) throw notFound("automation", ruleId);
  return rule;
}

export function createRule(world: World, key: ApiKeyRecord, account: AccountRecord, request: RuleRequest): RuleRecord {
  // The spec asks renewal and smart rules (not refill) to be affordable for one firing up front.
  if (request.type !== "auto-refill") {
    const cost = firingPriceSun(request);
    if (account.trxSun < cost) throw insufficientBalance(account, cost, `an ${LABELS[request.type]} rule`);
  }
  const now = nowIso(world);
  const rule: RuleRecord = {
    id: newUuid(world.random),
    accountId: account.id,
    creatorKeyId: key.id,
    ...request,
    spentSun: 0n,
    status: "active",
    pauseReason: null,
    createdAt: now,
    updatedAt: now,
    nextRenewalAt: request.type === "auto-renewal" ? new Date(world.now().getTime() + DAY_MS).toISOString() : null,
    firings: [],
  };
  world.rules.push(rule);
  return rule;
}

export function pauseRule(world: World, rule: RuleRecord): void {
  if (rule.status !== "active") throw wrongState(rule, "pause");
  rule.status = "paused";
  rule.pauseReason = "User";
  touch(world, rule);
}

export function resumeRule(world: World, rule: RuleRecord): void {
  if (rule.status !== "paused") throw wrongState(rule, "resume");
  const account = accountOf(world, rule);
  const cost = firingPriceSun(rule);
  if (account.trxSun < cost) throw insufficientBalance(account, cost, "resuming this rule");
  activate(world, rule);
}

export function cancelRule(world: World, rule: RuleRecord): void {
  if (rule.status === "cancelled") throw wrongState(rule, "cancel");
  rule.status = "cancelled";
  rule.pauseReason = null;
  rule.nextRenewalAt = null;
  touch(world, rule);
}

function activate(world: World, rule: RuleRecord): void {
  rule.status = "active";
  rule.pauseReason = null;
  rollRenewalForward(world, rule);
  touch(world, rule);
}

/** Pauses an active rule for lack of balance and tells the owner. */
export function systemPauseRule(world: World, rule: RuleRecord): void {
  if (rule.status !== "active") throw wrongState(rule, "system-pause");
  rule.status = "paused";
  rule.pauseReason = "System";
  touch(world, rule);
  raiseNotification(world, rule.accountId, {
    type: "automation.paused",
    level: "warning",
    title: "Automation paused",
    body:
      `Your ${LABELS[rule.type]} rule for ${rule.targetAddress} was paused: the TRX balance (${sunToTrx(accountOf(world, rule).trxSun)} TRX) ` +
      `cannot cover the next delivery (${sunToTrx(firingPriceSun(rule))} TRX).` +
      (rule.autoResume ? " It resumes by itself after a top-up." : " Top up and resume it."),
  });
}

/** One delivery of an active rule: charged to the balance, or a System pause when it cannot be paid. */
export function fireRule(world: World, rule: RuleRecord): FireOutcome {
  if (rule.status !== "active") throw wrongState(rule, "fire");
  const account = accountOf(world, rule);
  const shape = firingShape(rule);
  const priceSun = firingPriceSun(rule);
  const creator = findKeyById(world, rule.creatorKeyId);
  if (creator && wouldExceedSpendLimit(world, creator, priceSun)) {
    raiseNotification(world, rule.accountId, {
      type: "automation.skipped",
      level: "warning",
      title: "Automation delivery skipped",
      body: `A ${LABELS[rule.type]} delivery for ${rule.targetAddress} (${sunToTrx(priceSun)} TRX) would exceed the daily spend limit of the key that created the rule.`,
    });
    return { fired: false, reason: "spend_limit_exceeded" };
  }
  if (account.trxSun < priceSun) {
    systemPauseRule(world, rule);
    return { fired: false, reason: "insufficient_balance" };
  }
  postLedgerEntry(world, account, { type: "AutomationCharge", currency: "TRX", amountSun: -priceSun });
  const firing: FiringRecord = { volume: shape.volume, duration: shape.duration, priceSun, createdAt: nowIso(world) };
  rule.firings.push(firing);
  rule.spentSun += priceSun;
  touch(world, rule);
  return { fired: true, firing };
}

/** After a top-up: System-paused rules with autoResume whose next firing the balance now covers come back. */
export function autoResumeRules(world: World, account: AccountRecord): void {
  for (const rule of world.rules) {
    if (rule.accountId !== account.id || rule.status !== "paused" || rule.pauseReason !== "System" || !rule.autoResume)
      continue;
    if (account.trxSun < firingPriceSun(rule)) continue;
    activate(world, rule);
    raiseNotification(world, rule.accountId, {
      type: "automation.resumed",
      level: "info",
      title: "Automation resumed",
      body: `Your ${LABELS[rule.type]} rule for ${rule.targetAddress} resumed after the top-up.`,
    });
  }
}

/**
 * Fires auto-renewals whose day has come. A sandbox that slept through several days fires once
 * and moves to the next future slot: renewing for days already past would buy nothing.
 */
export function renewDueRules(world: World): void {
  const now = world.now().getTime();
  for (const rule of world.rules) {
    if (rule.type !== "auto-renewal" || rule.status !== "active" || rule.nextRenewalAt === null) continue;
    if (Date.parse(rule.nextRenewalAt) > now) continue;
    fireRule(world, rule);
    rollRenewalForward(world, rule);
  }
}
