import { Menu, type MenuFlavor } from "@grammyjs/menu";
import type { Context } from "grammy";
import { AUTO_BUY_VIEW, MENU_IDS } from "#src/chat/callback-data";
import { canResume, deleteAutoBuy, findAutoBuy, listAutoBuys, type AutoBuy } from "#src/db/repos/auto-buys";
import { pauseAutoBuy, resumeAutoBuy, type AutoBuyChange } from "#src/db/repos/auto-buy-changes";
import { lastAutoBuyOrders, spentOn } from "#src/db/repos/auto-buy-orders";
import { utcDay } from "#src/db/utc-day";
import type { BotContext } from "#src/bot/context";
import { editInPlace } from "#src/bot/edit-in-place";
import { autoBuyCardView, autoBuyListText, type AutoBuyShown } from "./views";

type MenuContext = BotContext & MenuFlavor;

/** The menus of auto-buys: /autobuys and an auto-buy's card. */
export interface AutoBuyMenus {
  /** The root: install it before the features (its middleware serves the card too). */
  list: Menu<BotContext>;
  /** The user's auto-buys (text and menu) for the message being sent or edited in this update. */
  listView(ctx: BotContext, note?: string): Promise<{ text: string; keyboard: Menu<BotContext> }>;
  /** An auto-buy's card (text and menu), or null when the user has no such auto-buy. */
  cardView(ctx: BotContext, id: string, note?: string): Promise<{ text: string; keyboard: Menu<BotContext> } | null>;
}

/** How many of its last orders an auto-buy's card shows. */
const LAST_ORDERS = 5;

function payloadOf(ctx: BotContext): string {
  return typeof ctx.match === "string" ? ctx.match : "";
}

/** What a card shows that a press may find changed: its state. */
function cardFingerprint(autoBuy: AutoBuy): string {
  return `autobuy:${autoBuy.id}|${autoBuy.status}|${autoBuy.reason ?? ""}`;
}

function listFingerprint(autoBuys: AutoBuy[]): string {
  return `list:${autoBuys.map((autoBuy) => `${autoBuy.id}=${autoBuy.status}`).join(",")}`;
}

interface MenuSet {
  drawn: WeakMap<Context, { autoBuys?: AutoBuy[]; autoBuy?: AutoBuy | null }>;
  list: Menu<BotContext>;
  card: Menu<BotContext>;
}

/**
 * /autobuys and an auto-buy's card on @grammyjs/menu, as /watches: every button's payload is the
 * auto-buy's id, each menu's fingerprint the state it shows, read at the press, so a press on an
 * outdated menu changes nothing and redraws it as it is.
 */
export function autoBuyMenus(): AutoBuyMenus {
  const menus: MenuSet = {
    drawn: new WeakMap(),
    list: new Menu<BotContext>(MENU_IDS.autoBuys, {
      autoAnswer: false,
      fingerprint: async (ctx) => listFingerprint(await autoBuysShown(menus, ctx)),
      onMenuOutdated: async (ctx) => {
        await ctx.answerCallbackQuery({ text: ctx.tr("autobuys-toast-changed") });
        await showList(menus, ctx);
      },
    }),
    card: new Menu<BotContext>(MENU_IDS.autoBuy, {
      autoAnswer: false,
      fingerprint: async (ctx) => {
        const autoBuy = await autoBuyShown(menus, ctx);
        return autoBuy ? cardFingerprint(autoBuy) : "none";
      },
      onMenuOutdated: async (ctx) => {
        const autoBuy = await autoBuyShown(menus, ctx);
        await ctx.answerCallbackQuery({ text: ctx.tr(autoBuy ? "autobuys-toast-changed" : "autobuy-gone") });
        if (autoBuy) await showCard(menus, ctx, autoBuy.id);
        else await showList(menus, ctx);
      },
    }),
  };
  drawList(menus);
  drawCard(menus);
  menus.list.register(menus.card);
  return {
    list: menus.list,
    listView: (ctx, note) => listView(menus, ctx, note),
    cardView: (ctx, id, note) => cardView(menus, ctx, id, note),
  };
}

function drawing(menus: MenuSet, ctx: BotContext) {
  let entry = menus.drawn.get(ctx);
  if (!entry) menus.drawn.set(ctx, (entry = {}));
  return entry;
}

async function autoBuysShown(menus: MenuSet, ctx: BotContext): Promise<AutoBuy[]> {
  const entry = drawing(menus, ctx);
  entry.autoBuys ??= await listAutoBuys(ctx.deps.db, ctx.account.telegram_id);
  return entry.autoBuys;
}

async function autoBuyShown(menus: MenuSet, ctx: BotContext): Promise<AutoBuy | null> {
  const entry = drawing(menus, ctx);
  if (entry.autoBuy === undefined) {
    const id = payloadOf(ctx);
    entry.autoBuy =
      AUTO_BUY_VIEW.parse(id) !== null ? await findAutoBuy(ctx.deps.db, ctx.account.telegram_id, id) : null;
  }
  return entry.autoBuy;
}

/** Each auto-buy with what is left of its budget today (UTC day). */
async function withBudgetLeft(ctx: BotContext, autoBuys: AutoBuy[]): Promise<AutoBuyShown[]> {
  const spent = await spentOn(
    ctx.deps.db,
    autoBuys.map((autoBuy) => autoBuy.id),
    utcDay(ctx.deps.now()),
  );
  return autoBuys.map((autoBuy) => {
    const left = BigInt(autoBuy.daily_budget_sun) - (spent.get(autoBuy.id) ?? 0n);
    return { autoBuy, leftTodaySun: left > 0n ? left : 0n };
  });
}

async function listView(menus: MenuSet, ctx: BotContext, note?: string) {
  const autoBuys = await listAutoBuys(ctx.deps.db, ctx.account.telegram_id);
  drawing(menus, ctx).autoBuys = autoBuys;
  return { text: autoBuyListText(ctx, await withBudgetLeft(ctx, autoBuys), note), keyboard: menus.list };
}

async function cardView(menus: MenuSet, ctx: BotContext, id: string, note?: string) {
  const autoBuy = await findAutoBuy(ctx.deps.db, ctx.account.telegram_id, id);
  if (!autoBuy) return null;
  drawing(menus, ctx).autoBuy = autoBuy;
  const [shown] = await withBudgetLeft(ctx, [autoBuy]);
  const orders = await lastAutoBuyOrders(ctx.deps.db, autoBuy.id, LAST_ORDERS);
  return { text: autoBuyCardView(ctx, shown!, orders, note), keyboard: menus.card };
}

async function showList(menus: MenuSet, ctx: BotContext, note?: string): Promise<void> {
  const shown = await listView(menus, ctx, note);
  await editInPlace(ctx, shown.text, shown.keyboard);
}

async function showCard(menus: MenuSet, ctx: BotContext, id: string, note?: string): Promise<void> {
  const shown = await cardView(menus, ctx, id, note);
  if (!shown) return showList(menus, ctx, ctx.tr("autobuy-gone"));
  await editInPlace(ctx, shown.text, shown.keyboard);
}

/** The words a Pause, Resume or Delete gets: a toast for what did not happen, a note for what did. */
export function changeToast(ctx: BotContext, change: AutoBuyChange): string | null {
  switch (change) {
    case "gone":
      return ctx.tr("autobuy-gone");
    case "switch-off":
      return ctx.tr("autobuy-switch-off-toast");
    case "no-key":
      return ctx.tr("autobuy-no-key-toast");
    case "ended":
      return ctx.tr("autobuy-ended-toast");
    case "unchanged":
      return ctx.tr("autobuys-toast-changed");
    default:
      return null;
  }
}

/** Applies a change to the pressed auto-buy, then redraws `then`; a refusal is said in a toast. */
function change(
  menus: MenuSet,
  apply: (ctx: BotContext, id: string) => Promise<AutoBuyChange>,
  then: "card" | "list",
  note?: (ctx: BotContext, id: string) => string,
) {
  return async (ctx: MenuContext) => {
    const id = payloadOf(ctx);
    const result = AUTO_BUY_VIEW.parse(id) === null ? "gone" : await apply(ctx, id);
    const toast = changeToast(ctx, result);
    await ctx.answerCallbackQuery(toast ? { text: toast } : {});
    if (result === "gone" || then === "list")
      return showList(menus, ctx, result === "done" ? note?.(ctx, id) : undefined);
    return showCard(menus, ctx, id);
  };
}

const pause = (ctx: BotContext, id: string) => pauseAutoBuy(ctx.deps.db, ctx.account.telegram_id, id, ctx.deps.now());
const resume = (ctx: BotContext, id: string) => resumeAutoBuy(ctx.deps.db, ctx.account.telegram_id, id, ctx.deps.now());
const remove = async (ctx: BotContext, id: string): Promise<AutoBuyChange> =>
  (await deleteAutoBuy(ctx.deps.db, ctx.account.telegram_id, id)) ? "done" : "gone";
const deleted = (ctx: BotContext, id: string) => ctx.tr("autobuy-deleted", { id: id.slice(0, 8) });

/** The button that fits the state: Pause while it buys or waits, Resume while it may be resumed, none after its end. */
function pauseOrResume(ctx: BotContext, autoBuy: AutoBuy, label: (key: string) => string) {
  if (autoBuy.status === "active" || autoBuy.status === "waiting") return { text: label("pause"), apply: pause };
  if (canResume(autoBuy, ctx.deps.now())) return { text: label("resume"), apply: resume };
  return null;
}

/** /autobuys: per auto-buy, Open, Pause or Resume, and Delete. */
function drawList(menus: MenuSet): void {
  menus.list.dynamic(async (ctx, range) => {
    for (const [index, autoBuy] of (await autoBuysShown(menus, ctx)).entries()) {
      const n = String(index + 1);
      const payload = AUTO_BUY_VIEW.data(autoBuy.id);
      range.text({ text: ctx.tr("button-autobuy-open", { n }), payload }, async (pressed) => {
        await pressed.answerCallbackQuery();
        await showCard(menus, pressed, payloadOf(pressed));
      });
      const toggle = pauseOrResume(ctx, autoBuy, (key) => ctx.tr(`button-autobuy-${key}`, { n }));
      if (toggle) range.text({ text: toggle.text, payload }, change(menus, toggle.apply, "list"));
      range
        .text({ text: ctx.tr("button-autobuy-delete", { n }), payload }, change(menus, remove, "list", deleted))
        .danger()
        .row();
    }
  });
}

/** An auto-buy's card: Pause or Resume, Delete, back to /autobuys. */
function drawCard(menus: MenuSet): void {
  menus.card.dynamic(async (ctx, range) => {
    const autoBuy = await autoBuyShown(menus, ctx);
    if (!autoBuy) return;
    const payload = AUTO_BUY_VIEW.data(autoBuy.id);
    const toggle = pauseOrResume(ctx, autoBuy, (key) => ctx.tr(`button-${key}`));
    if (toggle) {
      const button = range.text({ text: toggle.text, payload }, change(menus, toggle.apply, "card"));
      if (toggle.apply === resume) button.success();
    }
    range
      .text({ text: ctx.tr("button-delete"), payload }, change(menus, remove, "list", deleted))
      .danger()
      .row();
    range.text({ text: ctx.tr("button-autobuys"), payload }, async (pressed) => {
      await pressed.answerCallbackQuery();
      await showList(menus, pressed);
    });
  });
}
