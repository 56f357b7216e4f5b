import { InlineKeyboard } from "grammy";
import type { Kysely } from "kysely";
import type { Database } from "../db/schema";
import { alertEnabled, findUser, type AlertKind } from "../db/repos/users";
import { refFor } from "../db/repos/callback-refs";
import { pickLanguage, translatorFor, type Translate } from "../bot/i18n";
import { code, escapeHtml, truncate, txLink } from "../bot/html";
import { trxText, volumeText } from "../bot/format";
import type { OutboxPayload } from "./outbox";
import { readPauseReason } from "./pause-reason";

export type Translations = { t(locale: string, key: string, vars?: Record<string, string>): string };

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
  if (value === "filled" || value === "completed" || value === "delivered" || value === "success") return "filled";
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
}

/** The user to push to, if they are active and have this kind of alert switched on ("always": account problems no setting mutes). */
export async function recipientFor(db: Kysely<Database>, translations: Translations, telegramId: number, kind: AlertKind | "always"): Promise<Recipient | null> {
  const user = await findUser(db, telegramId);
  if (!user || user.active !== 1 || (kind !== "always" && !alertEnabled(user, kind))) return null;
  return { telegramId, chatId: user.chat_id, tr: translatorFor(translations, pickLanguage(user.language ?? "en")) };
}

/** Every part of an alert is bounded before escaping, so the visible text stays far below 4096 (never cut HTML). */
function message(text: string, keyboard?: InlineKeyboard): OutboxPayload {
  return { method: "sendMessage", params: { text, parse_mode: "HTML", link_preview_options: { is_disabled: true }, ...(keyboard ? { reply_markup: keyboard } : {}) } };
}

export function settlementAlert(recipient: Recipient, order: OrderFacts, state: FinalState): OutboxPayload {
  const { tr } = recipient;
  const short = order.id.slice(0, 8);
  if (state === "failed") {
    return message([tr("alert-order-failed", { id: short }), order.totalTrx ? tr("alert-refunded-amount", { value: trxText(order.totalTrx) }) : tr("alert-refunded")].join("\n"));
  }
  const lines = [tr("alert-order-filled", { id: short })];
  if (order.volume && order.resource) lines.push(tr("alert-delivered", { volume: volumeText(order.volume), resource: order.resource }));
  if (order.targetAddress) lines.push(tr("alert-target", {}, { value: code(order.targetAddress) }));
  if (order.totalTrx) lines.push(tr("alert-total", { value: trxText(order.totalTrx) }));
  if (order.txId) lines.push(tr("alert-tx", {}, { link: txLink(order.txId, tr("tx-sandbox")) }));
  lines.push("", tr("alert-filled-hint"));
  return message(lines.join("\n"));
}

export async function rulePausedAlert(db: Kysely<Database>, recipient: Recipient, ruleId: string | null, reason: string, now: number): Promise<OutboxPayload> {
  const { tr } = recipient;
  const keyboard = new InlineKeyboard().text(tr("button-topup"), "m:topup");
  if (ruleId) {
    keyboard.text(tr("button-resume"), `rl:r:${await refFor(db, recipient.telegramId, ruleId, now)}`);
    return message([tr("alert-rule-paused", { id: ruleId.slice(0, 8) }), ...pauseWhy(tr, reason)].join("\n"), keyboard);
  }
  // The rule could not be matched: say what the notification said and where to find the rule,
  // rather than an empty id and no way to act.
  return message([tr("alert-rule-paused-unknown"), ...pauseWhy(tr, reason), "", tr("alert-rules-hint")].join("\n"), keyboard);
}

/**
 * The reason, said once. A lack of balance is said in the user's language with the balance the
 * marketplace saw and the next delivery's cost when its text names them (a bare "not enough
 * balance" beside a balance that looks ample reads as a bug); any other reason in its own words.
 */
function pauseWhy(tr: Translate, reason: string): string[] {
  const read = readPauseReason(reason);
  if (!read.shortOfBalance) return [escapeHtml(truncate(reason, 1000))];
  const balance = read.balanceTrx === null ? null : trxText(read.balanceTrx);
  const cost = read.nextDeliveryTrx === null ? null : trxText(read.nextDeliveryTrx);
  const why =
    balance && cost ? tr("alert-pause-why-both", { balance, cost }) : cost ? tr("alert-pause-why-cost", { cost }) : balance ? tr("alert-pause-why-balance", { balance }) : tr("alert-pause-why");
  return read.resumesByItself ? [why, tr("rule-card-paused-system-auto")] : [why];
}

/** Told once per link when the marketplace refuses the stored key (background polling stops). */
export function keyBrokenAlert(recipient: Recipient, last4: string): OutboxPayload {
  return message(recipient.tr("alert-key-broken", { last4 }));
}

export function notificationAlert(recipient: Recipient, notification: { title: string; body: string; link: string | null }): OutboxPayload {
  const lines = [`<b>${escapeHtml(truncate(notification.title, 200))}</b>`, escapeHtml(truncate(notification.body, 3000))];
  if (notification.link && /^https?:\/\//.test(notification.link)) lines.push(`<a href="${escapeHtml(notification.link)}">${escapeHtml(truncate(notification.link, 200))}</a>`);
  return message(lines.join("\n"));
}
