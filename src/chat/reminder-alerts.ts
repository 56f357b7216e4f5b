import { InlineKeyboard } from "grammy";
import type { OutboxPayload } from "#src/db/repos/outbox";
import { code } from "./html";
import { amountText, durationText, timeText, trxText, volumeText } from "./format";
import { MAIN_MENU, RENEW } from "./callback-data";
import { ruleKind } from "#src/marketplace/rule-words";
import type { Recipient } from "./alerts";

// The alerts that come before something happens: a rental ending, a balance running low, and the
// delivery of each firing of a rule. Given what they show; they never read the database.

function message(text: string, keyboard?: InlineKeyboard): OutboxPayload {
  return {
    method: "sendMessage",
    params: {
      text,
      parse_mode: "HTML",
      link_preview_options: { is_disabled: true },
      ...(keyboard ? { reply_markup: keyboard } : {}),
    },
  };
}

function resourceWord({ tr }: Recipient, resource: string): string {
  return resource === "energy" || resource === "bandwidth" ? tr(`resource-${resource}`) : resource.slice(0, 30);
}

/** What a rental's alert shows. */
export interface RentalEnding {
  orderId: string;
  resource: string;
  volume: string;
  duration: string;
  targetAddress: string;
  /** When it ends (ms). */
  endsAt: number;
}

/**
 * "Your rental ends in 10 min": the rent and the address, when it ends, and Renew (a reference
 * like Buy again's: a fresh confirmation card for the same rent at today's price). No Renew when
 * no key was linked to name (`renewRef` null).
 */
export function rentalEndingAlert(
  recipient: Recipient,
  rental: RentalEnding,
  now: number,
  renewRef: string | null,
): OutboxPayload {
  const { tr, language } = recipient;
  const minutes = Math.max(1, Math.round((rental.endsAt - now) / 60_000));
  const lines = [
    tr("alert-rental-ends", { minutes: String(minutes) }, { id: code(rental.orderId.slice(0, 8)) }),
    tr("alert-rental-what", {
      volume: volumeText(rental.volume, language),
      resource: resourceWord(recipient, rental.resource),
      duration: durationText(rental.duration, language),
    }),
    tr("alert-target", {}, { value: code(rental.targetAddress) }),
    tr("alert-rental-at", { time: timeText(new Date(rental.endsAt).toISOString()) }),
  ];
  if (renewRef) lines.push("", tr("alert-rental-hint"));
  const keyboard = renewRef ? new InlineKeyboard().text(tr("button-renew"), RENEW.data(renewRef)).success() : undefined;
  return message(lines.join("\n"), keyboard);
}

/** The dedupe key of a rental's alert: one per order and user. */
export function rentalEndingKey(orderId: string): string {
  return `ends:${orderId.toLowerCase()}`;
}

/** What a low-balance alert says: the balance, and whichever of the two reasons holds. */
export interface LowBalance {
  balanceTrx: string;
  /** The dearest next delivery of an active rule, when the balance does not cover it. */
  uncovered: { ruleId: string; costTrx: string } | null;
  /** The pace and how long the balance lasts, when that is under the warning time. */
  short: { perDayTrx: string; lastsText: string; warningHours: number } | null;
}

/** "⚠️ Low balance": the balance left, why it is low, and Top up. */
export function lowBalanceAlert(recipient: Recipient, low: LowBalance): OutboxPayload {
  const { tr, language } = recipient;
  const lines = [tr("alert-low-balance", { balance: trxText(low.balanceTrx, language) })];
  if (low.uncovered)
    lines.push(
      tr(
        "alert-low-balance-delivery",
        { cost: trxText(low.uncovered.costTrx, language) },
        { id: code(low.uncovered.ruleId.slice(0, 8)) },
      ),
    );
  if (low.short)
    lines.push(
      tr("alert-low-balance-runway", {
        perDay: amountText(low.short.perDayTrx, language),
        lasts: low.short.lastsText,
        warning: tr(`warning-${low.short.warningHours}`),
      }),
    );
  lines.push("", tr("alert-low-balance-hint"));
  return message(lines.join("\n"), new InlineKeyboard().text(tr("button-topup"), MAIN_MENU.data("topup")));
}

/** The dedupe key of the low-balance alert of the `crossing`th crossing. */
export function lowBalanceKey(crossing: number): string {
  return `balance:${crossing}`;
}

/** One firing of a rule, as its alert shows it. */
export interface Delivery {
  ruleId: string;
  ruleType: string;
  targetAddress: string;
  volume: string;
  duration: string | null;
  priceTrx: string;
  createdAt: string;
}

/** "📦 Rule … delivered 65,000 energy to T… for 4.65 TRX". */
export function deliveryAlert(recipient: Recipient, delivery: Delivery): OutboxPayload {
  const { tr, language } = recipient;
  const kind = ruleKind(delivery.ruleType);
  const lines = [
    tr(
      "alert-delivered-firing",
      {
        kind: kind ? tr(`rule-kind-${kind}`) : delivery.ruleType.slice(0, 30),
        volume: volumeText(delivery.volume, language),
        price: trxText(delivery.priceTrx, language),
      },
      { id: code(delivery.ruleId.slice(0, 8)), address: code(delivery.targetAddress) },
    ),
    delivery.duration
      ? tr("alert-delivered-when", {
          time: timeText(delivery.createdAt),
          duration: durationText(delivery.duration, language),
        })
      : tr("alert-delivered-time", { time: timeText(delivery.createdAt) }),
  ];
  return message(lines.join("\n"));
}

/** The dedupe key of a firing's alert: the rule, the firing's time and price (one alert per firing). */
export function deliveryKey(ruleId: string, createdAtMs: number, priceTrx: string): string {
  return `delivered:${ruleId.toLowerCase()}:${createdAtMs}:${priceTrx}`;
}
