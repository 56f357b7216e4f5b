import { Composer, InlineKeyboard } from "grammy";
import { recentAddresses, touchAddress } from "../../db/repos/addresses";
import { refFor } from "../../db/repos/callback-refs";
import { markKeyBroken } from "../../db/repos/credentials";
import { findPendingAction, setPendingActionPayload, wasAttempted, type PendingAction } from "../../db/repos/pending-actions";
import { compareTrx, MarketplaceError, sunToTrx, trxToSun, type AutomationOptions, type AutomationPreview, type AutomationRule, type MarketplaceClient } from "../../marketplace";
import { looksLikeAddress } from "../../input/address";
import { checkBounds, parseDuration, parseVolume } from "../../input/volume";
import type { BotContext } from "../context";
import { editInPlace } from "../edit-in-place";
import { answerButton, endFlow, startFlow, type FlowRegistry } from "../flows";
import { trxText, volumeText } from "../format";
import { code, truncate } from "../html";
import { describeSpendError, replyMarketplaceError, userClient } from "../marketplace-access";
import { cardKeyboard, sendCard, type CardButton, type CardKinds, type CardOutcome } from "./cards";
import { addressButtonLabel, badAddressArgument, readAddress } from "./addresses";
import { ruleCard, ruleCardText, ruleKind, type RuleKind } from "./rules-view";
import type { MenuActions } from "./start";

const FLOW = "rule";
const KINDS: RuleKind[] = ["refill", "renewal", "smart"];
const RETRYABLE = new Set(["timeout", "network", "server", "rate_limited", "invalid_response"]);
/** What one smart-mode delivery is (MARKETPLACE_API.md: roughly 131k energy); used for its preview only. */
const SMART_PREVIEW = { volume: "131000", duration: "1h" };
/** Auto-renewal renews once a day: what the card shows, and what its preview is priced for when the options list it. */
const RENEWAL_DURATION = "1d";
const DAY_MINUTES = 24 * 60;
/** A rule created this much before the card (clock skew between us and the marketplace) may still be ours. */
const CLOCK_SLACK_MS = 60_000;

type RuleField = "address" | "minimal" | "volume" | "duration";
type RuleStep = "kind" | RuleField | "autoResume";

/** A rule being put together, from arguments or step by step. Plain JSON (stored in the flow). */
interface RuleDraft {
  kind?: RuleKind;
  address?: string;
  minimal?: string;
  volume?: string;
  duration?: string;
  autoResume?: boolean;
  /** Asked step by step: the auto-resume question is asked too (one-line forms use No). */
  guided?: boolean;
  /** Saved addresses offered as buttons at the address step, by short reference (callback data never carries an address). */
  offered?: Record<string, string>;
}

/** What the confirmation card creates. `knownIds`: matching rules that existed before the card (not ours after a timeout). */
interface RulePayload {
  kind: RuleKind;
  address: string;
  minimal: string | null;
  volume: string | null;
  duration: string | null;
  autoResume: boolean;
  knownIds: string[];
  /** The preview's figures, so the card can be drawn again (a toggle) without calling the marketplace. Absent on older cards. */
  figures?: CardFigures;
}

interface CardFigures {
  priceTrx: string;
  commissionTrx: string;
  balanceTrx: string;
  /** Renewal only: the duration the estimate was priced for when the options do not list a day. */
  pricedFor?: string;
}

/** What a rule is made of, before the card adds what it learned from the marketplace. */
type RuleRequest = Omit<RulePayload, "knownIds" | "figures">;

const FIELDS: Record<RuleKind, RuleField[]> = {
  refill: ["address", "minimal", "volume", "duration"],
  renewal: ["address", "volume"],
  smart: ["address"],
};

const USAGE: Record<RuleKind, string> = {
  refill: "/refill TAddress… 30k 65k 1h",
  renewal: "/renewal TAddress… 65k",
  smart: "/smart TAddress…",
};

function volumeBounds(kind: RuleKind, options: AutomationOptions): { min: bigint; max: bigint } {
  return kind === "renewal"
    ? { min: BigInt(options.renewalMinVolume), max: BigInt(options.renewalMaxVolume) }
    : { min: BigInt(options.minVolume), max: BigInt(options.maxVolume) };
}

function parseYesNo(ctx: BotContext, input: string): boolean | null {
  const text = input.trim().toLowerCase();
  if (["yes", "y", "true", "1", ctx.tr("button-yes").toLowerCase()].includes(text)) return true;
  if (["no", "n", "false", "0", ctx.tr("button-no").toLowerCase()].includes(text)) return false;
  return null;
}

function parseKind(ctx: BotContext, input: string): RuleKind | null {
  const text = input.trim().toLowerCase();
  const found = KINDS.find((kind) => kind === text || ctx.tr(`rule-kind-${kind}`).toLowerCase() === text);
  return found ?? ruleKind(text);
}

type Check<T> = { ok: true; value: T } | { ok: false; message: string };

/** `offered`: the address buttons of the guided step, whose answer is "@<reference>". */
function validateRuleField(ctx: BotContext, field: RuleField, input: string, kind: RuleKind, options: AutomationOptions, offered?: Record<string, string>): Check<string> {
  switch (field) {
    case "address":
      return readAddress(ctx, input, offered);
    case "minimal": {
      const parsed = parseVolume(input);
      return parsed.ok ? { ok: true, value: parsed.volume.toString() } : { ok: false, message: ctx.tr("input-minimal-bad") };
    }
    case "volume": {
      const parsed = parseVolume(input);
      if (!parsed.ok) return { ok: false, message: ctx.tr(`input-volume-${parsed.reason}`) };
      const bounds = volumeBounds(kind, options);
      if (checkBounds(parsed.volume, bounds.min, bounds.max)) {
        return { ok: false, message: ctx.tr("input-volume-bounds", { min: volumeText(bounds.min), max: volumeText(bounds.max) }) };
      }
      return { ok: true, value: parsed.volume.toString() };
    }
    case "duration": {
      const duration = parseDuration(input, options.durations);
      return duration ? { ok: true, value: duration } : { ok: false, message: ctx.tr("input-duration-bad", { durations: options.durations.join(", ") }) };
    }
  }
}

/** One-line arguments: an address (T…), a listed duration, then volumes in order (refill: minimal, volume). */
function draftFromArguments(ctx: BotContext, kind: RuleKind, text: string, options: AutomationOptions): { ok: true; draft: RuleDraft } | { ok: false; message: string } {
  const draft: RuleDraft = { kind };
  const fields = FIELDS[kind];
  const volumeSlots = fields.filter((field): field is "minimal" | "volume" => field === "minimal" || field === "volume");
  const raw: Partial<Record<RuleField, string>> = {};
  for (const token of text.split(/\s+/).filter(Boolean)) {
    if (looksLikeAddress(token) && raw.address === undefined) {
      raw.address = token;
      continue;
    }
    if (fields.includes("duration") && raw.duration === undefined && parseDuration(token, options.durations)) {
      raw.duration = token;
      continue;
    }
    const slot = volumeSlots.find((field) => raw[field] === undefined);
    if (slot && parseVolume(token).ok) {
      raw[slot] = token;
      continue;
    }
    return { ok: false, message: ctx.tr("input-argument-bad", { value: truncate(token, 40), usage: USAGE[kind] }) };
  }
  for (const field of fields) {
    const value = raw[field];
    if (value === undefined) continue;
    const check = validateRuleField(ctx, field, value, kind, options);
    if (!check.ok) return check;
    draft[field] = check.value;
  }
  return { ok: true, draft };
}

async function automationOptions(ctx: BotContext, client: MarketplaceClient): Promise<AutomationOptions | null> {
  try {
    return await ctx.deps.options.automationOptions(ctx.account.telegram_id, client);
  } catch (error) {
    await replyMarketplaceError(ctx, error, { read: true });
    return null;
  }
}

/** Asks the next question of the guided form, storing the flow. */
async function ask(ctx: BotContext, step: RuleStep, draft: RuleDraft, options: AutomationOptions): Promise<void> {
  const keyboard = new InlineKeyboard();
  const lines: string[] = [];
  const next: RuleDraft = { ...draft };
  switch (step) {
    case "kind":
      lines.push(ctx.tr("newrule-ask-kind"));
      for (const kind of KINDS) answerButton(keyboard, ctx.tr(`rule-kind-${kind}`), kind);
      break;
    case "address":
      lines.push(ctx.tr("ask-rule-address"));
      next.offered = {};
      for (const saved of await recentAddresses(ctx.deps.db, ctx.account.telegram_id, 4)) {
        const ref = await refFor(ctx.deps.db, ctx.account.telegram_id, saved.address, ctx.deps.now());
        next.offered[ref] = saved.address;
        answerButton(keyboard, addressButtonLabel(saved), `@${ref}`).row();
      }
      break;
    case "minimal":
      lines.push(ctx.tr("ask-rule-minimal"));
      break;
    case "volume": {
      const bounds = volumeBounds(draft.kind!, options);
      lines.push(ctx.tr(draft.kind === "renewal" ? "ask-rule-renewal-volume" : "ask-rule-volume"), ctx.tr("bounds-line", { min: volumeText(bounds.min), max: volumeText(bounds.max) }));
      const presets = [65_000n, 131_000n].filter((value) => !checkBounds(value, bounds.min, bounds.max));
      if (presets.length === 0) presets.push(bounds.min);
      for (const value of presets) answerButton(keyboard, volumeText(value), value.toString());
      break;
    }
    case "duration":
      lines.push(ctx.tr("ask-rule-duration"));
      for (const duration of options.durations) answerButton(keyboard, duration, duration);
      break;
    case "autoResume":
      lines.push(ctx.tr("ask-auto-resume"));
      answerButton(keyboard, ctx.tr("button-yes"), "yes");
      answerButton(keyboard, ctx.tr("button-no"), "no");
      break;
  }
  lines.push("", ctx.tr("ask-cancel-hint"));
  await startFlow(ctx, FLOW, step, next as Record<string, unknown>);
  const hasButtons = keyboard.inline_keyboard.some((row) => row.length > 0);
  await ctx.reply(lines.join("\n"), { parse_mode: "HTML", ...(hasButtons ? { reply_markup: keyboard } : {}) });
}

function nextStep(draft: RuleDraft): RuleStep | null {
  if (!draft.kind) return "kind";
  const field = FIELDS[draft.kind].find((name) => draft[name] === undefined);
  if (field) return field;
  if (draft.autoResume === undefined && draft.guided) return "autoResume";
  return null;
}

/** Ids of existing rules that a timed-out creation could be confused with. */
function matches(rule: AutomationRule, payload: RulePayload): boolean {
  if (ruleKind(rule.type) !== payload.kind || rule.targetAddress !== payload.address) return false;
  if (payload.kind === "smart") return true;
  return rule.volume !== null && BigInt(rule.volume) === BigInt(payload.volume ?? "0");
}

function scaleTrx(trx: string, numerator: bigint, denominator: bigint): string {
  return sunToTrx((trxToSun(trx) * numerator) / denominator);
}

/** Minutes in a listed duration ("15m", "1h", "1d"); an unknown form counts as 0 (never preferred). */
function durationMinutes(duration: string): number {
  const match = /^(\d+)([mhd])$/i.exec(duration.trim());
  if (!match) return 0;
  return Number(match[1]) * { m: 1, h: 60, d: DAY_MINUTES }[match[2]!.toLowerCase() as "m" | "h" | "d"];
}

/**
 * The duration a renewal's estimate is priced for: the refill preview only accepts listed
 * durations, so a day when one is listed, else the longest listed one (the closest to a day).
 */
function renewalPricingDuration(durations: readonly string[]): string {
  const day = durations.find((duration) => durationMinutes(duration) === DAY_MINUTES);
  if (day) return day;
  return [...durations].sort((a, b) => durationMinutes(b) - durationMinutes(a))[0] ?? RENEWAL_DURATION;
}

/**
 * The cost of one firing. Renewal has no preview type of its own: it is priced as a refill (an
 * estimate) of a day or the longest listed duration, scaled when its volume is beyond the refill
 * bounds. `pricedFor` names that duration when it is not a day.
 */
async function previewFiring(client: MarketplaceClient, payload: RuleRequest, options: AutomationOptions): Promise<AutomationPreview & { pricedFor?: string }> {
  if (payload.kind === "refill") return client.previewAutomation({ volume: payload.volume!, duration: payload.duration!, type: "refill" });
  if (payload.kind === "smart") return client.previewAutomation({ ...SMART_PREVIEW, type: "smart" });
  const volume = BigInt(payload.volume!);
  const { min, max } = volumeBounds("refill", options);
  const priced = volume < min ? min : volume > max ? max : volume;
  const duration = renewalPricingDuration(options.durations);
  const pricedFor = durationMinutes(duration) === DAY_MINUTES ? {} : { pricedFor: duration };
  const preview = await client.previewAutomation({ volume: priced.toString(), duration, type: "refill" });
  if (priced === volume) return { ...preview, ...pricedFor };
  return { priceTrx: scaleTrx(preview.priceTrx, volume, priced), baseCostTrx: scaleTrx(preview.baseCostTrx, volume, priced), commissionTrx: scaleTrx(preview.commissionTrx, volume, priced), ...pricedFor };
}

/**
 * Previews one firing and reads the balance and the matching rules that already exist. `knownIds`
 * is given after an attempt whose outcome is unknown: the rule it may have made must stay "new".
 */
async function buildCard(ctx: BotContext, client: MarketplaceClient, request: RuleRequest, knownIds?: string[]): Promise<{ text: string; payload: RulePayload; canConfirm: boolean } | null> {
  let preview, balance, existing;
  try {
    const options = await ctx.deps.options.automationOptions(ctx.account.telegram_id, client);
    [preview, balance, existing] = await Promise.all([previewFiring(client, request, options), client.balance(), knownIds ? Promise.resolve([]) : client.listAutomations()]);
  } catch (error) {
    await replyMarketplaceError(ctx, error, { read: true });
    return null;
  }
  const payload: RulePayload = {
    ...request,
    knownIds: knownIds ?? existing.filter((rule) => matches(rule, { ...request, knownIds: [] })).map((rule) => rule.id),
    figures: { priceTrx: preview.priceTrx, commissionTrx: preview.commissionTrx, balanceTrx: balance.trx, ...(preview.pricedFor ? { pricedFor: preview.pricedFor } : {}) },
  };
  return { ...confirmCard(ctx, payload, payload.figures!), payload };
}

/** The confirmation card's text, drawn from the payload alone. */
function confirmCard(ctx: BotContext, payload: RulePayload, figures: CardFigures): { text: string; canConfirm: boolean } {
  const lines = [ctx.tr("rule-confirm-title"), "", ctx.tr("rule-confirm-kind", { value: ctx.tr(`rule-kind-${payload.kind}`) }), ctx.tr("card-target", {}, { value: code(payload.address) })];
  if (payload.kind === "refill") {
    lines.push(
      ctx.tr("rule-card-minimal", { value: volumeText(payload.minimal!) }),
      ctx.tr("card-volume", { value: volumeText(payload.volume!) }),
      ctx.tr("card-duration", { value: payload.duration! }),
      "",
      ctx.tr("rule-confirm-trigger-refill", { minimal: volumeText(payload.minimal!), volume: volumeText(payload.volume!), duration: payload.duration! }),
    );
  } else if (payload.kind === "renewal") {
    lines.push(ctx.tr("card-volume", { value: volumeText(payload.volume!) }), ctx.tr("card-duration", { value: RENEWAL_DURATION }), "", ctx.tr("rule-confirm-trigger-renewal", { volume: volumeText(payload.volume!) }));
  } else {
    lines.push("", ctx.tr("rule-confirm-trigger-smart"));
  }
  lines.push(
    ctx.tr(payload.kind === "renewal" ? "rule-confirm-cost-estimate" : "rule-confirm-cost", { value: trxText(figures.priceTrx), commission: trxText(figures.commissionTrx) }),
    ...(figures.pricedFor ? [ctx.tr("rule-confirm-estimate-priced-for", { duration: figures.pricedFor })] : []),
    ctx.tr("rule-confirm-charged"),
    ctx.tr("rule-card-auto-resume", { value: ctx.tr(payload.autoResume ? "button-yes" : "button-no") }),
    ctx.tr("card-balance", { value: trxText(figures.balanceTrx) }),
  );
  const covered = compareTrx(figures.balanceTrx, figures.priceTrx) >= 0;
  // Renewal and smart rules need one firing's balance up front; a refill rule may be set up before topping up.
  const canConfirm = covered || payload.kind === "refill";
  if (!covered) lines.push("", ctx.tr(payload.kind === "refill" ? "rule-confirm-short-refill" : "rule-confirm-short"));
  return { text: lines.join("\n"), canConfirm };
}

/** The auto-resume toggle under Confirm and Cancel; its label shows the current choice. */
function autoResumeButton(ctx: BotContext, autoResume: boolean): (id: string) => CardButton[] {
  return (id) => [{ text: ctx.tr("button-auto-resume", { value: ctx.tr(autoResume ? "button-yes" : "button-no") }), data: `ar:${id}` }];
}

async function createdText(ctx: BotContext, rule: AutomationRule): Promise<{ text: string; keyboard: InlineKeyboard }> {
  const card = await ruleCard(ctx, rule);
  return { text: `${ctx.tr("rule-created")}\n\n${card.text}`, keyboard: card.keyboard };
}

/**
 * The rule this card created, if the marketplace made it (after a timeout, a network error or a
 * crash mid-call): same kind, target and volume, not known before the card, created after it.
 * Throws when the list cannot be read.
 */
async function findCreated(client: MarketplaceClient, payload: RulePayload, action: PendingAction): Promise<AutomationRule | null> {
  const rules = await client.listAutomations();
  return rules.find((rule) => matches(rule, payload) && !payload.knownIds.includes(rule.id) && Date.parse(rule.createdAt) >= action.created_at - CLOCK_SLACK_MS) ?? null;
}

async function create(client: MarketplaceClient, payload: RulePayload): Promise<AutomationRule> {
  switch (payload.kind) {
    case "refill":
      return client.createRefill({ targetAddress: payload.address, minimal: payload.minimal!, volume: payload.volume!, duration: payload.duration!, autoResume: payload.autoResume });
    case "renewal":
      return client.createRenewal({ targetAddress: payload.address, volume: payload.volume!, autoResume: payload.autoResume });
    case "smart":
      return client.createSmart({ targetAddress: payload.address, autoResume: payload.autoResume });
  }
}

/** /refill, /renewal, /smart (one-line or step by step) and the guided /newrule; the confirmation card creates the rule once. */
export function ruleCreationFeature(flows: FlowRegistry, _menu: MenuActions, cards: CardKinds): Composer<BotContext> {
  const composer = new Composer<BotContext>();

  async function proceed(ctx: BotContext, client: MarketplaceClient, draft: RuleDraft, options: AutomationOptions): Promise<void> {
    const step = nextStep(draft);
    if (step) return ask(ctx, step, draft, options);
    await endFlow(ctx);
    const kind = draft.kind!;
    const autoResume = draft.autoResume ?? false;
    const card = await buildCard(ctx, client, {
      kind,
      address: draft.address!,
      minimal: kind === "refill" ? draft.minimal! : null,
      volume: kind === "smart" ? null : draft.volume!,
      duration: kind === "refill" ? draft.duration! : null,
      autoResume,
    });
    if (card) await sendCard(ctx, "rule", card.payload, card.text, card.canConfirm, autoResumeButton(ctx, autoResume));
  }

  async function start(ctx: BotContext, kind: RuleKind | null, args: string): Promise<void> {
    const client = await userClient(ctx);
    if (!client) return;
    const badAddress = kind ? badAddressArgument(ctx, args.split(/\s+/)) : null;
    if (badAddress) {
      await ctx.reply(badAddress, { parse_mode: "HTML" });
      return;
    }
    const options = await automationOptions(ctx, client);
    if (!options) return;
    if (!kind) return proceed(ctx, client, { guided: true }, options);
    const parsed = draftFromArguments(ctx, kind, args, options);
    if (!parsed.ok) {
      await ctx.reply(parsed.message, { parse_mode: "HTML" });
      return;
    }
    const draft = parsed.draft;
    draft.guided = FIELDS[kind].some((field) => draft[field] === undefined);
    await proceed(ctx, client, draft, options);
  }

  composer.command("refill", (ctx) => start(ctx, "refill", ctx.match));
  composer.command("renewal", (ctx) => start(ctx, "renewal", ctx.match));
  composer.command("smart", (ctx) => start(ctx, "smart", ctx.match));
  composer.command("newrule", (ctx) => start(ctx, null, ""));

  flows.set(FLOW, {
    async answer(ctx, state, input) {
      const client = await userClient(ctx);
      if (!client) return;
      const draft = { ...(state.data as RuleDraft) };
      const step = state.step as RuleStep;
      if (step === "address") {
        // An address needs no options: a bad one is refused before any marketplace call.
        const check = readAddress(ctx, input, draft.offered);
        if (!check.ok) {
          await ctx.reply(check.message, { parse_mode: "HTML" });
          return;
        }
      }
      const options = await automationOptions(ctx, client);
      if (!options) return;
      if (step === "kind") {
        const kind = parseKind(ctx, input);
        if (!kind) {
          await ctx.reply(ctx.tr("newrule-kind-bad"), { parse_mode: "HTML" });
          return;
        }
        draft.kind = kind;
      } else if (step === "autoResume") {
        const value = parseYesNo(ctx, input);
        if (value === null) {
          await ctx.reply(ctx.tr("input-yes-no"), { parse_mode: "HTML" });
          return;
        }
        draft.autoResume = value;
      } else if (draft.kind && FIELDS[draft.kind].includes(step)) {
        const check = validateRuleField(ctx, step, input, draft.kind, options, draft.offered);
        if (!check.ok) {
          await ctx.reply(check.message, { parse_mode: "HTML" });
          return;
        }
        draft[step] = check.value;
      }
      await proceed(ctx, client, draft, options);
    },
  });

  cards.set("rule", {
    async execute(ctx, action): Promise<CardOutcome> {
      const client = await userClient(ctx);
      if (!client) return { state: "failed", text: ctx.tr("card-no-key") };
      const payload = JSON.parse(action.payload) as RulePayload;
      let rule: AutomationRule;
      try {
        // A second attempt (after an unknown outcome or a crash) first looks for the rule the first one may have made.
        const earlier = wasAttempted(action) ? await findCreated(client, payload, action) : null;
        rule = earlier ?? (await create(client, payload));
      } catch (error) {
        if (!(error instanceof MarketplaceError)) throw error;
        ctx.deps.logger.info({ userId: ctx.account.telegram_id, card: action.id, kind: error.kind, status: error.status }, "rule not created");
        if (!RETRYABLE.has(error.kind)) {
          if (error.kind === "unauthorized") await markKeyBroken(ctx.deps.db, ctx.account.telegram_id, ctx.deps.now());
          const { text, keyboard } = await describeSpendError(ctx, client, error, payload.figures?.balanceTrx);
          return { state: "failed", text, keyboard, result: { error: error.kind } };
        }
        // Rule creation has no idempotency key: look for the rule before offering to send again.
        const found = await findCreated(client, payload, action).catch(() => null);
        if (!found) return { state: "retry", text: ctx.tr("card-unknown-state"), result: { attempted: true } };
        ctx.deps.logger.info({ userId: ctx.account.telegram_id, card: action.id, ruleId: found.id }, "timed-out rule creation found in the list");
        rule = found;
      }
      await touchAddress(ctx.deps.db, ctx.account.telegram_id, payload.address, ctx.deps.now());
      ctx.deps.logger.info({ userId: ctx.account.telegram_id, ruleId: rule.id, card: action.id }, "rule created");
      const { text, keyboard } = await createdText(ctx, rule);
      return { state: "done", text, keyboard, result: rule };
    },
    async recheck(ctx, action): Promise<CardOutcome> {
      const client = await userClient(ctx);
      if (!client) return { state: "failed", text: ctx.tr("card-no-key") };
      // Only a look: sending again here could make a second rule if the first is merely slow to list.
      const found = await findCreated(client, JSON.parse(action.payload) as RulePayload, action).catch(() => null);
      if (!found) return { state: "retry", text: ctx.tr("card-unknown-state") };
      ctx.deps.logger.info({ userId: ctx.account.telegram_id, card: action.id, ruleId: found.id }, "rule creation with an unknown outcome found in the list");
      const { text, keyboard } = await createdText(ctx, found);
      return { state: "done", text, keyboard, result: found };
    },
    async cancelAfterAttempt(ctx, action) {
      const client = await userClient(ctx);
      const found = client ? await findCreated(client, JSON.parse(action.payload) as RulePayload, action).catch(() => undefined) : undefined;
      if (found === undefined) return { text: ctx.tr("card-cancelled-rule-unknown") };
      if (found === null) return { text: ctx.tr("card-cancelled-rule-none") };
      const card = await ruleCard(ctx, found);
      return { text: `${ctx.tr("card-cancelled-rule-exists")}\n\n${card.text}`, keyboard: card.keyboard, result: found };
    },
    async refresh(ctx, action) {
      const client = await userClient(ctx);
      if (!client) return null;
      const { knownIds, figures: _figures, ...request } = JSON.parse(action.payload) as RulePayload;
      const card = await buildCard(ctx, client, request, wasAttempted(action) ? knownIds : undefined);
      return card ? { ...card, extra: autoResumeButton(ctx, request.autoResume) } : null;
    },
    doneText(ctx, action) {
      const rule = JSON.parse(action.result ?? "null") as AutomationRule | { error: string } | null;
      if (!rule || !("id" in rule)) return ctx.tr("rule-created");
      return `${ctx.tr("rule-created")}\n\n${ruleCardText(ctx, rule)}`;
    },
  });

  // The auto-resume toggle: one-line forms can choose it too. Only before Confirm was ever sent.
  composer.callbackQuery(/^ar:([A-Za-z0-9_-]{10})$/, async (ctx) => {
    const action = await findPendingAction(ctx.deps.db, ctx.account.telegram_id, ctx.match[1]!);
    const payload = action?.kind === "rule" ? (JSON.parse(action.payload) as RulePayload) : null;
    if (!action || !payload?.figures || action.state !== "pending") {
      await ctx.answerCallbackQuery({ text: ctx.tr(action?.state === "processing" ? "card-processing" : "card-expired") });
      return;
    }
    if (wasAttempted(action)) {
      await ctx.answerCallbackQuery({ text: ctx.tr("card-locked") });
      return;
    }
    const toggled: RulePayload = { ...payload, autoResume: !payload.autoResume };
    if (!(await setPendingActionPayload(ctx.deps.db, action.id, toggled))) {
      await ctx.answerCallbackQuery({ text: ctx.tr("card-processing") });
      return;
    }
    await ctx.answerCallbackQuery();
    const card = confirmCard(ctx, toggled, payload.figures);
    await editInPlace(ctx, card.text, cardKeyboard(ctx, action.id, card.canConfirm, autoResumeButton(ctx, toggled.autoResume)(action.id)));
  });

  return composer;
}
