import type { Language, Translate } from "./i18n";
import { code, escapeHtml, truncate } from "./html";
import { amountText, durationText, trxText } from "./format";
import { resourceAmount } from "./market-words";
import { readPauseReason } from "./pause-reason";
import { ruleKind } from "#src/marketplace/rule-words";

/*
 * Marketplace notifications in the reader's language. MARKETPLACE_API.md gives a notification a
 * type, a title and a body, no structured fields, and leaves the types open: a notification of a
 * kind the bot knows (an order filled or failed, a deposit, a rule paused, resumed or skipped) is
 * told in the reader's words from the facts its text carries (an order id, an amount of a
 * resource, a duration, an address, TRX amounts), each fact only when the text gives it. Any other
 * kind is shown in the marketplace's own words, said to be theirs, in a quote.
 */

/** Who reads a notice: their words and number format; a group's copy shows no money. */
export interface NoticeReader {
  tr: Translate;
  language: Language;
  group?: boolean;
}

export type NoticeKind = "order-filled" | "order-failed" | "deposit" | "rule-paused" | "rule-resumed" | "rule-skipped";

interface NoticeSource {
  type: string;
  title: string;
  body: string;
}

/** The kind of a notification, read from its type and title (the spec leaves the literals open); null for a kind the bot does not know. */
export function noticeKind(notification: Pick<NoticeSource, "type" | "title">): NoticeKind | null {
  const text = `${notification.type} ${notification.title}`.toLowerCase();
  if (/order/.test(text)) {
    if (/fail|refund|reject/.test(text)) return "order-failed";
    if (/fill|deliver|complete|settled/.test(text)) return "order-filled";
    return null;
  }
  if (/deposit|top.?up|credited/.test(text)) return "deposit";
  if (/automation|rule|refill|renew|smart/.test(text)) {
    if (/pause/.test(text)) return "rule-paused";
    if (/resume/.test(text)) return "rule-resumed";
    if (/skip/.test(text)) return "rule-skipped";
  }
  return null;
}

const UUID = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/i;
const ADDRESS = /\bT[1-9A-HJ-NP-Za-km-z]{33}\b/;
const RESOURCE_VOLUME = /\b(\d{1,3}(?:,\d{3})+|\d{1,19})\s*(energy|bandwidth)\b/i;
const DURATION = /\bfor\s+(\d{1,6}[mhd])\b/i;
const MONEY = /\b(\d{1,15}(?:\.\d{1,6})?)\s*(TRX|USDT(?:-TRC20)?)\b/gi;

/** The facts a notification's text carries, each null (or empty) when the text does not give it. */
export interface NoticeFacts {
  orderId: string | null;
  address: string | null;
  resource: string | null;
  volume: string | null;
  duration: string | null;
  /** Every amount of money the text names, in its order. */
  money: { amount: string; currency: string }[];
}

export function noticeFacts(notification: Pick<NoticeSource, "title" | "body">): NoticeFacts {
  const text = `${notification.title}\n${notification.body}`;
  const volume = RESOURCE_VOLUME.exec(text);
  return {
    orderId: UUID.exec(text)?.[0] ?? null,
    address: ADDRESS.exec(text)?.[0] ?? null,
    resource: volume ? volume[2]!.toLowerCase() : null,
    volume: volume ? volume[1]!.replace(/,/g, "") : null,
    duration: DURATION.exec(text)?.[1] ?? null,
    money: [...text.matchAll(MONEY)].map((match) => ({ amount: match[1]!, currency: match[2]!.toUpperCase() })),
  };
}

/** "1,090.705 TRX" or "5 USDT-TRC20", numbers as the reader writes them. */
function moneyText({ amount, currency }: { amount: string; currency: string }, language: Language): string {
  return `${amountText(amount, language)} ${currency}`;
}

/** A notification of a known kind as a title and lines (HTML) in the reader's words; null for any other kind. */
export function noticeText(
  reader: NoticeReader,
  notification: NoticeSource,
): { title: string; lines: string[] } | null {
  const kind = noticeKind(notification);
  if (!kind) return null;
  const facts = noticeFacts(notification);
  const { tr } = reader;
  return { title: tr(`notice-${kind}`), lines: LINES[kind](reader, facts, notification) };
}

const LINES: Record<NoticeKind, (reader: NoticeReader, facts: NoticeFacts, source: NoticeSource) => string[]> = {
  "order-filled": (reader, facts) => [
    ...orderLines(reader, facts, "notice-delivered"),
    ...(facts.address ? [reader.tr("alert-target", {}, { value: code(facts.address) })] : []),
  ],
  "order-failed": (reader, facts) => {
    const lines = orderLines(reader, facts, "notice-ordered");
    const refund = facts.money.find((money) => money.currency === "TRX");
    if (!reader.group)
      lines.push(
        refund
          ? reader.tr("alert-refunded-amount", { value: moneyText(refund, reader.language) })
          : reader.tr("alert-refunded"),
      );
    return lines;
  },
  deposit: (reader, facts) =>
    reader.group
      ? [reader.tr("alert-group-details")]
      : facts.money[0]
        ? [reader.tr("notice-deposit-amount", { amount: moneyText(facts.money[0], reader.language) })]
        : [],
  "rule-paused": (reader, facts, source) => [
    ...ruleLines(reader, facts, source),
    ...pauseWhy(reader, `${source.title}: ${source.body}`),
  ],
  "rule-resumed": (reader, facts, source) => [
    ...ruleLines(reader, facts, source),
    reader.tr("notice-rule-resumed-why"),
  ],
  "rule-skipped": (reader, facts, source) => {
    const cost = facts.money.find((money) => money.currency === "TRX");
    return [
      ...ruleLines(reader, facts, source),
      reader.tr("notice-rule-skipped-why"),
      ...(cost && !reader.group ? [reader.tr("notice-cost", { value: moneyText(cost, reader.language) })] : []),
    ];
  },
};

function orderLines(reader: NoticeReader, facts: NoticeFacts, what: "notice-delivered" | "notice-ordered"): string[] {
  const { tr, language } = reader;
  const lines = facts.orderId ? [tr("order-id-line", {}, { id: code(facts.orderId) })] : [];
  if (facts.volume && facts.resource) {
    const amount = resourceAmount(tr, facts.resource, facts.volume, language);
    lines.push(
      facts.duration
        ? tr(`${what}-for`, { duration: durationText(facts.duration, language) }, { amount })
        : tr(what, {}, { amount }),
    );
  }
  return lines;
}

function ruleLines(reader: NoticeReader, facts: NoticeFacts, source: NoticeSource): string[] {
  if (!facts.address) return [];
  const kind = ruleKind(`${source.title} ${source.body}`);
  const address = code(facts.address);
  return [
    kind
      ? reader.tr("notice-rule", {}, { kind: reader.tr(`rule-kind-${kind}`), address })
      : reader.tr("notice-rule-unnamed", {}, { address }),
  ];
}

/**
 * The marketplace's own words, said to be theirs: a line that says so, then the text in a quote
 * (bounded before escaping, so the HTML is never cut).
 */
export function quotedWords(tr: Translate, text: string, max = 1000): string[] {
  return [tr("notice-quoted"), `<blockquote>${escapeHtml(truncate(text.trim(), max))}</blockquote>`];
}

/**
 * Why a rule was paused, said once. A lack of balance is said in the reader's language with the
 * balance the marketplace saw and the next delivery's cost when its text names them (a bare "not
 * enough balance" beside a balance that looks ample reads as a bug); any other reason in the
 * marketplace's own words, quoted. A group's copy says only that the balance ran short: neither
 * figure, nor the marketplace's own text (which may name them), reaches the group.
 */
export function pauseWhy({ tr, language, group }: NoticeReader, reason: string): string[] {
  const read = readPauseReason(reason);
  if (group) return [tr(read.shortOfBalance ? "alert-pause-why" : "alert-group-details")];
  if (!read.shortOfBalance) return quotedWords(tr, reason);
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
