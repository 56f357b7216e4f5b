import type { Composer } from "grammy";
import { FlatComposer } from "#src/bot/middleware/flat-composer";
import { CARD_AUTO_BUY_DAYS, CARD_AUTO_BUY_ORDERS } from "#src/chat/callback-data";
import {
  AUTO_BUY_DAY_CHOICES,
  createAutoBuy,
  DEFAULT_AUTO_BUY_DAYS,
  DEFAULT_ORDERS_PER_DAY,
  findAutoBuy,
  MAX_AUTO_BUYS_PER_USER,
  ORDERS_PER_DAY_CHOICES,
} from "#src/db/repos/auto-buys";
import { autoBuyingEnabled } from "#src/db/repos/auto-buy-changes";
import { findCredential } from "#src/db/repos/credentials";
import { findPendingAction, setPendingActionPayload } from "#src/db/repos/pending-actions";
import { addTrx, compareTrx, sunToTrx, trxToSun } from "#src/marketplace/money";
import type { BotContext } from "#src/bot/context";
import { editInPlace } from "#src/bot/edit-in-place";
import { replyMarketplaceError, userClient } from "#src/bot/marketplace-access";
import { knownTrxText, timeText, trxText } from "#src/chat/format";
import { code } from "#src/chat/html";
import { autoBuyRentText } from "#src/chat/auto-buy-alerts";
import { cardKeyboard, sendCard, type CardButton, type CardKind, type CardKinds } from "../cards";
import type { AutoBuyDraft } from "./parse";

const DAY_MS = 24 * 60 * 60_000;

/** What Confirm creates, with the figures the card shows (the user's own total and balance when it was drawn). */
export interface AutoBuyPayload {
  resource: string;
  volume: string;
  duration: string;
  address: string;
  maxTrx: string;
  budgetTrx: string;
  ordersPerDay: number;
  days: number;
  totalTrx: string;
  balanceTrx: string | null;
}

/** The most one UTC day can cost: the budget, or fewer orders at the cap each when that is less. */
export function worstPerDaySun(payload: Pick<AutoBuyPayload, "maxTrx" | "budgetTrx" | "ordersPerDay">): bigint {
  const byCount = trxToSun(payload.maxTrx) * BigInt(payload.ordersPerDay);
  const budget = trxToSun(payload.budgetTrx);
  return byCount < budget ? byCount : budget;
}

/** The UTC days an auto-buy made at `from` and lasting `days` touches (the first and last partly). */
export function utcDaysTouched(from: number, days: number): number {
  const end = from + days * DAY_MS - 1;
  return Math.floor(end / DAY_MS) - Math.floor(from / DAY_MS) + 1;
}

/** The confirmation card: every bound, the worst case per day and in all, and what Confirm authorizes. */
export function autoBuyCardText(ctx: BotContext, payload: AutoBuyPayload): string {
  const now = ctx.deps.now();
  const perDay = worstPerDaySun(payload);
  const days = utcDaysTouched(now, payload.days);
  const lines = [
    ctx.tr("autobuy-card-title"),
    "",
    ctx.tr("autobuy-card-rent", { rent: autoBuyRentText(ctx.tr, ctx.lang, payload) }),
    ctx.tr("autobuy-card-address", {}, { value: code(payload.address) }),
    ctx.tr("autobuy-card-max", { value: trxText(payload.maxTrx, ctx.lang) }),
    ctx.tr("autobuy-card-total-now", { value: trxText(payload.totalTrx, ctx.lang) }),
    ctx.tr("autobuy-card-budget", { value: trxText(payload.budgetTrx, ctx.lang) }),
    ctx.tr("autobuy-card-orders", { count: payload.ordersPerDay }),
    ctx.tr("autobuy-card-ends", {
      days: payload.days,
      time: timeText(new Date(now + payload.days * DAY_MS).toISOString()),
    }),
    ctx.tr("autobuy-card-worst", {
      day: trxText(sunToTrx(perDay), ctx.lang),
      all: trxText(sunToTrx(perDay * BigInt(days)), ctx.lang),
      days,
    }),
    ctx.tr("autobuy-card-balance", { value: knownTrxText(payload.balanceTrx, ctx.lang) }),
    "",
    ctx.tr("autobuy-card-one-rental"),
  ];
  if (compareTrx(payload.totalTrx, payload.maxTrx) <= 0) lines.push(ctx.tr("autobuy-card-under-now"));
  lines.push("", ctx.tr("autobuy-card-authorizes"));
  return lines.join("\n");
}

/** The card's own buttons: orders a day and how many days, each tap the next choice. */
function cardButtons(ctx: BotContext, payload: AutoBuyPayload): (id: string) => CardButton[] {
  return (id) => [
    { text: ctx.tr("button-autobuy-orders", { count: payload.ordersPerDay }), data: CARD_AUTO_BUY_ORDERS.data(id) },
    { text: ctx.tr("button-autobuy-days", { days: payload.days }), data: CARD_AUTO_BUY_DAYS.data(id) },
  ];
}

/**
 * The card of a complete draft, from the user's own order preview (their total now, price and
 * activation fee, and their balance). Creating it is all a flow does: Confirm creates the auto-buy,
 * which buys nothing then.
 */
export async function sendAutoBuyCard(
  ctx: BotContext,
  draft: AutoBuyDraft,
  known?: { totalTrx: string; balanceTrx: string | null },
): Promise<void> {
  const figures = known ?? (await readFigures(ctx, draft));
  if (!figures) return;
  const payload: AutoBuyPayload = {
    resource: draft.resource!,
    volume: draft.volume!,
    duration: draft.duration!,
    address: draft.address!,
    maxTrx: draft.maxTrx!,
    budgetTrx: draft.budgetTrx!,
    ordersPerDay: DEFAULT_ORDERS_PER_DAY,
    days: DEFAULT_AUTO_BUY_DAYS,
    ...figures,
  };
  await sendCard(ctx, "autobuy", payload, autoBuyCardText(ctx, payload), true, cardButtons(ctx, payload));
}

/** The user's own total for the rent now and their balance; null after telling them why not. */
export async function readFigures(
  ctx: BotContext,
  rent: Pick<AutoBuyDraft, "resource" | "volume" | "duration" | "address">,
): Promise<{ totalTrx: string; balanceTrx: string | null } | null> {
  const client = await userClient(ctx);
  if (!client) return null;
  try {
    const preview = await client.previewOrder({
      volume: rent.volume!,
      days: rent.duration!,
      resource: rent.resource!,
      target: rent.address!,
    });
    const balanceTrx = preview.balanceTrx ?? (await client.balance()).trx;
    return { totalTrx: addTrx(preview.priceTrx, preview.activationTrx ?? "0"), balanceTrx };
  } catch (error) {
    await replyMarketplaceError(ctx, error, { read: true });
    return null;
  }
}

/** Confirm creates the auto-buy (its id is the card's, so a second look finds it made); nothing is bought now. */
async function createFromCard(ctx: BotContext, action: { id: string; payload: string }) {
  const payload = JSON.parse(action.payload) as AutoBuyPayload;
  const telegramId = ctx.account.telegram_id;
  const credential = await findCredential(ctx.deps.db, telegramId);
  if (!credential || credential.broken_at) return { state: "failed" as const, text: ctx.tr("card-no-key") };
  if (!(await autoBuyingEnabled(ctx.deps.db, telegramId)))
    return { state: "failed" as const, text: ctx.tr("autobuy-switch-off") };
  const made = await createAutoBuy(
    ctx.deps.db,
    {
      id: action.id,
      telegramId,
      resource: payload.resource,
      volume: payload.volume,
      duration: payload.duration,
      address: payload.address,
      maxTotalSun: trxToSun(payload.maxTrx),
      dailyBudgetSun: trxToSun(payload.budgetTrx),
      ordersPerDay: payload.ordersPerDay,
      days: payload.days,
      keyLinkedAt: credential.linked_at,
    },
    ctx.deps.now(),
  );
  if (made === "limit")
    return {
      state: "failed" as const,
      text: ctx.tr("autobuy-limit", { max: MAX_AUTO_BUYS_PER_USER }),
      result: { error: "limit" },
    };
  ctx.deps.logger.info({ userId: telegramId, autoBuy: action.id, made }, "auto-buy created");
  const autoBuy = await findAutoBuy(ctx.deps.db, telegramId, action.id);
  return {
    state: "done" as const,
    text: createdText(ctx, action.id, autoBuy?.ends_at),
    result: { autoBuyId: action.id },
  };
}

function createdText(ctx: BotContext, id: string, endsAt?: number): string {
  return ctx.tr("autobuy-created", {
    id: id.slice(0, 8),
    time: endsAt === undefined ? "" : timeText(new Date(endsAt).toISOString()),
  });
}

/** The auto-buy card: Confirm creates it (no marketplace call), Refresh reads the user's total again. */
export const AUTO_BUY_CARD: CardKind = {
  execute: createFromCard,
  recheck: createFromCard,
  async cancelAfterAttempt(ctx) {
    return { text: ctx.tr("card-cancelled") };
  },
  async refresh(ctx, action) {
    const payload = JSON.parse(action.payload) as AutoBuyPayload;
    const figures = await readFigures(ctx, payload);
    if (!figures) return null;
    const fresh = { ...payload, ...figures };
    return { text: autoBuyCardText(ctx, fresh), payload: fresh, canConfirm: true, extra: cardButtons(ctx, fresh) };
  },
  doneText(ctx, action) {
    const made = JSON.parse(action.result ?? "null") as { autoBuyId?: string } | null;
    return createdText(ctx, made?.autoBuyId ?? action.id);
  },
};

/** The next of `choices` after `value` (the first after the last, or after a value not offered). */
function nextChoice(choices: readonly number[], value: number): number {
  const index = choices.indexOf(value);
  return choices[(index + 1) % choices.length]!;
}

/** A tap on the card's orders a day or days: the next choice, the card redrawn from its figures. */
function toggle(which: "orders" | "days") {
  const kind = which === "orders" ? CARD_AUTO_BUY_ORDERS : CARD_AUTO_BUY_DAYS;
  return async (ctx: BotContext & { callbackQuery: { data: string } }) => {
    const action = await findPendingAction(ctx.deps.db, ctx.account.telegram_id, kind.parse(ctx.callbackQuery.data)!);
    if (!action || action.kind !== "autobuy" || action.state !== "pending") {
      await ctx.answerCallbackQuery({
        text: ctx.tr(action?.state === "processing" ? "card-processing" : "card-expired"),
      });
      return;
    }
    const payload = JSON.parse(action.payload) as AutoBuyPayload;
    const next: AutoBuyPayload =
      which === "orders"
        ? { ...payload, ordersPerDay: nextChoice(ORDERS_PER_DAY_CHOICES, payload.ordersPerDay) }
        : { ...payload, days: nextChoice(AUTO_BUY_DAY_CHOICES, payload.days) };
    if (!(await setPendingActionPayload(ctx.deps.db, action.id, next))) {
      await ctx.answerCallbackQuery({ text: ctx.tr("card-processing") });
      return;
    }
    await ctx.answerCallbackQuery();
    await editInPlace(
      ctx,
      autoBuyCardText(ctx, next),
      cardKeyboard(ctx, action.id, true, cardButtons(ctx, next)(action.id)),
    );
  };
}

/** The card's kind and its two choices. */
export function autoBuyCards(cards: CardKinds): Composer<BotContext> {
  cards.set("autobuy", AUTO_BUY_CARD);
  const composer = new FlatComposer<BotContext>();
  composer.callbackQuery(CARD_AUTO_BUY_ORDERS.pattern, toggle("orders"));
  composer.callbackQuery(CARD_AUTO_BUY_DAYS.pattern, toggle("days"));
  return composer;
}
