import type { MarketplaceClient, OrderOptions } from "#src/marketplace/index";
import { looksLikeAddress } from "#src/input/address";
import { splitArguments } from "#src/input/arguments";
import { checkBounds, parseDuration, parseResource, parseVolume, RESOURCES } from "#src/input/volume";
import type { BotContext } from "#src/bot/context";
import { readAddress } from "../addresses";
import { volumeText } from "#src/chat/format";
import { truncate } from "#src/chat/html";

/** What a quote or an order needs; filled from arguments or step by step. Plain JSON (stored in the flow). */
export interface OrderDraft {
  resource?: string;
  volume?: string;
  duration?: string;
  address?: string;
  /** The energy hint (energy goes to the sender of the USDT) is said once per flow. */
  hinted?: boolean;
  /** Saved addresses offered as buttons at the address step, by short reference (callback data never carries an address). */
  offered?: Record<string, string>;
}

export type DraftField = "resource" | "volume" | "duration" | "address";

/** Bounds and durations per resource, from the order options endpoint (or the quote's documented durations without a key). */
export interface OrderLimits {
  durations(resource: string): string[];
  bounds(resource: string): { min: bigint; max: bigint } | null;
}

/** The quote endpoint names these durations; used only when no key is linked to read the options. */
const QUOTE_DURATIONS = ["15m", "1h", "1d"];

export function limitsFromOptions(options: OrderOptions | null): OrderLimits {
  const entry = (resource: string) => options?.resources.find((item) => item.resource.toLowerCase() === resource);
  return {
    durations: (resource) => entry(resource)?.durations ?? (options ? [] : QUOTE_DURATIONS),
    bounds: (resource) => {
      const item = entry(resource);
      return item ? { min: BigInt(item.minVolume), max: BigInt(item.maxVolume) } : null;
    },
  };
}

export async function orderLimits(ctx: BotContext, client: MarketplaceClient | null): Promise<OrderLimits> {
  if (!client) return limitsFromOptions(null);
  return limitsFromOptions(await ctx.deps.options.orderOptions(ctx.account.telegram_id, client));
}

/**
 * Until the resource is chosen, a volume or duration is checked against what any resource allows
 * (the widest bounds, every listed duration); once it is chosen, {@link recheckForResource} narrows it.
 */
function boundsFor(limits: OrderLimits, resource: string | undefined): { min: bigint; max: bigint } | null {
  if (resource) return limits.bounds(resource);
  const all = RESOURCES.map((name) => limits.bounds(name)).filter((bounds) => bounds !== null);
  if (all.length === 0) return null;
  return all.reduce((wide, bounds) => ({
    min: bounds.min < wide.min ? bounds.min : wide.min,
    max: bounds.max > wide.max ? bounds.max : wide.max,
  }));
}

function durationsFor(limits: OrderLimits, resource: string | undefined): string[] {
  return resource ? limits.durations(resource) : [...new Set(RESOURCES.flatMap((name) => limits.durations(name)))];
}

/**
 * Reads one-line arguments in any order: a resource word, a T… address, a listed duration, a volume
 * ("65 000" is one). A token that reads as none of them (or as one already given) is `rejected`
 * (the first such; `moreRejected` when there were others) and the rest are still read.
 */
export function draftFromArguments(
  text: string,
  limits: OrderLimits,
): { draft: OrderDraft; rejected: string | null; moreRejected?: true } {
  const draft: OrderDraft = {};
  const rejected: string[] = [];
  for (const token of splitArguments(text)) {
    const resource = parseResource(token);
    if (resource && !draft.resource) draft.resource = resource;
    else if (looksLikeAddress(token) && !draft.address) draft.address = token;
    else if (!draft.duration && parseDuration(token, durationsFor(limits, undefined)))
      draft.duration = parseDuration(token, durationsFor(limits, undefined))!;
    else if (!draft.volume && parseVolume(token).ok) draft.volume = token;
    else rejected.push(token);
  }
  return rejected.length > 1
    ? { draft, rejected: rejected[0]!, moreRejected: true }
    : { draft, rejected: rejected[0] ?? null };
}

/**
 * Checks one field of the draft; returns an explanation (HTML) when it is wrong, or the
 * normalised value. Shared by one-line arguments, typed answers and buttons.
 */
export function validateField(
  ctx: BotContext,
  field: DraftField,
  input: string,
  draft: OrderDraft,
  limits: OrderLimits,
): { ok: true; value: string } | { ok: false; message: string } {
  switch (field) {
    case "resource": {
      const resource = parseResource(input);
      return resource ? { ok: true, value: resource } : { ok: false, message: ctx.tr("input-resource-bad") };
    }
    case "volume": {
      const parsed = parseVolume(input);
      if (!parsed.ok) return { ok: false, message: ctx.tr(`input-volume-${parsed.reason}`) };
      const bounds = boundsFor(limits, draft.resource);
      if (bounds && checkBounds(parsed.volume, bounds.min, bounds.max)) {
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
      const durations = durationsFor(limits, draft.resource);
      const duration = parseDuration(input, durations);
      return duration
        ? { ok: true, value: duration }
        : { ok: false, message: ctx.tr("input-duration-bad", { durations: durations.join(", ") }) };
    }
    case "address":
      return readAddress(ctx, input, draft.offered);
  }
}

/** What a duration looks like (a number and m, h or d), listed or not. */
const DURATION_SHAPE = /^\d{1,4}\s*[mhd]$/i;

/** What reads as an attempt at a TRON address: a T and 25 or more letters and digits, whatever follows. */
const ADDRESS_ATTEMPT = /^t[1-9a-z]{25,}/i;

/**
 * Why a one-line argument was not taken, as the guided step would say it, and the field it was
 * meant for: a duration the marketplace does not list ("2h") is told which ones it does; a volume
 * of zero, below zero or with a fraction of a unit, and an address that is not one (a lower-case or
 * cut T… address), get their own explanations; anything else (field null) is named with the
 * command's usage.
 */
function rejectedArgument(
  ctx: BotContext,
  rejected: string,
  draft: OrderDraft,
  limits: OrderLimits,
  usage: string,
): { field: DraftField | null; message: string } {
  if (DURATION_SHAPE.test(rejected) && !draft.duration)
    return {
      field: "duration",
      message: ctx.tr("input-duration-bad", { durations: durationsFor(limits, draft.resource).join(", ") }),
    };
  if (!draft.volume) {
    const volume = parseVolume(rejected);
    if (!volume.ok && volume.reason !== "format")
      return { field: "volume", message: ctx.tr(`input-volume-${volume.reason}`) };
  }
  if (!draft.address && ADDRESS_ATTEMPT.test(rejected)) {
    const address = readAddress(ctx, rejected, draft.offered);
    if (!address.ok) return { field: "address", message: address.message };
  }
  return { field: null, message: ctx.tr("input-argument-bad", { value: truncate(rejected, 40), usage }) };
}

/**
 * A command's order arguments read and checked against the limits: the draft (its fields may
 * still be missing) and, when one argument was wrong, why (`problem`): its field is left out of
 * the draft, to be asked again with its buttons, the good arguments kept. Null once the user was
 * told what is wrong and how the command is written (an argument that fits no field, or more
 * than one wrong).
 */
export async function draftFromCommand(
  ctx: BotContext,
  args: string,
  limits: OrderLimits,
  fields: DraftField[],
  usage: string,
): Promise<{ draft: OrderDraft; problem: string | null } | null> {
  const { draft, rejected, moreRejected } = draftFromArguments(args, limits);
  const bad = rejected === null ? null : rejectedArgument(ctx, rejected, draft, limits, usage);
  const valid = validateDraft(ctx, draft, limits, fields);
  const refuse = async (message: string) => {
    await ctx.reply(message, { parse_mode: "HTML" });
    return null;
  };
  if (bad) {
    if (moreRejected || bad.field === null || !fields.includes(bad.field) || !valid.ok) return refuse(bad.message);
    return { draft: valid.draft, problem: bad.message };
  }
  if (valid.ok) return { draft: valid.draft, problem: null };
  const rest: OrderDraft = { ...draft };
  delete rest[valid.field];
  const others = validateDraft(ctx, rest, limits, fields);
  return others.ok ? { draft: others.draft, problem: valid.message } : refuse(valid.message);
}

/** Validates every field present in a draft (one-line form); the first problem wins. */
export function validateDraft(
  ctx: BotContext,
  draft: OrderDraft,
  limits: OrderLimits,
  fields: DraftField[],
): { ok: true; draft: OrderDraft } | { ok: false; message: string; field: DraftField } {
  const result: OrderDraft = { ...draft };
  for (const field of fields) {
    const value = draft[field];
    if (value === undefined) continue;
    const check = validateField(ctx, field, value, result, limits);
    if (!check.ok) return { ok: false, message: check.message, field };
    result[field] = check.value;
  }
  return { ok: true, draft: result };
}

/**
 * A volume or duration given before the resource was only checked against what any resource
 * allows; once the resource is known it must fit that resource. The first misfit is dropped
 * (to be asked again) and explained.
 */
export function recheckForResource(
  ctx: BotContext,
  draft: OrderDraft,
  limits: OrderLimits,
): { draft: OrderDraft; problem: string | null } {
  if (!draft.resource) return { draft, problem: null };
  for (const field of ["volume", "duration"] as const) {
    const value = draft[field];
    if (value === undefined) continue;
    const check = validateField(ctx, field, value, draft, limits);
    if (!check.ok) {
      const next = { ...draft };
      delete next[field];
      return { draft: next, problem: check.message };
    }
  }
  return { draft, problem: null };
}

/** The first field still missing once the resource's bounds apply; null when the draft is complete. */
export function missingOrderField(
  ctx: BotContext,
  draft: OrderDraft,
  limits: OrderLimits,
  fields: DraftField[],
): DraftField | null {
  const rechecked = recheckForResource(ctx, draft, limits);
  return fields.find((name) => rechecked.draft[name] === undefined) ?? null;
}
