import type { Composer } from "grammy";
import { FlatComposer } from "#src/bot/middleware/flat-composer";
import type { Menu } from "@grammyjs/menu";
import { CARD_AUTO_RESUME } from "#src/chat/callback-data";
import { touchAddress } from "#src/db/repos/addresses";
import { markKeyBroken } from "#src/db/repos/credentials";
import {
  findPendingAction,
  setPendingActionPayload,
  wasAttempted,
  type PendingAction,
} from "#src/db/repos/pending-actions";
import { markInMotion } from "#src/db/repos/poll-schedule";
import {
  compareTrx,
  MarketplaceError,
  sunToTrx,
  trxToSun,
  type AutomationOptions,
  type AutomationPreview,
  type AutomationRule,
  type MarketplaceClient,
} from "#src/marketplace/index";
import type { BotContext } from "#src/bot/context";
import { editInPlace } from "#src/bot/edit-in-place";
import { durationText, knownTrxText, trxText, volumeText } from "#src/chat/format";
import { code } from "#src/chat/html";
import { describeSpendError, replyMarketplaceError, userClient } from "#src/bot/marketplace-access";
import { cardKeyboard, sendCard, type CardButton, type CardKind, type CardKinds, type CardOutcome } from "../cards";
import { volumeBounds, type RuleDraft } from "./draft";
import { ruleCardText } from "./views";
import { ruleKind, type RuleKind } from "#src/marketplace/rule-words";

const RETRYABLE = new Set(["timeout", "network", "server", "rate_limited", "invalid_response"]);
/** What one smart-mode delivery is (MARKETPLACE_API.md: roughly 131k energy); used for its preview only. */
const SMART_PREVIEW = { volume: "131000", duration: "1h" };
/** Auto-renewal renews once a day: what the card shows, and what its preview is priced for when the options list it. */
const RENEWAL_DURATION = "1d";
const DAY_MINUTES = 24 * 60;
/** A rule created this much before the card (clock skew between us and the marketplace) may still be ours. */
const CLOCK_SLACK_MS = 60_000;

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

/** What the card shows from the marketplace; the commission and the balance are null when it left them out. */
interface CardFigures {
  priceTrx: string;
  commissionTrx: string | null;
  balanceTrx: string | null;
  /** Renewal only: the duration the estimate was priced for when the options do not list a day. */
  pricedFor?: string;
}

/** What a rule is made of, before the card adds what it learned from the marketplace. */
type RuleRequest = Omit<RulePayload, "knownIds" | "figures">;

/** The confirmation card of a complete draft. Creating it is all a flow does: Confirm creates the rule. */
export async function sendRuleCard(ctx: BotContext, draft: RuleDraft): Promise<void> {
  const client = await userClient(ctx);
  if (!client) return;
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
async function previewFiring(
  client: MarketplaceClient,
  payload: RuleRequest,
  options: AutomationOptions,
): Promise<AutomationPreview & { pricedFor?: string }> {
  if (payload.kind === "refill")
    return client.previewAutomation({ volume: payload.volume!, duration: payload.duration!, type: "refill" });
  if (payload.kind === "smart") return client.previewAutomation({ ...SMART_PREVIEW, type: "smart" });
  const volume = BigInt(payload.volume!);
  const { min, max } = volumeBounds("refill", options);
  const priced = volume < min ? min : volume > max ? max : volume;
  const duration = renewalPricingDuration(options.durations);
  const pricedFor = durationMinutes(duration) === DAY_MINUTES ? {} : { pricedFor: duration };
  const preview = await client.previewAutomation({ volume: priced.toString(), duration, type: "refill" });
  if (priced === volume) return { ...preview, ...pricedFor };
  return {
    priceTrx: scaleTrx(preview.priceTrx, volume, priced),
    baseCostTrx: preview.baseCostTrx === null ? null : scaleTrx(preview.baseCostTrx, volume, priced),
    commissionTrx: preview.commissionTrx === null ? null : scaleTrx(preview.commissionTrx, volume, priced),
    ...pricedFor,
  };
}

/**
 * Previews one firing and reads the balance and the matching rules that already exist. `knownIds`
 * is given after an attempt whose outcome is unknown: the rule it may have made must stay "new".
 */
async function buildCard(
  ctx: BotContext,
  client: MarketplaceClient,
  request: RuleRequest,
  knownIds?: string[],
): Promise<{ text: string; payload: RulePayload; canConfirm: boolean } | null> {
  let preview, balance, existing;
  try {
    const options = await ctx.deps.options.automationOptions(ctx.account.telegram_id, client);
    [preview, balance, existing] = await Promise.all([
      previewFiring(client, request, options),
      client.balance(),
      knownIds ? Promise.resolve([]) : client.listAutomations(),
    ]);
  } catch (error) {
    await replyMarketplaceError(ctx, error, { read: true });
    return null;
  }
  const payload: RulePayload = {
    ...request,
    knownIds: knownIds ?? existing.filter((rule) => matches(rule, { ...request, knownIds: [] })).map((rule) => rule.id),
    figures: {
      priceTrx: preview.priceTrx,
      commissionTrx: preview.commissionTrx,
      balanceTrx: balance.trx,
      ...(preview.pricedFor ? { pricedFor: preview.pricedFor } : {}),
    },
  };
  return { ...confirmCard(ctx, payload, payload.figures!), payload };
}

/** The confirmation card's text, drawn from the payload alone. */
function confirmCard(
  ctx: BotContext,
  payload: RulePayload,
  figures: CardFigures,
): { text: string; canConfirm: boolean } {
  const lines = [
    ctx.tr("rule-confirm-title"),
    "",
    ctx.tr("rule-confirm-kind", { value: ctx.tr(`rule-kind-${payload.kind}`) }),
    ctx.tr("card-target", {}, { value: code(payload.address) }),
  ];
  if (payload.kind === "refill") {
    lines.push(
      ctx.tr("rule-card-minimal", { value: volumeText(payload.minimal!, ctx.lang) }),
      ctx.tr("card-volume", { value: volumeText(payload.volume!, ctx.lang) }),
      ctx.tr("card-duration", { value: durationText(payload.duration!, ctx.lang) }),
      "",
      ctx.tr("rule-confirm-trigger-refill", {
        minimal: volumeText(payload.minimal!, ctx.lang),
        volume: volumeText(payload.volume!, ctx.lang),
        duration: durationText(payload.duration!, ctx.lang),
      }),
    );
  } else if (payload.kind === "renewal") {
    lines.push(
      ctx.tr("card-volume", { value: volumeText(payload.volume!, ctx.lang) }),
      ctx.tr("card-duration", { value: RENEWAL_DURATION }),
      "",
      ctx.tr("rule-confirm-trigger-renewal", { volume: volumeText(payload.volume!, ctx.lang) }),
    );
  } else {
    lines.push("", ctx.tr("rule-confirm-trigger-smart"));
  }
  lines.push(
    ctx.tr(payload.kind === "renewal" ? "rule-confirm-cost-estimate" : "rule-confirm-cost", {
      value: trxText(figures.priceTrx, ctx.lang),
      commission: knownTrxText(figures.commissionTrx, ctx.lang),
    }),
    ...(figures.pricedFor
      ? [ctx.tr("rule-confirm-estimate-priced-for", { duration: durationText(figures.pricedFor, ctx.lang) })]
      : []),
    ctx.tr("rule-confirm-charged"),
    ctx.tr("rule-card-auto-resume", { value: ctx.tr(payload.autoResume ? "button-yes" : "button-no") }),
    ctx.tr("card-balance", { value: knownTrxText(figures.balanceTrx, ctx.lang) }),
  );
  // A balance the marketplace left out is not held against the rule: Confirm is offered and the marketplace decides.
  const covered = figures.balanceTrx === null || compareTrx(figures.balanceTrx, figures.priceTrx) >= 0;
  // Renewal and smart rules need one firing's balance up front; a refill rule may be set up before topping up.
  const canConfirm = covered || payload.kind === "refill";
  if (!covered) lines.push("", ctx.tr(payload.kind === "refill" ? "rule-confirm-short-refill" : "rule-confirm-short"));
  return { text: lines.join("\n"), canConfirm };
}

/** The auto-resume toggle under Confirm and Cancel; its label shows the current choice. */
function autoResumeButton(ctx: BotContext, autoResume: boolean): (id: string) => CardButton[] {
  return (id) => [
    {
      text: ctx.tr("button-auto-resume", { value: ctx.tr(autoResume ? "button-yes" : "button-no") }),
      data: CARD_AUTO_RESUME.data(id),
    },
  ];
}

/**
 * The rule this card created, if the marketplace made it (after a timeout, a network error or a
 * crash mid-call): same kind, target and volume, not known before the card, created after it.
 * Throws when the list cannot be read.
 */
async function findCreated(
  client: MarketplaceClient,
  payload: RulePayload,
  action: PendingAction,
): Promise<AutomationRule | null> {
  const rules = await client.listAutomations();
  return (
    rules.find(
      (rule) =>
        matches(rule, payload) &&
        !payload.knownIds.includes(rule.id) &&
        Date.parse(rule.createdAt) >= action.created_at - CLOCK_SLACK_MS,
    ) ?? null
  );
}

async function create(client: MarketplaceClient, payload: RulePayload): Promise<AutomationRule> {
  switch (payload.kind) {
    case "refill":
      return client.createRefill({
        targetAddress: payload.address,
        minimal: payload.minimal!,
        volume: payload.volume!,
        duration: payload.duration!,
        autoResume: payload.autoResume,
      });
    case "renewal":
      return client.createRenewal({
        targetAddress: payload.address,
        volume: payload.volume!,
        autoResume: payload.autoResume,
      });
    case "smart":
      return client.createSmart({ targetAddress: payload.address, autoResume: payload.autoResume });
  }
}

/** Shows a rule as its card (text and menu): the rules menu does it. */
export type RuleCardMaker = (
  ctx: BotContext,
  rule: AutomationRule,
) => Promise<{ text: string; keyboard: Menu<BotContext> }>;

/** The rule confirmation card: Confirm creates the rule once (no idempotency key: a timed-out creation is looked for first); the auto-resume toggle. */
export function ruleCardFeature(cards: CardKinds, ruleCard: RuleCardMaker): Composer<BotContext> {
  const composer = new FlatComposer<BotContext>();
  cards.set("rule", ruleCardKind(ruleCard));
  // The auto-resume toggle: one-line forms can choose it too. Only before Confirm was ever sent.
  composer.callbackQuery(CARD_AUTO_RESUME.pattern, toggleAutoResume);
  return composer;
}

/** "Rule created" above the new rule's card. */
async function createdText(
  ctx: BotContext,
  rule: AutomationRule,
  ruleCard: RuleCardMaker,
): Promise<{ text: string; keyboard: Menu<BotContext> }> {
  const card = await ruleCard(ctx, rule);
  return { text: `${ctx.tr("rule-created")}\n\n${card.text}`, keyboard: card.keyboard };
}

/** What Confirm, a second look, Cancel after an attempt, Refresh and a done card do for a rule card. */
function ruleCardKind(ruleCard: RuleCardMaker): CardKind {
  return {
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
        ctx.deps.logger.info(
          { userId: ctx.account.telegram_id, card: action.id, kind: error.kind, status: error.status },
          "rule not created",
        );
        if (!RETRYABLE.has(error.kind)) {
          if (error.kind === "unauthorized") await markKeyBroken(ctx.deps.db, ctx.account.telegram_id, ctx.deps.now());
          const { text, keyboard } = await describeSpendError(
            ctx,
            client,
            error,
            payload.figures?.balanceTrx ?? undefined,
          );
          return { state: "failed", text, keyboard, result: { error: error.kind } };
        }
        // Rule creation has no idempotency key: look for the rule before offering to send again.
        const found = await findCreated(client, payload, action).catch(() => null);
        if (!found) return { state: "retry", text: ctx.tr("card-unknown-state"), result: { attempted: true } };
        ctx.deps.logger.info(
          { userId: ctx.account.telegram_id, card: action.id, ruleId: found.id },
          "timed-out rule creation found in the list",
        );
        rule = found;
      }
      await touchAddress(ctx.deps.db, ctx.account.telegram_id, payload.address, ctx.deps.now());
      ctx.deps.logger.info({ userId: ctx.account.telegram_id, ruleId: rule.id, card: action.id }, "rule created");
      await markInMotion(ctx.deps.db, ctx.account.telegram_id, "rule", ctx.deps.now());
      const { text, keyboard } = await createdText(ctx, rule, ruleCard);
      return { state: "done", text, keyboard, result: rule };
    },
    async recheck(ctx, action): Promise<CardOutcome> {
      const client = await userClient(ctx);
      if (!client) return { state: "failed", text: ctx.tr("card-no-key") };
      // Only a look: sending again here could make a second rule if the first is merely slow to list.
      const found = await findCreated(client, JSON.parse(action.payload) as RulePayload, action).catch(() => null);
      if (!found) return { state: "retry", text: ctx.tr("card-unknown-state") };
      ctx.deps.logger.info(
        { userId: ctx.account.telegram_id, card: action.id, ruleId: found.id },
        "rule creation with an unknown outcome found in the list",
      );
      const { text, keyboard } = await createdText(ctx, found, ruleCard);
      return { state: "done", text, keyboard, result: found };
    },
    async cancelAfterAttempt(ctx, action) {
      const client = await userClient(ctx);
      const found = client
        ? await findCreated(client, JSON.parse(action.payload) as RulePayload, action).catch(() => undefined)
        : undefined;
      if (found === undefined) return { text: ctx.tr("card-cancelled-rule-unknown") };
      if (found === null) return { text: ctx.tr("card-cancelled-rule-none") };
      const card = await ruleCard(ctx, found);
      return {
        text: `${ctx.tr("card-cancelled-rule-exists")}\n\n${card.text}`,
        keyboard: card.keyboard,
        result: found,
      };
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
  };
}

/** The auto-resume toggle under a pending card that was never confirmed. */
async function toggleAutoResume(ctx: BotContext & { callbackQuery: { data: string } }): Promise<void> {
  const action = await findPendingAction(
    ctx.deps.db,
    ctx.account.telegram_id,
    CARD_AUTO_RESUME.parse(ctx.callbackQuery.data)!,
  );
  const payload = action?.kind === "rule" ? (JSON.parse(action.payload) as RulePayload) : null;
  if (!action || !payload?.figures || action.state !== "pending") {
    await ctx.answerCallbackQuery({
      text: ctx.tr(action?.state === "processing" ? "card-processing" : "card-expired"),
    });
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
  await editInPlace(
    ctx,
    card.text,
    cardKeyboard(ctx, action.id, card.canConfirm, autoResumeButton(ctx, toggled.autoResume)(action.id)),
  );
}
