import { InlineKeyboard } from "grammy";
import { pickLanguage, translatorFor, type Language, type LocaleBundles, type Translate } from "./i18n";
import { code, escapeHtml, truncate, txLink } from "./html";
import { durationText, timeText, trxText } from "./format";
import { resourceAmount } from "./market-words";
import {
  AUTO_BUY_ACTION,
  BUY_AGAIN,
  CARD_CANCEL,
  CARD_CONFIRM,
  CARD_SURE,
  MAIN_MENU,
  RENEW,
  RULE_RESUME,
  WATCH_AUTO_BUY,
  WATCH_BUY,
} from "./callback-data";
import { sunToTrx } from "#src/marketplace/money";
import type { OutboxPayload } from "#src/db/repos/outbox";
import { noticeText, pauseWhy, quotedWords } from "./notices";

export type Translations = Pick<LocaleBundles, "t">;

/** The parts of an order an alert shows; every field but the id may be missing from a webhook. */
export interface OrderFacts {
  id: string;
  resource?: string;
  volume?: string;
  targetAddress?: string;
  totalTrx?: string;
  txId?: string | null;
  /** The rental's duration and the order's creation (ISO): its end, for the "ends" alert. */
  duration?: string;
  createdAt?: string;
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
 * Whether a card offers Confirm: true; false while the balance is short (Top up instead);
 * "capped" when the daily cap on buying through the bot is reached (nothing to tap but Cancel).
 */
export type CanConfirm = boolean | "capped";

/**
 * A confirmation card's buttons: Confirm (Top up instead while the balance is short, nothing when
 * the daily cap is reached) and Cancel. The bot puts them on the cards it sends; push gives them
 * back to a card a crash left on "processing…".
 */
export function cardButtons(tr: Translate, cardId: string, canConfirm: CanConfirm = true): InlineKeyboard {
  const keyboard = new InlineKeyboard();
  if (canConfirm === true) keyboard.text(tr("button-confirm"), CARD_CONFIRM.data(cardId)).success();
  else if (canConfirm === false) keyboard.text(tr("button-topup"), MAIN_MENU.data("topup"));
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
 * Whether a button spends or moves money when pressed (Confirm, Yes spend, Top up, Buy now, Buy
 * again, Renew, an auto-buy's Resume, which lets it buy again): such buttons are never shown in a
 * group, only in the owner's private chat. Read from the button's callback data through the
 * registry's parsers, so every alert's spending buttons are known here.
 */
export function isSpendingButton(callbackData: string): boolean {
  return (
    MAIN_MENU.parse(callbackData) === "topup" ||
    CARD_CONFIRM.parse(callbackData) !== null ||
    CARD_SURE.parse(callbackData) !== null ||
    WATCH_BUY.parse(callbackData) !== null ||
    WATCH_AUTO_BUY.parse(callbackData) !== null ||
    BUY_AGAIN.parse(callbackData) !== null ||
    RENEW.parse(callbackData) !== null ||
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
    lines.push(tr("alert-delivered", {}, { amount: resourceAmount(tr, order.resource, order.volume, language) }));
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

/** Told once per link when the marketplace refuses the stored key (background polling stops). */
export function keyBrokenAlert(recipient: Recipient, last4: string): OutboxPayload {
  return message(recipient.tr("alert-key-broken", { last4 }));
}

/** Words of a notification that may carry the owner's money: a group's copy then shows its title alone. */
const MONEY_WORDS = /balance|deposit|credit|refund|top.?up|\bTRX\b|USDT|\bsun\b/i;

/**
 * A notification pushed as it came: a kind the bot knows in the recipient's words (noticeText),
 * any other in the marketplace's own words, said to be theirs and quoted.
 */
export function notificationAlert(
  recipient: Recipient,
  notification: { type: string; title: string; body: string; link: string | null },
): OutboxPayload {
  const known = noticeText(recipient, notification);
  const lines: string[] = known ? [`<b>${known.title}</b>`, ...known.lines] : [];
  if (!known && recipient.group && MONEY_WORDS.test(`${notification.title} ${notification.body}`))
    return message(
      [...quotedWords(recipient.tr, notification.title, 200), recipient.tr("alert-group-details")].join("\n"),
    );
  if (!known) lines.push(...quotedWords(recipient.tr, `${notification.title}\n${notification.body}`, 3000));
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
  /** The public quote (no commission). */
  priceTrx: string;
  /** The total of the owner's own order preview, which reached the threshold; null when the public price was compared. */
  ownTotalTrx: string | null;
  /** The owner has a key linked (a public comparison then only lacked an address to price for). */
  keyLinked: boolean;
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
  const lines = [
    tr("alert-watch-reached", { id: reached.watchId.slice(0, 8) }),
    tr(
      "alert-watch-target",
      { duration: durationText(reached.duration, language) },
      { amount: resourceAmount(tr, reached.resource, reached.volume, language) },
    ),
    ...comparedPrice(recipient, reached),
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

/**
 * What the watch compared: the owner's own order total (what Buy now's card shows), or the public
 * price, said to be one (without the commission). A group's copy shows the public price: what the
 * owner's own orders cost stays in their private chat.
 */
function comparedPrice({ tr, language, group }: Recipient, reached: PriceReached): string[] {
  const threshold = trxText(sunToTrx(reached.thresholdSun), language);
  if (reached.ownTotalTrx !== null && !group)
    return [tr("alert-watch-total", { total: trxText(reached.ownTotalTrx, language), threshold })];
  const price = tr("alert-watch-price", { price: trxText(reached.priceTrx, language), threshold });
  if (group || reached.keyLinked) return [price, tr("alert-watch-public")];
  return [price, tr("alert-watch-public"), tr("alert-watch-public-connect")];
}
