import type { Composer } from "grammy";
import { FlatComposer } from "#src/bot/middleware/flat-composer";
import { AUTO_BUY_ACTION, WATCH_AUTO_BUY } from "#src/chat/callback-data";
import { findWatch } from "#src/db/repos/watches";
import { listAutoBuys, MAX_AUTO_BUYS_PER_USER } from "#src/db/repos/auto-buys";
import { autoBuyingEnabled, pauseAutoBuy, resumeAutoBuy, stopAutoBuyForGood } from "#src/db/repos/auto-buy-changes";
import { compareTrx, sunToTrx } from "#src/marketplace/money";
import { splitArguments } from "#src/input/arguments";
import { RESOURCES } from "#src/input/volume";
import type { BotContext, MenuActions } from "#src/bot/context";
import { endFlow } from "#src/bot/flows";
import { enterFlow } from "#src/bot/guided/install";
import { replyMarketplaceError, userClient } from "#src/bot/marketplace-access";
import { pressedButtonExists } from "#src/bot/pressed-button";
import { trxText } from "#src/chat/format";
import { badAddressArgument } from "../addresses";
import type { CardKinds } from "../cards";
import { draftFromCommand, missingOrderField, orderLimits, type OrderLimits } from "../order-params";
import { startOrderFlow } from "../order-params/guided";
import { autoBuyCards, readFigures, sendAutoBuyCard } from "./card";
import { amountProblem, AUTO_BUY_FIELDS } from "./conversation";
import { changeToast, type AutoBuyMenus } from "./menu";
import { takeAutoBuyArgs } from "./after-menu";
import { readTrxAmount, splitAutoBuyArguments, type AutoBuyDraft } from "./parse";

export { autoBuyConversation } from "./conversation";
export { autoBuyMenus, type AutoBuyMenus } from "./menu";

const USAGE = "/autobuy energy 65k 1h T… 3 10";

function everyDuration(limits: OrderLimits): string[] {
  return [...new Set(RESOURCES.flatMap((resource) => limits.durations(resource)))];
}

/**
 * The one-line amounts read into the draft: the most per order, then the budget. One refused is kept
 * as the problem to say when it is asked again; a budget given with a refused cap is kept, and
 * checked against the cap once that is answered.
 */
function readAmounts(ctx: BotContext, draft: AutoBuyDraft, amounts: string[]): void {
  const [max, budget] = amounts;
  const readMax = max === undefined ? null : readTrxAmount(max, ctx.lang === "ru");
  const readBudget = budget === undefined ? null : readTrxAmount(budget, ctx.lang === "ru");
  if (readMax && !readMax.ok) draft.problem = { field: "max", message: amountProblem(ctx, readMax.reason) };
  else if (readMax) draft.maxTrx = readMax.value;
  if (!readBudget) return;
  if (!readBudget.ok) {
    draft.problem ??= { field: "budget", message: amountProblem(ctx, readBudget.reason) };
    return;
  }
  if (draft.maxTrx !== undefined && compareTrx(readBudget.value, draft.maxTrx) < 0)
    draft.problem = {
      field: "budget",
      message: ctx.tr("input-autobuy-budget-under-max", { max: trxText(draft.maxTrx, ctx.lang) }),
    };
  else draft.budgetTrx = readBudget.value;
}

/** Whether the user may make one more auto-buy now (Automatic buying on, fewer than the most); told why not. */
async function mayCreate(ctx: BotContext): Promise<boolean> {
  const telegramId = ctx.account.telegram_id;
  if (!(await autoBuyingEnabled(ctx.deps.db, telegramId))) {
    await ctx.reply(ctx.tr("autobuy-switch-off"), { parse_mode: "HTML" });
    return false;
  }
  if ((await listAutoBuys(ctx.deps.db, telegramId)).length >= MAX_AUTO_BUYS_PER_USER) {
    await ctx.reply(ctx.tr("autobuy-limit", { max: MAX_AUTO_BUYS_PER_USER }), { parse_mode: "HTML" });
    return false;
  }
  return true;
}

/**
 * /autobuy [resource] [volume] [duration] [address] [max TRX per order] [daily budget TRX]: every
 * argument goes straight to the confirmation card; fewer, and the guided flow asks for the rest
 * (the order fields as /buy asks them, then the two amounts). A refused value is said and asked
 * again, the others kept. Private chats only (the chain answers groups before this).
 */
async function startAutoBuy(ctx: BotContext, args: string): Promise<void> {
  const client = await userClient(ctx);
  if (!client || !(await mayCreate(ctx))) return;
  const badAddress = badAddressArgument(ctx, splitArguments(args));
  if (badAddress) {
    await ctx.reply(badAddress, { parse_mode: "HTML" });
    return;
  }
  let limits: OrderLimits;
  try {
    limits = await orderLimits(ctx, client);
  } catch (error) {
    return replyMarketplaceError(ctx, error, { read: true });
  }
  const { orderText, amounts } = splitAutoBuyArguments(args, everyDuration(limits));
  const read = await draftFromCommand(ctx, orderText, limits, AUTO_BUY_FIELDS, USAGE);
  if (!read) return;
  const draft: AutoBuyDraft = { ...read.draft };
  readAmounts(ctx, draft, amounts);
  if (
    missingOrderField(ctx, draft, limits, AUTO_BUY_FIELDS) !== null &&
    (await startOrderFlow(ctx, "autobuy", draft, limits, AUTO_BUY_FIELDS, read.problem))
  )
    return;
  if (draft.maxTrx === undefined || draft.budgetTrx === undefined) return enterFlow(ctx, "autobuy", draft);
  // Every value given: the cap is checked against the balance, as the guided step checks it.
  const figures = await readFigures(ctx, draft);
  if (!figures) return;
  if (figures.balanceTrx !== null && compareTrx(draft.maxTrx, figures.balanceTrx) > 0) {
    const { maxTrx: _refused, budgetTrx: _kept, ...rest } = draft;
    return enterFlow(ctx, "autobuy", {
      ...rest,
      problem: {
        field: "max",
        message: ctx.tr("input-autobuy-max-over-balance", { balance: trxText(figures.balanceTrx, ctx.lang) }),
      },
    });
  }
  await endFlow(ctx);
  await sendAutoBuyCard(ctx, draft, figures);
}

/** Pause, Stop and Resume under an auto-buy's alert: the change, said in a toast, then the auto-buy's card. */
async function alertAction(ctx: BotContext & { callbackQuery: { data: string } }, menus: AutoBuyMenus): Promise<void> {
  const pressed = AUTO_BUY_ACTION.parse(ctx.callbackQuery.data);
  if (!pressed || !pressedButtonExists(ctx)) {
    await ctx.answerCallbackQuery({ text: ctx.tr("button-expired") });
    return;
  }
  const { db } = ctx.deps;
  const telegramId = ctx.account.telegram_id;
  const now = ctx.deps.now();
  const result =
    pressed.action === "pause"
      ? await pauseAutoBuy(db, telegramId, pressed.id, now)
      : pressed.action === "resume"
        ? await resumeAutoBuy(db, telegramId, pressed.id, now)
        : await stopAutoBuyForGood(db, telegramId, pressed.id, now);
  const toast = changeToast(ctx, result) ?? ctx.tr(`autobuy-${pressed.action}-done`);
  await ctx.answerCallbackQuery({ text: toast });
  if (result === "gone") return;
  const card = await menus.cardView(ctx, pressed.id);
  if (card) await ctx.reply(card.text, { parse_mode: "HTML", reply_markup: card.keyboard });
}

/** Auto-buy on a price alert: /autobuy with the watch's rent, address and threshold (the most per order). */
async function fromWatchAlert(ctx: BotContext & { callbackQuery: { data: string } }): Promise<void> {
  const watch = await findWatch(ctx.deps.db, ctx.account.telegram_id, WATCH_AUTO_BUY.parse(ctx.callbackQuery.data)!);
  if (!watch) {
    await ctx.answerCallbackQuery({ text: ctx.tr("watch-gone") });
    return;
  }
  await ctx.answerCallbackQuery();
  const threshold = `${sunToTrx(BigInt(watch.threshold_sun))}trx`;
  const args = [watch.resource, watch.volume, watch.duration, watch.address, threshold];
  await startAutoBuy(ctx, args.filter(Boolean).join(" "));
}

/** /autobuy and /autobuys, the buttons under auto-buy alerts and price alerts, and the card's choices. */
export function autoBuyFeature(menu: MenuActions, cards: CardKinds, menus: AutoBuyMenus): Composer<BotContext> {
  const composer = new FlatComposer<BotContext>();
  // Make it auto-buy on a watch's card (a menu, which cannot enter a flow) hands its arguments on to here.
  composer.use((ctx, next) => {
    const args = takeAutoBuyArgs(ctx);
    return args === undefined ? next() : startAutoBuy(ctx, args);
  });

  async function showList(ctx: BotContext): Promise<void> {
    await endFlow(ctx);
    const { text, keyboard } = await menus.listView(ctx);
    await ctx.reply(text, { parse_mode: "HTML", reply_markup: keyboard });
  }

  composer.command("autobuy", (ctx) => startAutoBuy(ctx, ctx.match));
  composer.command("autobuys", showList);
  menu.register("autobuy", (ctx, args = "") => startAutoBuy(ctx, args));
  menu.register("autobuys", showList);
  composer.callbackQuery(AUTO_BUY_ACTION.pattern, (ctx) => alertAction(ctx, menus));
  composer.callbackQuery(WATCH_AUTO_BUY.pattern, fromWatchAlert);
  composer.use(autoBuyCards(cards));
  return composer;
}
