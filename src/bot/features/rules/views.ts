import { refFor } from "#src/db/repos/callback-refs";
import type { AutomationRule, Firing } from "#src/marketplace/index";
import type { BotContext } from "#src/bot/context";
import { ruleKind, ruleStatus, type RuleStatus } from "#src/marketplace/rule-words";
import { durationText, timeText, trxText, volumeText } from "#src/chat/format";
import {
  code,
  escapeHtml,
  MARKETPLACE_WORD_MAX,
  marketWord,
  MESSAGE_LIMIT,
  shortAddress,
  truncate,
} from "#src/chat/html";

/** Rules per list page. */
export const RULES_PAGE_SIZE = 8;

/** The rule's kind in words, as plain text: an unknown type is the marketplace's own string (cut short), so escape it before HTML. */
export function kindText(ctx: BotContext, type: string): string {
  const kind = ruleKind(type);
  return kind ? ctx.tr(`rule-kind-${kind}`) : marketWord(type);
}

function statusText(ctx: BotContext, status: string): string {
  const known = ruleStatus(status);
  return known === "other" ? marketWord(status) : ctx.tr(`rule-status-${known}`);
}

const STATUS_ICON: Record<RuleStatus, string> = { active: "🟢", paused: "⏸", cancelled: "✖️", other: "•" };

function yesNo(ctx: BotContext, value: boolean): string {
  return ctx.tr(value ? "button-yes" : "button-no");
}

/** The rule card: everything the marketplace says about the rule, HTML. */
export function ruleCardText(ctx: BotContext, rule: AutomationRule): string {
  const kind = ruleKind(rule.type);
  const status = ruleStatus(rule.status);
  const lines = [
    ctx.tr("rule-card-title", { kind: kindText(ctx, rule.type) }, { id: code(rule.id.slice(0, 8)) }),
    ctx.tr("rule-card-target", {}, { value: code(marketWord(rule.targetAddress)) }),
  ];
  if (rule.minimal !== null && kind !== "smart" && kind !== "renewal")
    lines.push(ctx.tr("rule-card-minimal", { value: volumeText(rule.minimal, ctx.lang) }));
  if (kind === "smart") lines.push(ctx.tr("rule-card-volume-smart"));
  else if (rule.volume !== null) lines.push(ctx.tr("rule-card-volume", { value: volumeText(rule.volume, ctx.lang) }));
  if (kind === "renewal")
    lines.push(ctx.tr("rule-card-duration", { value: durationText(rule.duration ?? "1d", ctx.lang) }));
  else if (rule.duration !== null && kind !== "smart")
    lines.push(ctx.tr("rule-card-duration", { value: durationText(rule.duration, ctx.lang) }));
  lines.push(ctx.tr("rule-card-status", { value: `${STATUS_ICON[status]} ${statusText(ctx, rule.status)}` }));
  if (status === "paused") {
    const reason = (rule.pauseReason ?? "").toLowerCase();
    if (reason === "user") lines.push(ctx.tr("rule-card-paused-user"));
    else if (reason === "system")
      lines.push(
        ctx.tr("rule-card-paused-system"),
        ctx.tr(rule.autoResume ? "rule-card-paused-system-auto" : "rule-card-paused-system-manual"),
      );
    else if (rule.pauseReason)
      lines.push(ctx.tr("rule-card-paused-other", { value: truncate(rule.pauseReason, 2 * MARKETPLACE_WORD_MAX) }));
  }
  if (status !== "cancelled") lines.push(ctx.tr("rule-card-auto-resume", { value: yesNo(ctx, rule.autoResume) }));
  lines.push(
    ctx.tr("rule-card-spent", { value: trxText(rule.spentTrx, ctx.lang) }),
    ctx.tr("rule-card-created", { value: timeText(rule.createdAt) }),
    ctx.tr("rule-card-updated", { value: timeText(rule.updatedAt) }),
  );
  if (status === "cancelled") lines.push("", ctx.tr("rule-card-cancelled"));
  return lines.join("\n");
}

export async function ruleRef(ctx: BotContext, ruleId: string): Promise<string> {
  return refFor(ctx.deps.db, ctx.account.telegram_id, ruleId, ctx.deps.now());
}

function newestFirst(rules: AutomationRule[]): AutomationRule[] {
  return [...rules].sort((a, b) => Date.parse(b.createdAt) - Date.parse(a.createdAt) || 0);
}

/** Longest rule button label: room for the icon, kind, short target and status in every locale. */
const LABEL_MAX = 60;

/** A rule on a list page: its button label (plain text) and its short reference. */
export interface RuleEntry {
  label: string;
  ref: string;
}

/** One page of the rule list (newest first): the text (`note` above the title) and a button entry per rule. */
export async function rulesPage(
  ctx: BotContext,
  rules: AutomationRule[],
  page: number,
  options: { note?: string } = {},
): Promise<{ text: string; page: number; pages: number; entries: RuleEntry[] }> {
  const sorted = newestFirst(rules);
  const pages = Math.max(1, Math.ceil(sorted.length / RULES_PAGE_SIZE));
  const number = Math.min(Math.max(1, page), pages);
  const lines = options.note ? [options.note, ""] : [];
  lines.push(ctx.tr("rules-title", { page: String(number), pages: String(pages), total: String(sorted.length) }));
  if (sorted.length === 0) lines.push("", ctx.tr("rules-empty"));
  else lines.push(ctx.tr("rules-hint"));
  const shown = sorted.slice((number - 1) * RULES_PAGE_SIZE, number * RULES_PAGE_SIZE);
  // Button labels are plain text: undo the HTML escaping of the translation.
  const labels = shown.map((rule) => {
    const status = ruleStatus(rule.status);
    return unescape(
      `${STATUS_ICON[status]} ${ctx.tr("rules-line", { kind: kindText(ctx, rule.type), target: shortAddress(rule.targetAddress), status: statusText(ctx, rule.status) })}`,
    );
  });
  const entries: RuleEntry[] = [];
  for (const [index, rule] of shown.entries()) {
    // Two rules of one kind on one address in one state would read alike: each then ends with its
    // id as its card's title shows it. Truncation never splits an emoji's surrogate pair, nor cuts the id.
    const twin = labels.some((other, at) => at !== index && other === labels[index]);
    const id = twin ? ` · ${rule.id.slice(0, 8)}` : "";
    entries.push({ label: truncate(labels[index]!, LABEL_MAX - id.length) + id, ref: await ruleRef(ctx, rule.id) });
  }
  return { text: lines.join("\n"), page: number, pages, entries };
}

function unescape(text: string): string {
  return text
    .replace(/&lt;/g, "<")
    .replace(/&gt;/g, ">")
    .replace(/&quot;/g, '"')
    .replace(/&amp;/g, "&");
}

/** The rule's firings, newest first, one compact line each; cut to fit one message. */
export function deliveriesText(ctx: BotContext, rule: AutomationRule, firings: Firing[]): string {
  const sorted = [...firings].sort((a, b) => Date.parse(b.createdAt) - Date.parse(a.createdAt) || 0);
  const head = [
    ctx.tr("deliveries-title", { count: String(sorted.length) }, { id: code(rule.id.slice(0, 8)) }),
    `${escapeHtml(truncate(kindText(ctx, rule.type), 100))} · ${code(marketWord(rule.targetAddress))}`,
    "",
  ];
  if (sorted.length === 0) return [...head, ctx.tr("deliveries-empty")].join("\n");
  const budget = MESSAGE_LIMIT - 200;
  let length = head.join("\n").length;
  const lines: string[] = [];
  for (const [index, firing] of sorted.entries()) {
    const line = ctx.tr("deliveries-line", {
      time: timeText(firing.createdAt),
      volume: volumeText(firing.volume, ctx.lang),
      duration:
        firing.duration === null || firing.duration === undefined ? "—" : durationText(firing.duration, ctx.lang),
      trx: trxText(firing.priceTrx, ctx.lang),
    });
    if (length + line.length + 1 > budget) {
      lines.push(ctx.tr("deliveries-more", { count: String(sorted.length - index) }));
      break;
    }
    lines.push(line);
    length += line.length + 1;
  }
  return [...head, ...lines].join("\n");
}
