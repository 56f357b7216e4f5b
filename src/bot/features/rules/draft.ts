import { parseInt64, type AutomationOptions, type MarketplaceClient } from "#src/marketplace/index";
import { looksLikeAddress } from "#src/input/address";
import { splitArguments } from "#src/input/arguments";
import { checkBounds, parseDuration, parseVolume } from "#src/input/volume";
import type { BotContext } from "#src/bot/context";
import { volumeText } from "#src/chat/format";
import { truncate } from "#src/chat/html";
import { replyMarketplaceError } from "#src/bot/marketplace-access";
import { readAddress } from "../addresses";
import { ruleKind, type RuleKind } from "#src/marketplace/rule-words";

export const KINDS: RuleKind[] = ["refill", "renewal", "smart"];

export type RuleField = "address" | "minimal" | "volume" | "duration";
export type RuleStep = "kind" | RuleField | "autoResume";

/** A rule being put together, from arguments or step by step. Plain JSON (kept in the guided flow's log). */
export interface RuleDraft {
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

export const FIELDS: Record<RuleKind, RuleField[]> = {
  refill: ["address", "minimal", "volume", "duration"],
  renewal: ["address", "volume"],
  smart: ["address"],
};

export const USAGE: Record<RuleKind, string> = {
  refill: "/refill TAddress… 30k 65k 1h",
  renewal: "/renewal TAddress… 65k",
  smart: "/smart TAddress…",
};

export function volumeBounds(kind: RuleKind, options: AutomationOptions): { min: bigint; max: bigint } {
  return kind === "renewal"
    ? { min: BigInt(options.renewalMinVolume), max: BigInt(options.renewalMaxVolume) }
    : { min: BigInt(options.minVolume), max: BigInt(options.maxVolume) };
}

export function parseYesNo(ctx: BotContext, input: string): boolean | null {
  const text = input.trim().toLowerCase();
  if (["yes", "y", "true", "1", ctx.tr("button-yes").toLowerCase()].includes(text)) return true;
  if (["no", "n", "false", "0", ctx.tr("button-no").toLowerCase()].includes(text)) return false;
  return null;
}

export function parseKind(ctx: BotContext, input: string): RuleKind | null {
  const text = input.trim().toLowerCase();
  const found = KINDS.find((kind) => kind === text || ctx.tr(`rule-kind-${kind}`).toLowerCase() === text);
  return found ?? ruleKind(text);
}

type Check<T> = { ok: true; value: T } | { ok: false; message: string };

/** `offered`: the address buttons of the guided step, whose answer is "@<reference>". */
export function validateRuleField(
  ctx: BotContext,
  field: RuleField,
  input: string,
  kind: RuleKind,
  options: AutomationOptions,
  offered?: Record<string, string>,
): Check<string> {
  switch (field) {
    case "address":
      return readAddress(ctx, input, offered);
    case "minimal": {
      // No bounds from the options here, but the marketplace takes an int64 and nothing larger.
      const parsed = parseVolume(input);
      return parsed.ok && parseInt64(parsed.volume) !== null
        ? { ok: true, value: parsed.volume.toString() }
        : { ok: false, message: ctx.tr("input-minimal-bad") };
    }
    case "volume": {
      const parsed = parseVolume(input);
      if (!parsed.ok) return { ok: false, message: ctx.tr(`input-volume-${parsed.reason}`) };
      const bounds = volumeBounds(kind, options);
      if (checkBounds(parsed.volume, bounds.min, bounds.max)) {
        return {
          ok: false,
          message: ctx.tr("input-volume-bounds", {
            min: volumeText(bounds.min, ctx.lang),
            max: volumeText(bounds.max, ctx.lang),
          }),
        };
      }
      return { ok: true, value: parsed.volume.toString() };
    }
    case "duration": {
      const duration = parseDuration(input, options.durations);
      return duration
        ? { ok: true, value: duration }
        : { ok: false, message: ctx.tr("input-duration-bad", { durations: options.durations.join(", ") }) };
    }
  }
}

/** One-line arguments: an address (T…), a listed duration, then volumes in order (refill: minimal, volume). */
export function draftFromArguments(
  ctx: BotContext,
  kind: RuleKind,
  text: string,
  options: AutomationOptions,
): { ok: true; draft: RuleDraft } | { ok: false; message: string } {
  const draft: RuleDraft = { kind };
  const fields = FIELDS[kind];
  const volumeSlots = fields.filter(
    (field): field is "minimal" | "volume" => field === "minimal" || field === "volume",
  );
  const raw: Partial<Record<RuleField, string>> = {};
  // "65 000" is one volume, as the refusal's own examples say (and as /buy reads it).
  for (const token of splitArguments(text)) {
    if (looksLikeAddress(token) && raw.address === undefined) {
      raw.address = token;
      continue;
    }
    if (fields.includes("duration") && raw.duration === undefined && parseDuration(token, options.durations)) {
      raw.duration = token;
      continue;
    }
    const slot = volumeSlots.find((field) => raw[field] === undefined);
    const volume = parseVolume(token);
    if (slot && volume.ok) {
      raw[slot] = token;
      continue;
    }
    // A volume of zero, below zero or with a fraction of a unit is explained as the guided step explains it.
    if (slot && !volume.ok && volume.reason !== "format")
      return { ok: false, message: ctx.tr(`input-volume-${volume.reason}`) };
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

/** The automation options (bounds, durations), or null after telling the user why not. */
export async function automationOptions(ctx: BotContext, client: MarketplaceClient): Promise<AutomationOptions | null> {
  try {
    return await ctx.deps.options.automationOptions(ctx.account.telegram_id, client);
  } catch (error) {
    await replyMarketplaceError(ctx, error, { read: true });
    return null;
  }
}

/** The step a draft still needs, or null when it is complete. */
export function nextStep(draft: RuleDraft): RuleStep | null {
  if (!draft.kind) return "kind";
  const field = FIELDS[draft.kind].find((name) => draft[name] === undefined);
  if (field) return field;
  if (draft.autoResume === undefined && draft.guided) return "autoResume";
  return null;
}
