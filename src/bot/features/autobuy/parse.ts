import { looksLikeAddress } from "#src/input/address";
import { splitArguments } from "#src/input/arguments";
import { parseTrxLimit, saysTrx } from "#src/input/trx-limit";
import { parseDuration, parseResource } from "#src/input/volume";
import { sunToTrx } from "#src/marketplace/money";
import type { OrderDraft } from "../order-params";

/**
 * An auto-buy being made: the order fields, the most one order may cost and the daily budget
 * (normalised decimal TRX strings), and, when a one-line amount was refused, why (said before
 * the amount is asked again). Plain JSON: it is stored in the flow.
 */
export interface AutoBuyDraft extends OrderDraft {
  maxTrx?: string;
  budgetTrx?: string;
  /** A refused one-line amount: which and why (HTML). */
  problem?: { field: "max" | "budget"; message: string };
}

/** What a duration looks like (a number and m, h or d), offered or not. */
const DURATION_SHAPE = /^\d{1,4}\s*[mhd]$/i;

/**
 * Splits /autobuy's one-line arguments into the order's (resource, volume, duration, address: read
 * by the same validator as /buy) and the amounts: the most per order, then the daily budget. The
 * first bare number is the volume; the numbers after it (or written with "trx", wherever they
 * stand) are the amounts, in that order. A third amount stays with the order's arguments, which
 * refuse it. Only the volume may be written with space-separated thousands ("65 000"): after it,
 * "3 100" is two amounts, not 3,100.
 */
export function splitAutoBuyArguments(
  text: string,
  durations: readonly string[],
): { orderText: string; amounts: string[] } {
  const order: string[] = [];
  const amounts: string[] = [];
  let volumeSeen = false;
  for (const token of tokensOf(text, durations)) {
    if (amounts.length < 2 && saysTrx(token)) {
      amounts.push(token);
      continue;
    }
    if (amounts.length > 0 && /^trx$/i.test(token)) continue;
    if (
      parseResource(token) ||
      looksLikeAddress(token) ||
      parseDuration(token, durations) ||
      (volumeSeen && DURATION_SHAPE.test(token))
    ) {
      order.push(token);
      continue;
    }
    if (!volumeSeen) {
      volumeSeen = true;
      order.push(token);
      continue;
    }
    if (amounts.length < 2) amounts.push(token);
    else order.push(token);
  }
  return { orderText: order.join(" "), amounts };
}

/** The arguments: thousands groups joined ("65 000") up to the first bare number only. */
function* tokensOf(text: string, durations: readonly string[]): Generator<string> {
  const raw = text.split(/\s+/).filter(Boolean);
  let numberSeen = false;
  for (let index = 0; index < raw.length; index++) {
    const token = raw[index]!;
    if (numberSeen || !/^\d/.test(token) || saysTrx(token) || parseDuration(token, durations) !== null) {
      yield token;
      continue;
    }
    numberSeen = true;
    // The volume, with its space-separated thousands (splitArguments' rule), as one argument.
    const [joined] = splitArguments(raw.slice(index).join(" "));
    index += joined!.split(" ").length - 1;
    yield joined!;
  }
}

export type AmountCheck = { ok: true; value: string } | { ok: false; reason: "format" | "zero" | "precision" | "high" };

/**
 * A TRX amount as people type it (2.5, 2.5trx, 3 TRX; with `decimalComma`, 2,5): above zero, at most 6
 * decimals, far below absurd. A minus sign reads as "not above zero", not as a format problem.
 */
export function readTrxAmount(input: string, decimalComma: boolean): AmountCheck {
  if (/^\s*[-−–]\s*\d/.test(input)) return { ok: false, reason: "zero" };
  const parsed = parseTrxLimit(input, { decimalComma });
  return parsed.ok ? { ok: true, value: sunToTrx(parsed.sun) } : { ok: false, reason: parsed.reason };
}
