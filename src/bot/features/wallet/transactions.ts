import { Menu, type MenuFlavor, type MenuRange } from "@grammyjs/menu";
import type { Composer, Context } from "grammy";
import { FlatComposer } from "#src/bot/middleware/flat-composer";
import { LEDGER_VIEW, MENU_IDS, WALLET_TRANSACTIONS } from "#src/chat/callback-data";
import { refFor, resolveRef } from "#src/db/repos/callback-refs";
import type { LedgerEntry, MarketplaceClient, Paged } from "#src/marketplace/index";
import type { BotContext } from "#src/bot/context";
import { amountText, countText, timeText } from "#src/chat/format";
import type { Language } from "#src/chat/i18n";
import { truncate, txLink } from "#src/chat/html";
import { replyMarketplaceError, userClient } from "#src/bot/marketplace-access";
import type { MenuActions } from "#src/bot/context";
import { editInPlace, visibleText } from "#src/bot/edit-in-place";
import { ledgerStatusText, ledgerTypeText } from "#src/chat/market-words";

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

/** A filter's ledger type as a short reference ("-": all types), for a menu payload. */
async function typeReference(ctx: BotContext, filter: Filter): Promise<string> {
  return filter.type === undefined
    ? "-"
    : refFor(ctx.deps.db, ctx.account.telegram_id, `ledger-type:${filter.type}`, ctx.deps.now());
}

/** "+12.5" for credits, "-3" for debits, from the API's decimal string (never a float). */
export function signedAmount(amount: string, lang: Language): string {
  const shown = amountText(amount.trim(), lang);
  if (shown.startsWith("-") || shown.startsWith("+") || /^0*(\.0*)?$/.test(amount.trim())) return shown;
  return `+${shown}`;
}

function entryLine(ctx: BotContext, entry: LedgerEntry): string {
  const line = ctx.tr(
    "transactions-line",
    {
      time: timeText(entry.createdAt),
      amount: signedAmount(entry.amount, ctx.lang),
      currency: truncate(entry.currency, 20),
    },
    {
      type: ledgerTypeText(ctx.tr, truncate(entry.type, 40)),
      status: ledgerStatusText(ctx.tr, truncate(entry.status, 30)),
    },
  );
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

/** What a transactions menu shows: a ledger page under a filter. */
interface LedgerView {
  list: Paged<LedgerEntry>;
  filter: Filter;
}

function pageCount(list: Paged<LedgerEntry>): number {
  return Math.max(1, Math.ceil(list.total / TRANSACTIONS_PAGE_SIZE));
}

function isFiltered(filter: Filter): boolean {
  return filter.currency !== "a" || filter.type !== undefined;
}

function ledgerText(ctx: BotContext, { list, filter }: LedgerView): string {
  const number = Math.max(1, list.page);
  const filtered = isFiltered(filter);
  const lines = [
    ctx.tr("transactions-title", {
      page: countText(number, ctx.lang),
      pages: countText(pageCount(list), ctx.lang),
      total: countText(list.total, ctx.lang),
    }),
  ];
  if (filtered) {
    const parts = [
      CURRENCIES[filter.currency] ?? ctx.tr("transactions-all-currencies"),
      filter.type === undefined ? ctx.tr("transactions-all-types") : visibleText(ledgerTypeText(ctx.tr, filter.type)),
    ];
    lines.push(ctx.tr("transactions-filter", { value: parts.join(" · ") }));
  }
  lines.push("");
  if (list.items.length === 0) lines.push(ctx.tr(filtered ? "transactions-empty-filtered" : "transactions-empty"));
  for (const entry of list.items) lines.push(entryLine(ctx, entry));
  return lines.join("\n");
}

/** The state a ledger page shows: which entries, out of how many. */
function ledgerFingerprint({ list, filter }: LedgerView): string {
  return `ledger:${filter.currency}:${filter.type ?? ""}:${list.page}:${list.total}:${list.items.map((entry) => entry.id).join(",")}`;
}

/** /transactions as a menu, with the means to show it. */
export interface TransactionsMenu {
  menu: Menu<BotContext>;
  /** Sends the first page, unfiltered. */
  show(ctx: BotContext): Promise<void>;
}

/** The menu, the showTopUp it offers on an empty ledger, and per update what is drawn and what a press found. */
interface LedgerMenu {
  menu: Menu<BotContext>;
  showTopUp: (ctx: BotContext) => Promise<void>;
  drawn: WeakMap<Context, LedgerView>;
  pressed: WeakMap<Context, Promise<LedgerView | "expired" | "unavailable">>;
}

/**
 * /transactions on @grammyjs/menu: the ledger newest first, 10 a page, with Prev/Next and
 * filters by currency and by the types seen on the page. The payload names the page and filter
 * shown; a press reads that page again, and when it changed (new entries) the menu is redrawn as
 * it is now instead of acting.
 */
export function transactionsMenu(showTopUp: (ctx: BotContext) => Promise<void>): TransactionsMenu {
  const ledger: LedgerMenu = {
    showTopUp,
    drawn: new WeakMap(),
    pressed: new WeakMap(),
    menu: new Menu<BotContext>(MENU_IDS.transactions, {
      autoAnswer: false,
      fingerprint: async (ctx) => {
        const view = await shown(ledger, ctx);
        return view ? ledgerFingerprint(view) : `none:${String(await pressedView(ledger, ctx))}`;
      },
      onMenuOutdated: (ctx) => ledgerOutdated(ledger, ctx),
    }),
  };
  ledger.menu.dynamic(async (ctx, range) => {
    const view = await shown(ledger, ctx);
    if (view) await buttons(ledger, ctx, range, view);
  });
  return { menu: ledger.menu, show: (ctx) => show(ledger, ctx) };
}

async function read(ctx: BotContext, page: number, filter: Filter): Promise<LedgerView | null> {
  const client = await userClient(ctx);
  if (!client) return null;
  try {
    return { list: await fetchPage(client, page, filter), filter };
  } catch (error) {
    if (ctx.callbackQuery) await ctx.answerCallbackQuery().catch(() => undefined);
    await replyMarketplaceError(ctx, error, { read: true });
    return null;
  }
}

/** The page a press was made on, read again (once per update). */
function pressedView(ledger: LedgerMenu, ctx: BotContext): Promise<LedgerView | "expired" | "unavailable"> {
  let pending = ledger.pressed.get(ctx);
  if (!pending) {
    pending = (async () => {
      const payload = LEDGER_VIEW.parse(typeof ctx.match === "string" ? ctx.match : "");
      if (!payload) return "expired";
      let type: string | undefined;
      if (payload.typeRef !== null) {
        const value = await resolveRef(ctx.deps.db, ctx.account.telegram_id, payload.typeRef);
        if (!value?.startsWith("ledger-type:")) return "expired";
        type = value.slice("ledger-type:".length);
      }
      return (
        (await read(ctx, payload.page, { currency: payload.currency, ...(type === undefined ? {} : { type }) })) ??
        "unavailable"
      );
    })();
    ledger.pressed.set(ctx, pending);
  }
  return pending;
}

async function shown(ledger: LedgerMenu, ctx: BotContext): Promise<LedgerView | null> {
  const view = ledger.drawn.get(ctx);
  if (view) return view;
  const found = await pressedView(ledger, ctx);
  if (typeof found === "string") return null;
  ledger.drawn.set(ctx, found);
  return found;
}

/** A press on a page drawn from an older ledger: nothing is done; the page is drawn as it is now. */
async function ledgerOutdated(ledger: LedgerMenu, ctx: BotContext & MenuFlavor): Promise<void> {
  const found = await pressedView(ledger, ctx);
  if (found === "expired") return void (await ctx.answerCallbackQuery({ text: ctx.tr("button-expired") }));
  if (found === "unavailable") return void (await ctx.answerCallbackQuery().catch(() => undefined));
  await ctx.answerCallbackQuery({ text: ctx.tr("transactions-toast-changed") });
  ledger.drawn.set(ctx, found);
  await editInPlace(ctx, ledgerText(ctx, found), ledger.menu);
}

async function draw(ledger: LedgerMenu, ctx: BotContext & MenuFlavor, page: number, filter: Filter): Promise<void> {
  const view = await read(ctx, page, filter);
  if (!view) return;
  await ctx.answerCallbackQuery();
  ledger.drawn.set(ctx, view);
  await editInPlace(ctx, ledgerText(ctx, view), ledger.menu);
}

async function buttons(
  ledger: LedgerMenu,
  ctx: BotContext,
  range: MenuRange<BotContext>,
  { list, filter }: LedgerView,
): Promise<void> {
  const number = Math.max(1, list.page);
  const pages = pageCount(list);
  const payload = LEDGER_VIEW.data(number, filter.currency, await typeReference(ctx, filter));
  const button = (text: string, page: number, target: Filter) =>
    range.text({ text, payload }, (pressedCtx) => draw(ledger, pressedCtx, page, target));
  if (list.total === 0 && !isFiltered(filter)) {
    range.text({ text: ctx.tr("button-topup"), payload }, async (pressedCtx) => {
      await pressedCtx.answerCallbackQuery();
      await ledger.showTopUp(pressedCtx);
    });
    return;
  }
  if (number > 1) button(ctx.tr("button-prev"), number - 1, filter);
  if (number < pages) button(ctx.tr("button-next"), number + 1, filter);
  range.row();

  // Currency filter: changing it starts again at page 1.
  const mark = (active: boolean, label: string) => (active ? `• ${label}` : label);
  for (const currency of ["a", "t", "u"] as const) {
    button(mark(filter.currency === currency, CURRENCIES[currency] ?? ctx.tr("transactions-all-currencies")), 1, {
      ...filter,
      currency,
    });
  }
  range.row();

  // Type filter: all, the active one, and the types seen on this page.
  const types = [
    ...new Set([...(filter.type === undefined ? [] : [filter.type]), ...list.items.map((entry) => entry.type)]),
  ]
    .filter((type) => type.trim() !== "")
    .slice(0, MAX_TYPE_BUTTONS);
  button(mark(filter.type === undefined, ctx.tr("transactions-all-types")), 1, { currency: filter.currency });
  let inRow = 1;
  for (const type of types) {
    if (inRow === 3) {
      range.row();
      inRow = 0;
    }
    button(mark(filter.type === type, truncate(visibleText(ledgerTypeText(ctx.tr, type)), 28)), 1, {
      currency: filter.currency,
      type,
    });
    inRow += 1;
  }
}

/** Sends the first page, unfiltered. */
async function show(ledger: LedgerMenu, ctx: BotContext): Promise<void> {
  const view = await read(ctx, 1, { currency: "a" });
  if (!view) return;
  ledger.drawn.set(ctx, view);
  await ctx.reply(ledgerText(ctx, view), {
    parse_mode: "HTML",
    reply_markup: ledger.menu,
    link_preview_options: { is_disabled: true },
  });
}

/** /transactions and the wallet's Transactions button. The menu itself is installed by the bot, before the features. */
export function transactionsView(menu: MenuActions, transactions: TransactionsMenu): Composer<BotContext> {
  const composer = new FlatComposer<BotContext>();

  composer.command("transactions", transactions.show);
  menu.register("transactions", transactions.show);

  composer.callbackQuery(WALLET_TRANSACTIONS.pattern, async (ctx) => {
    await ctx.answerCallbackQuery();
    await transactions.show(ctx);
  });

  return composer;
}
