import { InlineKeyboard } from "grammy";
import type { OutboxPayload } from "#src/db/repos/outbox";
import { code } from "./html";
import { durationText, timeText, volumeText } from "./format";
import { RENEW } from "./callback-data";
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
