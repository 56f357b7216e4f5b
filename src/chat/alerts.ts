import { InlineKeyboard } from "grammy";
import { pickLanguage, translatorFor, type Language, type LocaleBundles, type Translate } from "./i18n";
import { code, escapeHtml, truncate, txLink } from "./html";
import { durationText, timeText, trxText, volumeText } from "./format";
import {
  AUTO_BUY_ACTION,
  BUY_AGAIN,
  CARD_CANCEL,
  CARD_CONFIRM,
  MAIN_MENU,
  RULE_RESUME,
  WATCH_AUTO_BUY,
  WATCH_BUY,
} from "./callback-data";
import { sunToTrx } from "#src/marketplace/money";
import type { OutboxPayload } from "#src/db/repos/outbox";
import { readPauseReason } from "./pause-reason";

export type Translations = Pick<LocaleBundles, "t">;

/** The parts of an order an alert shows; every field but the id may be missing from a webhook. */
export interface OrderFacts {
  id: string;
  resource?: string;
  volume?: string;
  targetAddress?: string;
  totalTrx?: string;
  txId?: string | null;
}

export type FinalState = "filled" | "failed";

/** Classifies an order status: "filled", "failed", or null while it is still on its way. */
export function finalState(status: string | undefined): FinalState | null {
  const value = (status ?? "").toLowerCase();
  // "Filled" is the spec's word; the others are how other readings of a finished order are written.
  if (
    [
      "filled",
      "completed",
      "complete",
      "delivered",
      "success",
      "succeeded",
      "successful",
      "fulfilled",
      "done",
    ].includes(value)
  )
    return "filled";
  if (/fail|cancel|refund|error|reject|expire/.test(value)) return "failed";
  return null;
}

/** The dedupe key shared by every path that can see one settlement (webhook, poller, follower). */
export function settlementKey(orderId: string, state: FinalState): string {
  return `order:${orderId.toLowerCase()}:${state}`;
}

export interface Recipient {
  telegramId: number;
  chatId: number;
  tr: Translate;
  /** The user's language: the alert's words and its numbers (ru "1 090,705 TRX"). */
  language: Language;
  /** A group's copy (team alerts): the owner's balance is theirs, so no balance figure is shown. */
  group?: boolean;
}

/** The recipient fields that follow the user's language: chosen in /settings, else picked from their Telegram app, else English. */
export function recipientLanguage(
  translations: Translations,
  language: string | null,
): Pick<Recipient, "tr" | "language"> {
  const picked = pickLanguage(language ?? "en");
  return { tr: translatorFor(translations, picked), language: picked };
}

/**
 * A confirmation card's buttons: Confirm (Top up instead while the balance is short) and Cancel.
 * The bot puts them on the cards it sends; push gives them back to a card a crash left on
 * "processing…".
 */
export function cardButtons(tr: Translate, cardId: string, canConfirm = true): InlineKeyboard {
  const keyboard = new InlineKeyboard();
  if (canConfirm) keyboard.text(tr("button-confirm"), CARD_CONFIRM.data(cardId)).success();
  else keyboard.text(tr("button-topup"), MAIN_MENU.data("topup"));
  return keyboard.text(tr("button-cancel"), CARD_CANCEL.data(cardId)).danger();
}

/** Every part of an alert is bounded before escaping, so the visible text stays far below 4096 (never cut HTML). */
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

/**
 * Whether a button spends or moves money when pressed (Confirm, Top up, Buy now, Buy again, an
 * auto-buy's Resume, which lets it buy again): such
 * buttons are never shown in a group, only in the owner's private chat. Read from the button's
 * callback data through the registry's parsers, so every alert's spending buttons are known here.
 */
export function isSpendingButton(callbackData: string): boolean {
  return (
    MAIN_MENU.parse(callbackData) === "topup" ||
    CARD_CONFIRM.parse(callbackData) !== null ||
    WATCH_BUY.parse(callbackData) !== null ||
    WATCH_AUTO_BUY.parse(callbackData) !== null ||
    BUY_AGAIN.parse(callbackData) !== null ||
    AUTO_BUY_ACTION.parse(callbackData)?.action === "resume"
  );
}

/**
 * The filled or failed alert. `buyAgainRef` (db/repos/buy-again-refs) puts Buy again under it: a
 * fresh card for the same order at today's price; null when no key was linked to name.
 */
export function settlementAlert(
  recipient: Recipient,
  order: OrderFacts,
  state: FinalState,
  buyAgainRef: string | null = null,
): OutboxPayload {
  const { tr, language } = recipient;
  const short = order.id.slice(0, 8);
  const keyboard = buyAgainRef
    ? new InlineKeyboard().text(tr("button-buy-again"), BUY_AGAIN.data(buyAgainRef)).success()
    : undefined;
  if (state === "failed") {
    return message(
      [
        tr("alert-order-failed", { id: short }),
        order.totalTrx && !recipient.group
          ? tr("alert-refunded-amount", { value: trxText(order.totalTrx, language) })
          : tr("alert-refunded"),
      ].join("\n"),
      keyboard,
    );
  }
  const lines = [tr("alert-order-filled", { id: short })];
  if (order.volume && order.resource)
    lines.push(tr("alert-delivered", { volume: volumeText(order.volume, language), resource: order.resource }));
  if (order.targetAddress) lines.push(tr("alert-target", {}, { value: code(order.targetAddress) }));
  // What the owner paid is theirs: a group's copy says what was delivered, not what it cost.
  if (order.totalTrx && !recipient.group) lines.push(tr("alert-total", { value: trxText(order.totalTrx, language) }));
  if (order.txId) lines.push(tr("alert-tx", {}, { link: txLink(order.txId, tr("tx-sandbox")) }));
  lines.push("", tr("alert-filled-hint"));
  return message(lines.join("\n"), keyboard);
}

/** A rule paused by the system; `rule` carries its id and the callback reference its Resume button names (null: the rule could not be matched). */
export function rulePausedAlert(
  recipient: Recipient,
  rule: { id: string; ref: string } | null,
  reason: string,
): OutboxPayload {
  const { tr } = recipient;
  const keyboard = new InlineKeyboard().text(tr("button-topup"), MAIN_MENU.data("topup"));
  if (rule) {
    keyboard.text(tr("button-resume"), RULE_RESUME.data(rule.ref));
    return message(
      [tr("alert-rule-paused", { id: rule.id.slice(0, 8) }), ...pauseWhy(recipient, reason)].join("\n"),
      keyboard,
    );
  }
  // The rule could not be matched: say what the notification said and where to find the rule,
  // rather than an empty id and no way to act.
  return message(
    [tr("alert-rule-paused-unknown"), ...pauseWhy(recipient, reason), "", tr("alert-rules-hint")].join("\n"),
    keyboard,
  );
}

/**
 * The reason, said once. A lack of balance is said in the user's language with the balance the
 * marketplace saw and the next delivery's cost when its text names them (a bare "not enough
 * balance" beside a balance that looks ample reads as a bug); any other reason in its own words.
 * A group's copy says only that the balance ran short: neither figure, nor the marketplace's own
 * text (which may name them), reaches the group.
 */
function pauseWhy({ tr, language, group }: Recipient, reason: string): string[] {
  const read = readPauseReason(reason);
  if (group) return [tr(read.shortOfBalance ? "alert-pause-why" : "alert-group-details")];
  if (!read.shortOfBalance) return [escapeHtml(truncate(reason, 1000))];
  const balance = read.balanceTrx === null ? null : trxText(read.balanceTrx, language);
  const cost = read.nextDeliveryTrx === null ? null : trxText(read.nextDeliveryTrx, language);
  const why =
    balance && cost
      ? tr("alert-pause-why-both", { balance, cost })
      : cost
        ? tr("alert-pause-why-cost", { cost })
        : balance
          ? tr("alert-pause-why-balance", { balance })
          : tr("alert-pause-why");
  return read.resumesByItself ? [why, tr("rule-card-paused-system-auto")] : [why];
}

/** Told once per link when the marketplace refuses the stored key (background polling stops). */
export function keyBrokenAlert(recipient: Recipient, last4: string): OutboxPayload {
  return message(recipient.tr("alert-key-broken", { last4 }));
}

/** Words of a notification that may carry the owner's money: a group's copy then shows its title alone. */
const MONEY_WORDS = /balance|deposit|credit|refund|top.?up|\bTRX\b|USDT|\bsun\b/i;

export function notificationAlert(
  recipient: Recipient,
  notification: { title: string; body: string; link: string | null },
): OutboxPayload {
  const title = `<b>${escapeHtml(truncate(notification.title, 200))}</b>`;
  if (recipient.group && MONEY_WORDS.test(`${notification.title} ${notification.body}`))
    return message([title, recipient.tr("alert-group-details")].join("\n"));
  const lines = [title, escapeHtml(truncate(notification.body, 3000))];
  if (notification.link && /^https?:\/\//.test(notification.link))
    lines.push(`<a href="${escapeHtml(notification.link)}">${escapeHtml(truncate(notification.link, 200))}</a>`);
  return message(lines.join("\n"));
}

/** What a price alert shows: the watch's target and threshold, the price that reached it, and when. */
export interface PriceReached {
  watchId: string;
  resource: string;
  volume: string;
  duration: string;
  thresholdSun: bigint;
  priceTrx: string;
  /** When the price was seen (ms). */
  at: number;
}

/**
 * The "price watch reached" alert. Buy now carries only the watch id: it opens /buy with a fresh
 * preview, so the price shown here is never the price charged. Auto-buy opens /autobuy with the
 * watch's rent and threshold, ending at its own confirmation card.
 */
export function priceReachedAlert(recipient: Recipient, reached: PriceReached): OutboxPayload {
  const { tr, language } = recipient;
  const resource =
    reached.resource === "energy" || reached.resource === "bandwidth"
      ? tr(`resource-${reached.resource}`)
      : reached.resource;
  const lines = [
    tr("alert-watch-reached", { id: reached.watchId.slice(0, 8) }),
    tr("alert-watch-target", {
      volume: volumeText(reached.volume, language),
      resource,
      duration: durationText(reached.duration, language),
    }),
    tr("alert-watch-price", {
      price: trxText(reached.priceTrx, language),
      threshold: trxText(sunToTrx(reached.thresholdSun), language),
    }),
    tr("alert-watch-at", { time: timeText(new Date(reached.at).toISOString()) }),
    "",
    tr("alert-watch-hint"),
  ];
  return message(
    lines.join("\n"),
    new InlineKeyboard()
      .text(tr("button-buy-now"), WATCH_BUY.data(reached.watchId))
      .success()
      .text(tr("button-auto-buy"), WATCH_AUTO_BUY.data(reached.watchId)),
  );
}
