import { InlineKeyboard } from "grammy";
import { markKeyBroken, openApiKey } from "#src/db/repos/credentials";
import { MarketplaceError, type MarketplaceClient } from "#src/marketplace/index";
import { SecretBoxError } from "#src/security/secret-box";
import type { BotContext } from "./context";
import { trxText } from "#src/chat/format";
import { truncate } from "#src/chat/html";
import { MAIN_MENU } from "#src/chat/callback-data";
import { accountCredential } from "./prefetched";

export function connectButton(ctx: BotContext): InlineKeyboard {
  return new InlineKeyboard().text(ctx.tr("button-connect"), MAIN_MENU.data("connect"));
}

export function topUpButton(ctx: BotContext): InlineKeyboard {
  return new InlineKeyboard().text(ctx.tr("button-topup"), MAIN_MENU.data("topup"));
}

/**
 * The marketplace client for the current user, or null after telling them what to do: link a key
 * (with a button), relink a broken or unreadable one. Commands that need a key call this first,
 * so nothing is half-run without one.
 */
export function userClient(ctx: BotContext): Promise<MarketplaceClient | null> {
  // Once per update: a command and the guided flow it enters both ask, and the user is told once.
  let client = clients.get(ctx);
  if (!client) clients.set(ctx, (client = openUserClient(ctx)));
  return client;
}

const clients = new WeakMap<BotContext, Promise<MarketplaceClient | null>>();

async function openUserClient(ctx: BotContext): Promise<MarketplaceClient | null> {
  const credential = await accountCredential(ctx);
  if (!credential) {
    await ctx.reply(ctx.tr("connect-needed"), { parse_mode: "HTML", reply_markup: connectButton(ctx) });
    return null;
  }
  if (credential.broken_at) {
    await ctx.reply(ctx.tr("key-broken", { last4: credential.last4 }), {
      parse_mode: "HTML",
      reply_markup: connectButton(ctx),
    });
    return null;
  }
  try {
    // Decrypted per call and held only inside the getter's closure.
    const apiKey = openApiKey(ctx.deps.box, credential);
    return ctx.deps.marketplace(() => apiKey);
  } catch (error) {
    if (!(error instanceof SecretBoxError)) throw error;
    ctx.deps.logger.warn(
      { userId: ctx.account.telegram_id, reason: error.reason },
      "stored API key cannot be decrypted; asking the user to relink",
    );
    await ctx.reply(ctx.tr("key-relink"), { parse_mode: "HTML", reply_markup: connectButton(ctx) });
    return null;
  }
}

export interface ErrorReplyOptions {
  /** Edit this message instead of sending a new one (confirmation cards). */
  editMessageId?: number;
  /** True for reads: a 403 that is not about scope or limits means the key lost access, once the account's balance is refused too. */
  read?: boolean;
}

/**
 * The message key and the next step for a marketplace failure. `read` says whether the call only
 * read: a 403 there means the key lost access (it is marked broken and alerts pause); a 403 on a
 * write is about that write, and the key goes on working.
 */
export function describeMarketplaceError(
  ctx: BotContext,
  error: MarketplaceError,
  read: boolean,
): { text: string; keyboard?: InlineKeyboard } {
  // The marketplace's own words, bounded: a long detail must not push a message over Telegram's limit.
  const detail = truncate(error.detail ?? "", 500);
  switch (error.kind) {
    case "insufficient_balance":
      return { text: ctx.tr("error-insufficient-balance"), keyboard: topUpButton(ctx) };
    case "insufficient_scope":
      return { text: ctx.tr("error-scope") };
    case "spend_limit":
      return { text: ctx.tr("error-spend-limit") };
    case "provider_failed":
      return { text: ctx.tr("error-provider-failed") };
    case "forbidden":
    case "unauthorized":
      // A 403 on a write is about that write; on a read the key lost access, as on any 401.
      if (error.kind === "forbidden" && !read) return { text: ctx.tr("error-forbidden", { detail: detail || "403" }) };
      return { text: ctx.tr("key-broken-now"), keyboard: connectButton(ctx) };
    case "bad_request":
    case "unprocessable":
      return { text: ctx.tr("error-rejected", { detail: detail || error.kind }) };
    case "not_found":
      return { text: ctx.tr("error-not-found") };
    case "conflict":
      return { text: ctx.tr("error-conflict", { detail: detail || "409" }) };
    case "rate_limited":
      return { text: ctx.tr("error-rate-limited") };
    default:
      return { text: ctx.tr("error-unavailable") };
  }
}

/**
 * describeMarketplaceError for a call that spends: a 402 also shows the TRX balance, read now so
 * the user sees what they have (`knownBalanceTrx`, e.g. the card's preview, when the read fails).
 */
export async function describeSpendError(
  ctx: BotContext,
  client: MarketplaceClient,
  error: MarketplaceError,
  knownBalanceTrx?: string,
): Promise<{ text: string; keyboard?: InlineKeyboard }> {
  const described = describeMarketplaceError(ctx, error, false);
  if (error.kind !== "insufficient_balance") return described;
  const balanceTrx = await client.balance().then(
    (balance) => balance.trx ?? knownBalanceTrx,
    () => knownBalanceTrx,
  );
  if (balanceTrx === undefined) return described;
  return {
    ...described,
    text: `${described.text}\n${ctx.tr("card-balance", { value: trxText(balanceTrx, ctx.lang) })}`,
  };
}

const BALANCE_PATH = "/api/v1/wallet/balance";

/**
 * Whether a 403 with no code on a read means the key lost access. The spec leaves open how the
 * marketplace answers an unknown or foreign id (a rule, an order, a notification), so a 403 about
 * one object may say nothing of the key: the key is asked once more, on the account's balance, and
 * only a refusal there too counts. A 403 on the balance itself is the answer already.
 */
async function keyRefusedToo(ctx: BotContext, error: MarketplaceError): Promise<boolean> {
  if (error.path === BALANCE_PATH) return true;
  const client = await userClient(ctx);
  if (!client) return false;
  try {
    await client.balance();
    return false;
  } catch (again) {
    return again instanceof MarketplaceError && (again.kind === "unauthorized" || again.kind === "forbidden");
  }
}

/**
 * Tells the user about a failed marketplace call, with its own message and next step. A 401 (or a
 * 403 on a read, confirmed on the balance) marks the key broken so background polling stops until
 * they link again.
 */
export async function replyMarketplaceError(
  ctx: BotContext,
  error: unknown,
  options: ErrorReplyOptions = {},
): Promise<void> {
  if (!(error instanceof MarketplaceError)) throw error;
  const lost =
    error.kind === "unauthorized" ||
    (error.kind === "forbidden" && options.read !== false && (await keyRefusedToo(ctx, error)));
  if (lost) await markKeyBroken(ctx.deps.db, ctx.account.telegram_id, ctx.deps.now());
  ctx.deps.logger.info(
    { userId: ctx.account.telegram_id, kind: error.kind, status: error.status, code: error.code, path: error.path },
    "marketplace call failed; the user was told",
  );
  const { text, keyboard } = describeMarketplaceError(ctx, error, lost);
  if (options.editMessageId !== undefined && ctx.chat) {
    await ctx.api.editMessageText(ctx.chat.id, options.editMessageId, text, {
      parse_mode: "HTML",
      reply_markup: keyboard,
    });
    return;
  }
  await ctx.reply(text, { parse_mode: "HTML", reply_markup: keyboard });
}
