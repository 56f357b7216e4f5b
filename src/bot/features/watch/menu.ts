import { Menu, type MenuFlavor } from "@grammyjs/menu";
import type { Context } from "grammy";
import { MENU_IDS, WATCH_VIEW } from "#src/chat/callback-data";
import {
  deleteWatch,
  findWatch,
  listWatches,
  setWatchCooldown,
  setWatchRearm,
  setWatchStatus,
  type PriceWatch,
  type WatchCooldown,
} from "#src/db/repos/watches";
import type { BotContext } from "#src/bot/context";
import type { NextFunction } from "grammy";
import { autoBuyAfterMenu } from "../autobuy/after-menu";
import { sunToTrx } from "#src/marketplace/money";
import { editInPlace } from "#src/bot/edit-in-place";
import { COOLDOWNS, cooldownOf, watchCardText, watchListText } from "./views";

type MenuContext = BotContext & MenuFlavor;

/** The menus of price watches: /watches and a watch's card. */
export interface WatchMenus {
  /** The root: install it before the features (its middleware serves the card too). */
  list: Menu<BotContext>;
  /** A watch's card (text and menu) for the message being sent or edited in this update. */
  cardView(ctx: BotContext, watch: PriceWatch, note?: string): { text: string; keyboard: Menu<BotContext> };
  /** The user's watches (text and menu) for the message being sent or edited in this update. */
  listView(ctx: BotContext, watches: PriceWatch[], note?: string): { text: string; keyboard: Menu<BotContext> };
}

function payloadOf(ctx: BotContext): string {
  return typeof ctx.match === "string" ? ctx.match : "";
}

/** What a card shows that a press may find changed: its state and settings. */
function cardFingerprint(watch: PriceWatch): string {
  return `watch:${watch.id}|${watch.status}|${watch.cooldown_ms}|${watch.rearm}`;
}

/** Which watches the list shows and in which state (their buttons say Pause or Resume). */
function listFingerprint(watches: PriceWatch[]): string {
  return `list:${watches.map((watch) => `${watch.id}=${watch.status}`).join(",")}`;
}

/** The two menus and what each update draws on them (set before a menu is sent or edited, or read at a press). */
interface WatchMenuSet {
  drawn: WeakMap<Context, { watches?: PriceWatch[]; watch?: PriceWatch | null }>;
  list: Menu<BotContext>;
  card: Menu<BotContext>;
}

/**
 * /watches and a watch's card on @grammyjs/menu. Every button's payload is the watch's id, and
 * each menu's fingerprint is the state it shows, read from the database at the press: a press on
 * an outdated menu (changed from another card, or deleted) changes nothing and redraws it as it is.
 */
export function watchMenus(): WatchMenus {
  const menus: WatchMenuSet = {
    drawn: new WeakMap(),
    list: new Menu<BotContext>(MENU_IDS.watches, {
      autoAnswer: false,
      fingerprint: async (ctx) => listFingerprint(await watchesShown(menus, ctx)),
      onMenuOutdated: async (ctx) => {
        await ctx.answerCallbackQuery({ text: ctx.tr("watches-toast-changed") });
        await showList(menus, ctx);
      },
    }),
    card: new Menu<BotContext>(MENU_IDS.watch, {
      autoAnswer: false,
      fingerprint: async (ctx) => {
        const watch = await watchShown(menus, ctx);
        return watch ? cardFingerprint(watch) : "none";
      },
      onMenuOutdated: async (ctx) => {
        const watch = await watchShown(menus, ctx);
        await ctx.answerCallbackQuery({ text: ctx.tr(watch ? "watches-toast-changed" : "watch-gone") });
        if (watch) await showCard(menus, ctx, watch.id);
        else await showList(menus, ctx);
      },
    }),
  };
  drawListMenu(menus);
  drawCardMenu(menus);
  menus.list.register(menus.card);
  return {
    list: menus.list,
    cardView: (ctx, watch, note) => cardView(menus, ctx, watch, note),
    listView: (ctx, watches, note) => listView(menus, ctx, watches, note),
  };
}

function drawing(menus: WatchMenuSet, ctx: BotContext): { watches?: PriceWatch[]; watch?: PriceWatch | null } {
  let entry = menus.drawn.get(ctx);
  if (!entry) menus.drawn.set(ctx, (entry = {}));
  return entry;
}

async function watchesShown(menus: WatchMenuSet, ctx: BotContext): Promise<PriceWatch[]> {
  const entry = drawing(menus, ctx);
  entry.watches ??= await listWatches(ctx.deps.db, ctx.account.telegram_id);
  return entry.watches;
}

/** The watch a card shows: the one being drawn, or at a press the one its payload names, as it is now. */
async function watchShown(menus: WatchMenuSet, ctx: BotContext): Promise<PriceWatch | null> {
  const entry = drawing(menus, ctx);
  if (entry.watch === undefined) {
    const id = payloadOf(ctx);
    entry.watch = WATCH_VIEW.parse(id) !== null ? await findWatch(ctx.deps.db, ctx.account.telegram_id, id) : null;
  }
  return entry.watch;
}

function cardView(menus: WatchMenuSet, ctx: BotContext, watch: PriceWatch, note?: string) {
  drawing(menus, ctx).watch = watch;
  return { text: watchCardText(ctx, watch, note), keyboard: menus.card };
}

function listView(menus: WatchMenuSet, ctx: BotContext, watches: PriceWatch[], note?: string) {
  drawing(menus, ctx).watches = watches;
  return { text: watchListText(ctx, watches, note), keyboard: menus.list };
}

async function showList(menus: WatchMenuSet, ctx: BotContext, note?: string): Promise<void> {
  const shown = listView(menus, ctx, await listWatches(ctx.deps.db, ctx.account.telegram_id), note);
  await editInPlace(ctx, shown.text, shown.keyboard);
}

async function showCard(menus: WatchMenuSet, ctx: BotContext, id: string, note?: string): Promise<void> {
  const watch = await findWatch(ctx.deps.db, ctx.account.telegram_id, id);
  if (!watch) return showList(menus, ctx, ctx.tr("watch-gone"));
  const shown = cardView(menus, ctx, watch, note);
  await editInPlace(ctx, shown.text, shown.keyboard);
}

/** Applies a change to the pressed watch, then redraws `then`: the card or the list. A watch that is gone says so. */
function change(
  menus: WatchMenuSet,
  apply: (ctx: BotContext, id: string) => Promise<boolean>,
  then: "card" | "list",
  note?: (ctx: BotContext, id: string) => string,
) {
  return async (ctx: MenuContext) => {
    const id = payloadOf(ctx);
    if (WATCH_VIEW.parse(id) === null || !(await apply(ctx, id))) {
      await ctx.answerCallbackQuery({ text: ctx.tr("watch-gone") });
      return showList(menus, ctx);
    }
    await ctx.answerCallbackQuery();
    if (then === "list") return showList(menus, ctx, note?.(ctx, id));
    return showCard(menus, ctx, id, note?.(ctx, id));
  };
}

const pause = (ctx: BotContext, id: string) =>
  setWatchStatus(ctx.deps.db, ctx.account.telegram_id, id, "paused", ctx.deps.now());
const resume = (ctx: BotContext, id: string) =>
  setWatchStatus(ctx.deps.db, ctx.account.telegram_id, id, "active", ctx.deps.now());
const remove = (ctx: BotContext, id: string) => deleteWatch(ctx.deps.db, ctx.account.telegram_id, id);
const deleted = (ctx: BotContext, id: string) => ctx.tr("watch-deleted", { id: id.slice(0, 8) });
const cooldown = (name: WatchCooldown) => (ctx: BotContext, id: string) =>
  setWatchCooldown(ctx.deps.db, ctx.account.telegram_id, id, name, ctx.deps.now());
const toggleRearm = async (ctx: BotContext, id: string) => {
  const watch = await findWatch(ctx.deps.db, ctx.account.telegram_id, id);
  return (
    watch !== null &&
    setWatchRearm(
      ctx.deps.db,
      ctx.account.telegram_id,
      id,
      watch.rearm === "cooldown" ? "above" : "cooldown",
      ctx.deps.now(),
    )
  );
};

/** /watches: per watch, Open, Pause or Resume, and Delete. */
function drawListMenu(menus: WatchMenuSet): void {
  menus.list.dynamic(async (ctx, range) => {
    for (const [index, watch] of (await watchesShown(menus, ctx)).entries()) {
      const n = String(index + 1);
      const payload = WATCH_VIEW.data(watch.id);
      range.text({ text: ctx.tr("button-watch-open", { n }), payload }, async (pressed) => {
        await pressed.answerCallbackQuery();
        await showCard(menus, pressed, payloadOf(pressed));
      });
      if (watch.status === "active")
        range.text({ text: ctx.tr("button-watch-pause", { n }), payload }, change(menus, pause, "list"));
      else range.text({ text: ctx.tr("button-watch-resume", { n }), payload }, change(menus, resume, "list"));
      range
        .text({ text: ctx.tr("button-watch-delete", { n }), payload }, change(menus, remove, "list", deleted))
        .danger()
        .row();
    }
  });
}

/**
 * Make it auto-buy: /autobuy with the watch's rent, address and threshold (as the most per order),
 * asking what is missing and ending at the auto-buy's confirmation card (handed on to the auto-buy
 * feature, which can enter its flow). Nothing is made before that card's Confirm.
 */
async function makeAutoBuy(menus: WatchMenuSet, ctx: MenuContext, next: NextFunction): Promise<void> {
  const watch = await watchShown(menus, ctx);
  if (!watch) {
    await ctx.answerCallbackQuery({ text: ctx.tr("watch-gone") });
    return;
  }
  await ctx.answerCallbackQuery();
  const threshold = `${sunToTrx(BigInt(watch.threshold_sun))}trx`;
  const args = [watch.resource, watch.volume, watch.duration, watch.address, threshold];
  await autoBuyAfterMenu(ctx, args.filter(Boolean).join(" "), next);
}

/** A watch's card: Pause or Resume, Delete, the cooldowns, the re-arm rule, Make it auto-buy, back to /watches. */
function drawCardMenu(menus: WatchMenuSet): void {
  menus.card.dynamic(async (ctx, range) => {
    const watch = await watchShown(menus, ctx);
    if (!watch) return;
    const payload = WATCH_VIEW.data(watch.id);
    if (watch.status === "active") range.text({ text: ctx.tr("button-pause"), payload }, change(menus, pause, "card"));
    else range.text({ text: ctx.tr("button-resume"), payload }, change(menus, resume, "card"));
    range
      .text({ text: ctx.tr("button-delete"), payload }, change(menus, remove, "list", deleted))
      .danger()
      .row();
    const current = cooldownOf(watch);
    for (const name of COOLDOWNS)
      range.text(
        { text: `${name === current ? "✅ " : ""}${ctx.tr(`watch-cooldown-${name}`)}`, payload },
        change(menus, cooldown(name), "card"),
      );
    range.row().text(
      {
        text: ctx.tr(watch.rearm === "cooldown" ? "button-watch-rearm-above" : "button-watch-rearm-cooldown"),
        payload,
      },
      change(menus, toggleRearm, "card"),
    );
    range
      .row()
      .text({ text: ctx.tr("button-make-autobuy"), payload }, (pressed, next) => makeAutoBuy(menus, pressed, next));
    range.row().text({ text: ctx.tr("button-watches"), payload }, async (pressed) => {
      await pressed.answerCallbackQuery();
      await showList(menus, pressed);
    });
  });
}
