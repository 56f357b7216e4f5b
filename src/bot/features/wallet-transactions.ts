import { Composer, InlineKeyboard } from "grammy";
import { refFor, resolveRef } from "../../db/repos/callback-refs";
import type { LedgerEntry, MarketplaceClient, Paged } from "../../marketplace";
import { formatTrxForDisplay } from "../../marketplace/money";
import type { BotContext } from "../context";
import { timeText } from "../format";
import { truncate, txLink } from "../html";
import { replyMarketplaceError, userClient } from "../marketplace-access";
import type { MenuActions } from "./start";
import { editInPlace } from "../edit-in-place";

/** Ledger entries per page (the API allows up to 100). */
export const TRANSACTIONS_PAGE_SIZE = 10;
const MAX_TYPE_BUTTONS = 8;

/** Currency filter as one letter in callback data. */
const CURRENCIES = { a: undefined, t: "TRX", u: "USDT-TRC20" } as const;
type CurrencyCode = keyof typeof CURRENCIES;

interface Filter {
  currency: CurrencyCode;
  /** The ledger type filter, or undefined for all types. */
  type?: string;
}

const CALLBACK = /^tx:p:(\d{1,6}):([atu]):(-|[A-Za-z0-9_-]{10})$/;

async function callbackData(ctx: BotContext, page: number, filter: Filter): Promise<string> {
  const type = filter.type === undefined ? "-" : await refFor(ctx.deps.db, ctx.account.telegram_id, `ledger-type:${filter.type}`, ctx.deps.now());
  return `tx:p:${page}:${filter.currency}:${type}`;
}

/** "+12.5" for credits, "-3" for debits, from the API's decimal string (never a float). */
export function signedAmount(amount: string): string {
  const shown = formatTrxForDisplay(amount.trim());
  if (shown.startsWith("-") || shown.startsWith("+") || /^0*(\.0*)?$/.test(amount.trim())) return shown;
  return `+${shown}`;
}

function entryLine(ctx: BotContext, entry: LedgerEntry): string {
  const line = ctx.tr("transactions-line", {
    time: timeText(entry.createdAt),
    type: truncate(entry.type, 40),
    amount: signedAmount(entry.amount),
    currency: truncate(entry.currency, 20),
    status: truncate(entry.status, 30),
  });
  return entry.txId ? `${line} · ${txLink(truncate(entry.txId, 80), ctx.tr("tx-sandbox"))}` : line;
}

async function fetchPage(client: MarketplaceClient, page: number, filter: Filter): Promise<Paged<LedgerEntry>> {
  const query = { pageSize: TRANSACTIONS_PAGE_SIZE, currency: CURRENCIES[filter.currency], type: filter.type };
  let list = await client.transactions({ ...query, page });
  const pages = Math.max(1, Math.ceil(list.total / TRANSACTIONS_PAGE_SIZE));
  // The ledger shrank under a filter or an old button: show the last page that has entries.
  if (list.items.length === 0 && page > pages) list = await client.transactions({ ...query, page: pages });
  return list;
}

async function render(ctx: BotContext, list: Paged<LedgerEntry>, filter: Filter): Promise<{ text: string; keyboard: InlineKeyboard }> {
  const number = Math.max(1, list.page);
  const pages = Math.max(1, Math.ceil(list.total / TRANSACTIONS_PAGE_SIZE));
  const filtered = filter.currency !== "a" || filter.type !== undefined;
  const lines = [ctx.tr("transactions-title", { page: String(number), pages: String(pages), total: String(list.total) })];
  if (filtered) {
    const parts = [CURRENCIES[filter.currency] ?? ctx.tr("transactions-all-currencies"), filter.type === undefined ? ctx.tr("transactions-all-types") : truncate(filter.type, 40)];
    lines.push(ctx.tr("transactions-filter", { value: parts.join(" · ") }));
  }
  lines.push("");
  if (list.items.length === 0) lines.push(ctx.tr(filtered ? "transactions-empty-filtered" : "transactions-empty"));
  for (const entry of list.items) lines.push(entryLine(ctx, entry));

  const keyboard = new InlineKeyboard();
  if (list.total === 0 && !filtered) {
    keyboard.text(ctx.tr("button-topup"), "m:topup");
    return { text: lines.join("\n"), keyboard };
  }
  if (number > 1) keyboard.text(ctx.tr("button-prev"), await callbackData(ctx, number - 1, filter));
  if (number < pages) keyboard.text(ctx.tr("button-next"), await callbackData(ctx, number + 1, filter));
  keyboard.row();

  // Currency filter: changing it starts again at page 1.
  const mark = (active: boolean, label: string) => (active ? `• ${label}` : label);
  for (const currency of ["a", "t", "u"] as const) {
    const label = CURRENCIES[currency] ?? ctx.tr("transactions-all-currencies");
    keyboard.text(mark(filter.currency === currency, label), await callbackData(ctx, 1, { ...filter, currency }));
  }
  keyboard.row();

  // Type filter: all, the active one, and the types seen on this page.
  const types = [...new Set([...(filter.type === undefined ? [] : [filter.type]), ...list.items.map((entry) => entry.type)])].slice(0, MAX_TYPE_BUTTONS);
  keyboard.text(mark(filter.type === undefined, ctx.tr("transactions-all-types")), await callbackData(ctx, 1, { currency: filter.currency }));
  let inRow = 1;
  for (const type of types) {
    if (inRow === 3) {
      keyboard.row();
      inRow = 0;
    }
    keyboard.text(mark(filter.type === type, truncate(type, 28)), await callbackData(ctx, 1, { currency: filter.currency, type }));
    inRow += 1;
  }
  return { text: lines.join("\n"), keyboard };
}

/** /transactions: the ledger newest first, 10 a page, filterable by currency and type; the filter lives in the callback data. */
export function transactionsView(menu: MenuActions): Composer<BotContext> {
  const composer = new Composer<BotContext>();

  async function view(ctx: BotContext, page: number, filter: Filter): Promise<{ text: string; keyboard: InlineKeyboard } | null> {
    const client = await userClient(ctx);
    if (!client) return null;
    try {
      return await render(ctx, await fetchPage(client, page, filter), filter);
    } catch (error) {
      await replyMarketplaceError(ctx, error, { read: true });
      return null;
    }
  }

  async function showTransactions(ctx: BotContext): Promise<void> {
    const shown = await view(ctx, 1, { currency: "a" });
    if (shown) await ctx.reply(shown.text, { parse_mode: "HTML", reply_markup: shown.keyboard, link_preview_options: { is_disabled: true } });
  }

  composer.command("transactions", showTransactions);
  menu.transactions = showTransactions;

  composer.callbackQuery("w:tx", async (ctx) => {
    await ctx.answerCallbackQuery();
    await showTransactions(ctx);
  });

  composer.callbackQuery(CALLBACK, async (ctx) => {
    const [, pageText, currency, typeRef] = ctx.match;
    let type: string | undefined;
    if (typeRef !== "-") {
      const value = await resolveRef(ctx.deps.db, ctx.account.telegram_id, typeRef!);
      if (!value?.startsWith("ledger-type:")) {
        await ctx.answerCallbackQuery({ text: ctx.tr("button-expired") });
        return;
      }
      type = value.slice("ledger-type:".length);
    }
    await ctx.answerCallbackQuery();
    const shown = await view(ctx, Math.max(1, Number(pageText)), { currency: currency as CurrencyCode, type });
    if (!shown) return;
    await editInPlace(ctx, shown.text, shown.keyboard);
  });

  return composer;
}
