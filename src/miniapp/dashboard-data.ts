import type { Language, Translate } from "#src/chat/i18n";
import { durationText, knownTrxText, knownAmountText, trxText, volumeText } from "#src/chat/format";
import { marketWord } from "#src/chat/html";
import { orderStatusText, resourceAmount } from "#src/chat/market-words";
import { visibleText } from "#src/bot/edit-in-place";
import { deepLinkUrl, startPayload } from "#src/input/deep-link";
import { MarketplaceError, type AutomationRule, type MarketplaceClient, type Order } from "#src/marketplace/index";
import { ruleKind, ruleStatus } from "#src/marketplace/rule-words";
import { orderOutcome } from "#src/reports/figures";
import { describeFailure } from "./failures";

/** Orders the dashboard lists: the newest. */
const DASHBOARD_ORDERS = 5;

type Section<T> = T | { error: string };

export interface RuleRow {
  id: string;
  short: string;
  kind: string;
  status: ReturnType<typeof ruleStatus>;
  statusText: string;
  pausedBy: "user" | "system" | null;
  target: string;
  volume: string | null;
  duration: string | null;
  spent: string;
  canPause: boolean;
  canResume: boolean;
}

export interface OrderRow {
  id: string;
  short: string;
  status: string;
  outcome: ReturnType<typeof orderOutcome>;
  what: string;
  target: string;
  total: string;
  createdAt: string;
  /** Opens the chat's /buy card for the same order (t.me/<bot>?start=buy_…); null when it cannot be written as a link. */
  buyAgain: string | null;
}

/** What the dashboard shows at once; each part read on its own, so one failing read leaves the others. */
interface DashboardSections {
  balances: Section<{ trx: string; usdt: string }>;
  rules: Section<{ items: RuleRow[] }>;
  orders: Section<{ items: OrderRow[] }>;
  unread: Section<{ count: number }>;
}

interface Words {
  tr: Translate;
  lang: Language;
  botUsername: string;
}

/**
 * Reads balances, rules, the newest orders and the unread count in parallel, as the chat words
 * them. `keyLost`: the marketplace refused the key itself (a 401 on any read, or a 403 on the
 * balance, which any key may read), as the chat concludes from the same answers.
 */
export async function readDashboard(
  client: MarketplaceClient,
  words: Words,
): Promise<{ sections: DashboardSections; keyLost: boolean }> {
  const read = await Promise.all([
    attempt(async () => {
      const balance = await client.balance();
      return {
        trx: knownTrxText(balance.trx, words.lang),
        usdt: `${knownAmountText(balance.usdtTrc20, words.lang)} USDT`,
      };
    }),
    attempt(() => ruleRows(client, words)),
    attempt(async () => ({
      items: (await client.listOrders({ page: 1, pageSize: DASHBOARD_ORDERS })).items.map((order) =>
        orderRow(order, words),
      ),
    })),
    attempt(async () => ({ count: (await client.notifications({ page: 1 })).unread })),
  ] as const);
  const kindOf = (part: object) =>
    "failed" in part && part.failed instanceof MarketplaceError ? part.failed.kind : null;
  const keyLost = read.some((part) => kindOf(part) === "unauthorized") || kindOf(read[0]) === "forbidden";
  // A 403 on a read while the key still works is about that read (its scope), not the key.
  const worded = <T>(part: { value: T } | { failed: unknown }): Section<T> =>
    "failed" in part ? { error: describeFailure(words.tr, part.failed, !keyLost) } : part.value;
  return {
    sections: { balances: worded(read[0]), rules: worded(read[1]), orders: worded(read[2]), unread: worded(read[3]) },
    keyLost,
  };
}

/** The rules the dashboard lists (all but cancelled ones), as rows. */
async function ruleRows(client: MarketplaceClient, words: Words): Promise<{ items: RuleRow[] }> {
  return {
    items: (await client.listAutomations())
      .filter((rule) => ruleStatus(rule.status) !== "cancelled")
      .map((rule) => ruleRow(rule, words)),
  };
}

/**
 * The rules alone, as the dashboard shows them: what the page reads every few seconds while it is
 * visible, to follow a Pause or Resume made in the chat and a rule the marketplace paused.
 * `keyLost` as for {@link readDashboard}.
 */
export async function readRules(
  client: MarketplaceClient,
  words: Words,
): Promise<{ rules: Section<{ items: RuleRow[] }>; keyLost: boolean }> {
  const read = await attempt(() => ruleRows(client, words));
  if (!("failed" in read)) return { rules: read.value, keyLost: false };
  const keyLost = read.failed instanceof MarketplaceError && read.failed.kind === "unauthorized";
  return { rules: { error: describeFailure(words.tr, read.failed, !keyLost) }, keyLost };
}

async function attempt<T>(read: () => Promise<T>): Promise<{ value: T } | { failed: unknown }> {
  try {
    return { value: await read() };
  } catch (error) {
    if (!(error instanceof MarketplaceError)) throw error;
    return { failed: error };
  }
}

/** A rule as a row: its kind, state and what it buys, with the actions its state allows (as the chat's card offers them). */
export function ruleRow(rule: AutomationRule, { tr, lang }: Words): RuleRow {
  const kind = ruleKind(rule.type);
  const status = ruleStatus(rule.status);
  const reason = (rule.pauseReason ?? "").toLowerCase();
  return {
    id: rule.id,
    short: rule.id.slice(0, 8),
    kind: kind ? tr(`rule-kind-${kind}`) : marketWord(rule.type),
    status,
    statusText: status === "other" ? marketWord(rule.status) : tr(`rule-status-${status}`),
    pausedBy: status === "paused" && (reason === "user" || reason === "system") ? reason : null,
    target: rule.targetAddress,
    volume: kind === "smart" || rule.volume === null ? null : volumeText(rule.volume, lang),
    duration: kind === "smart" || rule.duration === null ? null : durationText(rule.duration, lang),
    spent: trxText(rule.spentTrx, lang),
    canPause: status === "active",
    canResume: status === "paused",
  };
}

function orderRow(order: Order, { tr, lang, botUsername }: Words): OrderRow {
  const payload = startPayload("buy", {
    resource: order.resource.toLowerCase(),
    volume: order.volume,
    duration: order.duration,
    address: order.targetAddress,
  });
  return {
    id: order.id,
    short: order.id.slice(0, 8),
    status: visibleText(orderStatusText(tr, order.status)),
    outcome: orderOutcome(order.status),
    what: `${visibleText(resourceAmount(tr, order.resource, order.volume, lang))} · ${durationText(order.duration, lang)}`,
    target: order.targetAddress,
    total: trxText(order.totalTrx, lang),
    createdAt: order.createdAt,
    buyAgain: payload && botUsername ? deepLinkUrl(botUsername, payload) : null,
  };
}
