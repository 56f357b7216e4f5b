import { type Composer, InlineKeyboard, InputFile } from "grammy";
import { FlatComposer } from "#src/bot/middleware/flat-composer";
import type { AutomationRule, Balance, DepositAddress, MarketplaceClient } from "#src/marketplace/index";
import { readRunway, runwayLine, type Runway } from "#src/reports/runway";
import type { BotContext } from "#src/bot/context";
import { amountText, knownAmountText } from "#src/chat/format";
import { code, marketWord, truncate } from "#src/chat/html";
import { replyMarketplaceError, userClient } from "#src/bot/marketplace-access";
import type { MenuActions } from "#src/bot/context";
import { editInPlace } from "#src/bot/edit-in-place";
import { transactionsView, type TransactionsMenu } from "./transactions";
import { markInMotion } from "#src/db/repos/poll-schedule";
import { MAIN_MENU, WALLET_REFRESH, WALLET_TRANSACTIONS } from "#src/chat/callback-data";
import type * as QRCodeModule from "qrcode";

function walletView(
  ctx: BotContext,
  balance: Balance,
  runway: Runway | null,
): { text: string; keyboard: InlineKeyboard } {
  const text = [
    ctx.tr("wallet-title"),
    "",
    ctx.tr("wallet-trx", { value: knownAmountText(balance.trx, ctx.lang) }),
    ctx.tr("wallet-usdt", { value: knownAmountText(balance.usdtTrc20, ctx.lang) }),
    ...(runway ? ["", runwayLine(ctx.tr, ctx.lang, runway)] : []),
    "",
    ctx.tr("wallet-hint"),
  ].join("\n");
  const keyboard = new InlineKeyboard()
    .text(ctx.tr("button-topup"), MAIN_MENU.data("topup"))
    .text(ctx.tr("button-transactions"), WALLET_TRANSACTIONS.data)
    .row()
    .text(ctx.tr("button-refresh"), WALLET_REFRESH.data);
  return { text, keyboard };
}

/** The runway for /wallet and /rules; null (and nothing said) when it cannot be read: it is only an estimate. */
export async function runwayOf(
  ctx: BotContext,
  client: MarketplaceClient,
  rules: AutomationRule[] | null,
  balanceTrx: string | null,
): Promise<Runway | null> {
  if (rules === null || balanceTrx === null) return null;
  try {
    return await readRunway(client, rules, balanceTrx, ctx.deps.now());
  } catch (error) {
    ctx.deps.logger.debug(
      { userId: ctx.account.telegram_id, err: error },
      "the runway could not be read; shown without it",
    );
    return null;
  }
}

/**
 * The longest deposit address shown: Telegram's copy button takes at most 256 characters. The spec
 * gives the address no format, but one longer than that cannot be copied or pasted as one: it is
 * not shown cut (a cut address must never be paid to), and the user is sent to the dashboard.
 */
const DEPOSIT_ADDRESS_MAX = 256;

/** The marketplace's words on the deposit, bounded (the spec bounds none of them). */
function shownDeposit(deposit: DepositAddress): DepositAddress {
  return {
    ...deposit,
    network: marketWord(deposit.network),
    minimums: deposit.minimums.map((minimum) => ({ ...minimum, currency: truncate(minimum.currency, 24) })),
  };
}

function topUpText(ctx: BotContext, deposit: DepositAddress): string {
  const lines = [
    ctx.tr("topup-title"),
    "",
    ctx.tr("topup-address"),
    code(deposit.address),
    "",
    ctx.tr("topup-network", { network: deposit.network }),
  ];
  if (deposit.minimums.length === 0) lines.push(ctx.tr("topup-no-minimums"));
  else {
    lines.push(ctx.tr("topup-minimums"));
    for (const minimum of deposit.minimums)
      lines.push(
        ctx.tr("topup-minimum-line", {
          currency: minimum.currency,
          amount: `${amountText(minimum.amount, ctx.lang)} ${minimum.currency}`,
        }),
      );
  }
  const codes =
    deposit.minimums.length > 0 ? deposit.minimums.map((minimum) => minimum.currency) : ["USDT-TRC20", "TRX"];
  const currencies = new Intl.ListFormat(ctx.lang, { type: "disjunction" }).format([
    ...new Set(codes.map((currency) => tokenName(currency, deposit.network))),
  ]);
  lines.push("", ctx.tr("topup-warning", { currencies, network: deposit.network }), "", ctx.tr("topup-credited"));
  return lines.join("\n");
}

/** "USDT-TRC20" on the TRC20 network reads "USDT": the warning names the network once, on its own. */
function tokenName(currency: string, network: string): string {
  const suffix = `-${network}`;
  return currency.length > suffix.length && currency.toUpperCase().endsWith(suffix.toUpperCase())
    ? currency.slice(0, -suffix.length)
    : currency;
}

let qrcode: Promise<typeof QRCodeModule> | null = null;

/** A PNG QR code of the text, drawn locally (no network); the encoder is loaded at the first /topup, not at start (as the chart renderer is). */
export async function qrPng(text: string): Promise<Buffer> {
  qrcode ??= import("qrcode");
  const { toBuffer } = await qrcode;
  return toBuffer(text, { type: "png", errorCorrectionLevel: "M", margin: 2, scale: 8 });
}

/** /wallet (balances, refresh in place), /topup (deposit address, minimums, QR code) and, through wallet/transactions.ts, /transactions. */
export function walletFeature(menu: MenuActions, transactions: TransactionsMenu): Composer<BotContext> {
  const composer = new FlatComposer<BotContext>();

  async function loadWallet(ctx: BotContext): Promise<{ text: string; keyboard: InlineKeyboard } | null> {
    const client = await userClient(ctx);
    if (!client) return null;
    // A deposit may follow: the user's notifications are read every cycle for the next hour.
    await markInMotion(ctx.deps.db, ctx.account.telegram_id, "deposit", ctx.deps.now());
    try {
      // The rule list beside the balance: the runway reads the firings of active rules only.
      const rules = client.listAutomations().catch(() => null);
      const balance = await client.balance();
      return walletView(ctx, balance, await runwayOf(ctx, client, await rules, balance.trx));
    } catch (error) {
      await replyMarketplaceError(ctx, error, { read: true });
      return null;
    }
  }

  async function showWallet(ctx: BotContext): Promise<void> {
    const view = await loadWallet(ctx);
    if (view) await ctx.reply(view.text, { parse_mode: "HTML", reply_markup: view.keyboard });
  }

  async function showTopUp(ctx: BotContext): Promise<void> {
    const client = await userClient(ctx);
    if (!client) return;
    await markInMotion(ctx.deps.db, ctx.account.telegram_id, "deposit", ctx.deps.now());
    let deposit: DepositAddress;
    try {
      // Always asked afresh: the address is the marketplace's to give, never a cached copy.
      deposit = await client.depositAddress();
    } catch (error) {
      await replyMarketplaceError(ctx, error, { read: true });
      return;
    }
    if (deposit.address.length > DEPOSIT_ADDRESS_MAX) {
      ctx.deps.logger.warn(
        { userId: ctx.account.telegram_id, length: deposit.address.length },
        "the marketplace's deposit address is too long to show; the user was sent to the dashboard",
      );
      await ctx.reply(ctx.tr("topup-address-too-long", { length: String(deposit.address.length) }), {
        parse_mode: "HTML",
      });
      return;
    }
    deposit = shownDeposit(deposit);
    const keyboard = new InlineKeyboard().copyText(ctx.tr("button-copy-address"), deposit.address);
    await ctx.reply(topUpText(ctx, deposit), { parse_mode: "HTML", reply_markup: keyboard });
    const png = await qrPng(deposit.address);
    const caption = `${ctx.tr("topup-caption", { network: deposit.network })}\n${code(deposit.address)}`;
    await ctx.replyWithPhoto(new InputFile(png, "deposit.png"), { caption, parse_mode: "HTML" });
  }

  composer.command("wallet", showWallet);
  menu.register("wallet", showWallet);
  composer.command("topup", showTopUp);
  menu.register("topup", showTopUp);

  composer.callbackQuery(WALLET_REFRESH.pattern, async (ctx) => {
    const view = await loadWallet(ctx);
    await ctx.answerCallbackQuery(view ? { text: ctx.tr("wallet-refreshed") } : undefined);
    if (view) await editInPlace(ctx, view.text, view.keyboard);
  });

  composer.use(transactionsView(menu, transactions));

  return composer;
}
