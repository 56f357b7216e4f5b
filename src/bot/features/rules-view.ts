import { InlineKeyboard } from "grammy";
import { refFor } from "../../db/repos/callback-refs";
import type { AutomationRule, Firing } from "../../marketplace";
import type { BotContext } from "../context";
import { timeText, trxText, volumeText } from "../format";
import { code, escapeHtml, MESSAGE_LIMIT, shortAddress, truncate } from "../html";

/** Rules per list page. */
export const RULES_PAGE_SIZE = 8;

export type RuleKind = "refill" | "renewal" | "smart";
export type RuleStatus = "active" | "paused" | "cancelled" | "other";

/** The spec leaves the literals open (the sandbox says auto-refill, auto-renewal, smart); read them loosely. */
export function ruleKind(type: string): RuleKind | null {
  const text = type.toLowerCase();
  if (text.includes("refill")) return "refill";
  if (text.includes("renew")) return "renewal";
  if (text.includes("smart")) return "smart";
  return null;
}

export function ruleStatus(status: string): RuleStatus {
  const text = status.toLowerCase();
  if (text === "active") return "active";
  if (text === "paused") return "paused";
  if (text === "cancelled" || text === "canceled") return "cancelled";
  return "other";
}

/** The rule's kind in words, as plain text: an unknown type is the marketplace's own string, so escape it before HTML. */
export function kindText(ctx: BotContext, type: string): string {
  const kind = ruleKind(type);
  return kind ? ctx.tr(`rule-kind-${kind}`) : type;
}

function statusText(ctx: BotContext, status: string): string {
  const known = ruleStatus(status);
  return known === "other" ? status : ctx.tr(`rule-status-${known}`);
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
    ctx.tr("rule-card-target", {}, { value: code(rule.targetAddress) }),
  ];
  if (rule.minimal !== null && kind !== "smart" && kind !== "renewal") lines.push(ctx.tr("rule-card-minimal", { value: volumeText(rule.minimal) }));
  if (kind === "smart") lines.push(ctx.tr("rule-card-volume-smart"));
  else if (rule.volume !== null) lines.push(ctx.tr("rule-card-volume", { value: volumeText(rule.volume) }));
  if (kind === "renewal") lines.push(ctx.tr("rule-card-duration", { value: rule.duration ?? "1d" }));
  else if (rule.duration !== null && kind !== "smart") lines.push(ctx.tr("rule-card-duration", { value: rule.duration }));
  lines.push(ctx.tr("rule-card-status", { value: `${STATUS_ICON[status]} ${statusText(ctx, rule.status)}` }));
  if (status === "paused") {
    const reason = (rule.pauseReason ?? "").toLowerCase();
    if (reason === "user") lines.push(ctx.tr("rule-card-paused-user"));
    else if (reason === "system") lines.push(ctx.tr("rule-card-paused-system"), ctx.tr(rule.autoResume ? "rule-card-paused-system-auto" : "rule-card-paused-system-manual"));
    else if (rule.pauseReason) lines.push(ctx.tr("rule-card-paused-other", { value: rule.pauseReason }));
  }
  if (status !== "cancelled") lines.push(ctx.tr("rule-card-auto-resume", { value: yesNo(ctx, rule.autoResume) }));
  lines.push(
    ctx.tr("rule-card-spent", { value: trxText(rule.spentTrx) }),
    ctx.tr("rule-card-created", { value: timeText(rule.createdAt) }),
    ctx.tr("rule-card-updated", { value: timeText(rule.updatedAt) }),
  );
  if (status === "cancelled") lines.push("", ctx.tr("rule-card-cancelled"));
  return lines.join("\n");
}

/** Longest rule button label: room for the icon, kind, short target and status in every locale. */
const LABEL_MAX = 60;

/**
 * The list page a rule card was opened from travels in its callback data (`:3`), so Back, and the
 * list shown when the rule has gone, return there. Cards opened elsewhere (an alert, a new rule) omit it.
 */
function onPage(data: string, page: number | undefined): string {
  return page === undefined ? data : `${data}:${page}`;
}

/** Pause when active, Resume when paused, Cancel rule unless cancelled; Deliveries and Back always. */
export function ruleCardKeyboard(ctx: BotContext, rule: AutomationRule, ref: string, options: { topUp?: boolean; page?: number } = {}): InlineKeyboard {
  const status = ruleStatus(rule.status);
  const { page } = options;
  const keyboard = new InlineKeyboard();
  if (options.topUp) keyboard.text(ctx.tr("button-topup"), "m:topup").row();
  if (status === "active") keyboard.text(ctx.tr("button-pause"), onPage(`rl:p:${ref}`, page));
  if (status === "paused") keyboard.text(ctx.tr("button-resume"), onPage(`rl:r:${ref}`, page));
  if (status !== "cancelled") keyboard.text(ctx.tr("button-cancel-rule"), onPage(`rl:c:${ref}`, page)).row();
  keyboard.text(ctx.tr("button-deliveries"), onPage(`rl:d:${ref}`, page)).text(ctx.tr("button-back"), `rl:l:${page ?? 1}`);
  return keyboard;
}

/** The two buttons under "Cancel this rule?": Confirm cancels, Back returns to the card. */
export function cancelAskKeyboard(ctx: BotContext, ref: string, page: number | undefined): InlineKeyboard {
  return new InlineKeyboard().text(ctx.tr("button-confirm"), onPage(`rl:C:${ref}`, page)).text(ctx.tr("button-back"), onPage(`rl:o:${ref}`, page));
}

/** Back from the deliveries list to the rule card. */
export function deliveriesKeyboard(ctx: BotContext, ref: string, page: number | undefined): InlineKeyboard {
  return new InlineKeyboard().text(ctx.tr("button-back"), onPage(`rl:o:${ref}`, page));
}

export async function ruleRef(ctx: BotContext, ruleId: string): Promise<string> {
  return refFor(ctx.deps.db, ctx.account.telegram_id, ruleId, ctx.deps.now());
}

export async function ruleCard(
  ctx: BotContext,
  rule: AutomationRule,
  options: { topUp?: boolean; note?: string; page?: number } = {},
): Promise<{ text: string; keyboard: InlineKeyboard }> {
  const ref = await ruleRef(ctx, rule.id);
  const text = ruleCardText(ctx, rule) + (options.note ? `\n\n${options.note}` : "");
  return { text, keyboard: ruleCardKeyboard(ctx, rule, ref, options) };
}

function newestFirst(rules: AutomationRule[]): AutomationRule[] {
  return [...rules].sort((a, b) => Date.parse(b.createdAt) - Date.parse(a.createdAt) || 0);
}

/** One page of the rule list: a button per rule (kind, short target, status), Prev/Next; `note` goes above the title. */
export async function rulesPage(ctx: BotContext, rules: AutomationRule[], page: number, options: { note?: string } = {}): Promise<{ text: string; keyboard: InlineKeyboard }> {
  const sorted = newestFirst(rules);
  const pages = Math.max(1, Math.ceil(sorted.length / RULES_PAGE_SIZE));
  const number = Math.min(Math.max(1, page), pages);
  const keyboard = new InlineKeyboard();
  const lines = options.note ? [options.note, ""] : [];
  lines.push(ctx.tr("rules-title", { page: String(number), pages: String(pages), total: String(sorted.length) }));
  if (sorted.length === 0) lines.push("", ctx.tr("rules-empty"));
  else lines.push(ctx.tr("rules-hint"));
  for (const rule of sorted.slice((number - 1) * RULES_PAGE_SIZE, number * RULES_PAGE_SIZE)) {
    const status = ruleStatus(rule.status);
    const label = `${STATUS_ICON[status]} ${ctx.tr("rules-line", { kind: kindText(ctx, rule.type), target: shortAddress(rule.targetAddress), status: statusText(ctx, rule.status) })}`;
    // Button labels are plain text: undo the HTML escaping of the translation; truncate never splits an emoji's surrogate pair.
    keyboard.text(truncate(unescape(label), LABEL_MAX), `rl:o:${await ruleRef(ctx, rule.id)}:${number}`).row();
  }
  if (number > 1) keyboard.text(ctx.tr("button-prev"), `rl:l:${number - 1}`);
  if (number < pages) keyboard.text(ctx.tr("button-next"), `rl:l:${number + 1}`);
  return { text: lines.join("\n"), keyboard };
}

function unescape(text: string): string {
  return text.replace(/&lt;/g, "<").replace(/&gt;/g, ">").replace(/&quot;/g, '"').replace(/&amp;/g, "&");
}

/** The rule's firings, newest first, one compact line each; cut to fit one message. */
export function deliveriesText(ctx: BotContext, rule: AutomationRule, firings: Firing[]): string {
  const sorted = [...firings].sort((a, b) => Date.parse(b.createdAt) - Date.parse(a.createdAt) || 0);
  const head = [ctx.tr("deliveries-title", { count: String(sorted.length) }, { id: code(rule.id.slice(0, 8)) }), `${escapeHtml(truncate(kindText(ctx, rule.type), 100))} · ${code(rule.targetAddress)}`, ""];
  if (sorted.length === 0) return [...head, ctx.tr("deliveries-empty")].join("\n");
  const budget = MESSAGE_LIMIT - 200;
  let length = head.join("\n").length;
  const lines: string[] = [];
  for (const [index, firing] of sorted.entries()) {
    const line = ctx.tr("deliveries-line", { time: timeText(firing.createdAt), volume: volumeText(firing.volume), duration: firing.duration ?? "—", trx: trxText(firing.priceTrx) });
    if (length + line.length + 1 > budget) {
      lines.push(ctx.tr("deliveries-more", { count: String(sorted.length - index) }));
      break;
    }
    lines.push(line);
    length += line.length + 1;
  }
  return [...head, ...lines].join("\n");
}
