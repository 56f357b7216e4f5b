import type { Language, Translate } from "./i18n";
import { marketWord } from "./html";
import { volumeText } from "./format";

/*
 * The marketplace's own words (an order's status, a ledger entry's type and status, a resource) in
 * the reader's language. The spec leaves these literals open, so each is read loosely (its letters
 * only, in lower case: "OrderPayment", "order_payment" and "ORDER-PAYMENT" read alike) and matched
 * in the Fluent message against the words the bot knows; any other word is shown as the
 * marketplace wrote it, cut short, so an unknown value still reads.
 */

/** A marketplace word as the Fluent messages select on it: its letters only, lower case. */
export function wordKey(word: string): string {
  return word.toLowerCase().replace(/[^a-z]/g, "") || "other";
}

/** "Filled" as the reader's language says it ("исполнен", "已完成"); an unknown status as written. */
export function orderStatusText(tr: Translate, status: string): string {
  return tr("order-status", { status: wordKey(status), word: marketWord(status) });
}

/** "OrderPayment" as the reader's language says it ("Оплата заказа", "订单付款"); an unknown type as written. */
export function ledgerTypeText(tr: Translate, type: string): string {
  return tr("ledger-type", { type: wordKey(type), word: marketWord(type) });
}

/** "Completed" as the reader's language says it; an unknown status as written. */
export function ledgerStatusText(tr: Translate, status: string): string {
  return tr("ledger-status", { status: wordKey(status), word: marketWord(status) });
}

/**
 * The number Fluent chooses a plural form by: the plural rules of the shipped languages look at
 * the last two digits and at whether the number is 1, so a volume beyond the safe integers keeps
 * those (and its size above 1000), never a rounded float.
 */
function pluralCount(volume: string | bigint): number {
  let value: bigint;
  try {
    value = BigInt(volume.toString().trim());
  } catch {
    return 0;
  }
  if (value < 0n) value = -value;
  return value < 1000n ? Number(value) : 1000 + Number(value % 1000n);
}

/**
 * "5 000 000 энергии", "65,000 energy", "65,000 能量": an amount of a resource as the reader's
 * language writes it (its number formatted, its noun in the form the number asks for). Another
 * resource keeps the marketplace's name. HTML, passed to other messages as an HTML variable.
 */
export function resourceAmount(tr: Translate, resource: string, volume: string | bigint, language: Language): string {
  const known = resource.toLowerCase();
  return tr("resource-amount", {
    volume: volumeText(volume, language),
    count: pluralCount(volume),
    resource: known === "energy" || known === "bandwidth" ? known : "other",
    word: marketWord(resource),
  });
}
