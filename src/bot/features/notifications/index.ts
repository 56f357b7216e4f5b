import { type Composer, InlineKeyboard } from "grammy";
import { FlatComposer } from "#src/bot/middleware/flat-composer";
import { refFor, resolveRef } from "#src/db/repos/callback-refs";
import type { MarketplaceClient, Notification, NotificationPage } from "#src/marketplace/index";
import type { BotContext } from "#src/bot/context";
import { countText, timeText } from "#src/chat/format";
import { escapeHtml, MESSAGE_LIMIT, truncate } from "#src/chat/html";
import { noticeText } from "#src/chat/notices";
import { replyMarketplaceError, userClient } from "#src/bot/marketplace-access";
import type { MenuActions } from "#src/bot/context";
import { editInPlace } from "#src/bot/edit-in-place";
import { NOTIFICATION_READ, NOTIFICATIONS_PAGE, NOTIFICATIONS_READ_ALL } from "#src/chat/callback-data";
import { buttonValues } from "#src/bot/pressed-button";

/** The marketplace's fixed page size, used when a response does not say. */
const API_PAGE_SIZE = 20;
/** Longest URL shown as a link; anything longer is dropped rather than risk a refused message. */
const MAX_LINK_LENGTH = 2048;
/** Title and body limits, tried in order until the whole page fits in one message. */
const BUDGETS: ReadonlyArray<readonly [title: number, body: number]> = [
  [150, 1000],
  [120, 600],
  [100, 400],
  [100, 250],
  [80, 160],
  [60, 100],
  [50, 60],
  [40, 30],
  [30, 0],
];

const CALLBACK_PAGE = NOTIFICATIONS_PAGE.pattern;
const CALLBACK_READ = NOTIFICATION_READ.pattern;
const CALLBACK_READ_ALL = NOTIFICATIONS_READ_ALL.pattern;

/** Only http(s) links are shown: anything else (javascript:, tg:, garbage) is left out. */
export function safeLink(link: string | null): string | null {
  if (!link || link.length > MAX_LINK_LENGTH) return null;
  try {
    const url = new URL(link.trim());
    return url.protocol === "http:" || url.protocol === "https:" ? url.href : null;
  } catch {
    return null;
  }
}

/** Length of HTML text as Telegram counts it: tags removed, entities as one character. */
export function visibleLength(html: string): number {
  return html.replace(/<[^>]*>/g, "").replace(/&(?:lt|gt|amp|quot|#\d+|#x[0-9a-fA-F]+);/g, "_").length;
}

/**
 * One notification: a kind the bot knows in the reader's words (its facts dropped when the page
 * is too long for them); any other in the marketplace's own words, said to be theirs and quoted.
 */
function itemText(ctx: BotContext, item: Notification, number: number, titleMax: number, bodyMax: number): string {
  const marker = item.read ? "⚪" : "🔵";
  const time = `<i>${escapeHtml(timeText(item.createdAt))}</i>`;
  const known = noticeText({ tr: ctx.tr, language: ctx.lang }, item);
  const lines: string[] = [];
  if (known) {
    lines.push(`${marker} <b>${number}. ${known.title}</b> · ${time}`);
    if (bodyMax >= 100) lines.push(...known.lines);
  } else {
    const title = truncate(item.title.replace(/\s+/g, " ").trim(), titleMax);
    const body = bodyMax > 0 ? truncate(item.body.trim(), bodyMax) : "";
    const quoted = [`<b>${escapeHtml(title)}</b>`, ...(body ? [escapeHtml(body)] : [])].join("\n");
    lines.push(
      `${marker} <b>${number}.</b> ${time} · ${ctx.tr("notifications-quoted")}`,
      `<blockquote>${quoted}</blockquote>`,
    );
  }
  const link = safeLink(item.link);
  if (link) lines.push(ctx.tr("notifications-link", { url: link }));
  return lines.join("\n");
}

function pageCount(list: NotificationPage): number {
  const size = list.pageSize > 0 ? list.pageSize : API_PAGE_SIZE;
  return Math.max(1, Math.ceil(list.total / size));
}

/** The page as one message that always fits Telegram's 4096 characters: bodies (then titles) are shortened until it does. */
export function notificationsText(ctx: BotContext, list: NotificationPage): string {
  const page = Math.max(1, list.page);
  const header = ctx.tr("notifications-title", {
    unread: countText(list.unread, ctx.lang),
    page: countText(page, ctx.lang),
    pages: countText(pageCount(list), ctx.lang),
    total: countText(list.total, ctx.lang),
  });
  if (list.items.length === 0) return [header, "", ctx.tr("notifications-empty")].join("\n");
  let text = "";
  for (const [titleMax, bodyMax] of BUDGETS) {
    const items = list.items.map((item, index) => itemText(ctx, item, index + 1, titleMax, bodyMax));
    text = [header, ctx.tr("notifications-legend"), "", items.join("\n\n")].join("\n");
    if (visibleLength(text) <= MESSAGE_LIMIT) return text;
  }
  // More items than any budget allows (the API pages by 20, so only a misbehaving one): keep what fits.
  const items: string[] = [];
  for (const [index, item] of list.items.entries()) {
    const next = itemText(ctx, item, index + 1, 30, 0);
    if (visibleLength([header, "", ...items, next].join("\n\n")) > MESSAGE_LIMIT - 10) break;
    items.push(next);
  }
  return [header, "", items.join("\n\n")].join("\n");
}

async function notificationsKeyboard(ctx: BotContext, list: NotificationPage): Promise<InlineKeyboard> {
  const page = Math.max(1, list.page);
  const keyboard = new InlineKeyboard();
  let inRow = 0;
  for (const [index, item] of list.items.entries()) {
    if (item.read) continue;
    if (inRow === 3) {
      keyboard.row();
      inRow = 0;
    }
    const ref = await refFor(ctx.deps.db, ctx.account.telegram_id, item.id, ctx.deps.now());
    keyboard.text(ctx.tr("button-mark-read", { n: String(index + 1) }), NOTIFICATION_READ.data(ref, page));
    inRow += 1;
  }
  keyboard.row();
  if (page > 1) keyboard.text(ctx.tr("button-prev"), NOTIFICATIONS_PAGE.data(page - 1));
  if (page < pageCount(list)) keyboard.text(ctx.tr("button-next"), NOTIFICATIONS_PAGE.data(page + 1));
  keyboard.row();
  if (list.unread > 0) keyboard.text(ctx.tr("button-mark-all-read"), NOTIFICATIONS_READ_ALL.data(page));
  keyboard.text(ctx.tr("button-refresh"), NOTIFICATIONS_PAGE.data(page));
  return keyboard;
}

async function fetchPage(client: MarketplaceClient, page: number): Promise<NotificationPage> {
  const list = await client.notifications({ page });
  const pages = pageCount(list);
  // An old button for a page that no longer exists: show the last one instead.
  if (list.items.length === 0 && page > pages) return client.notifications({ page: pages });
  return list;
}

/** /notifications: newest first, 20 a page, the unread count; Mark read per item and Mark all read, edited in place. */
export function notificationsFeature(menu: MenuActions): Composer<BotContext> {
  const composer = new FlatComposer<BotContext>();

  async function view(
    ctx: BotContext,
    client: MarketplaceClient,
    page: number,
  ): Promise<{ text: string; keyboard: InlineKeyboard } | null> {
    try {
      const list = await fetchPage(client, page);
      return { text: notificationsText(ctx, list), keyboard: await notificationsKeyboard(ctx, list) };
    } catch (error) {
      await replyMarketplaceError(ctx, error, { read: true });
      return null;
    }
  }

  async function edit(ctx: BotContext, shown: { text: string; keyboard: InlineKeyboard }): Promise<void> {
    await editInPlace(ctx, shown.text, shown.keyboard);
  }

  async function showNotifications(ctx: BotContext): Promise<void> {
    const client = await userClient(ctx);
    if (!client) return;
    const shown = await view(ctx, client, 1);
    if (shown)
      await ctx.reply(shown.text, {
        parse_mode: "HTML",
        reply_markup: shown.keyboard,
        link_preview_options: { is_disabled: true },
      });
  }

  composer.command("notifications", showNotifications);
  menu.register("notifications", showNotifications);

  composer.callbackQuery(CALLBACK_PAGE, async (ctx) => {
    await ctx.answerCallbackQuery();
    const client = await userClient(ctx);
    if (!client) return;
    const shown = await view(ctx, client, Math.max(1, buttonValues(ctx, NOTIFICATIONS_PAGE)));
    if (shown) await edit(ctx, shown);
  });

  composer.callbackQuery(CALLBACK_READ, async (ctx) => {
    const read = buttonValues(ctx, NOTIFICATION_READ);
    const id = await resolveRef(ctx.deps.db, ctx.account.telegram_id, read.ref);
    if (!id) {
      await ctx.answerCallbackQuery({ text: ctx.tr("button-expired") });
      return;
    }
    await markThenRedraw(ctx, (client) => client.readNotification(id), "notifications-marked", read.page);
  });

  composer.callbackQuery(CALLBACK_READ_ALL, (ctx) =>
    markThenRedraw(
      ctx,
      (client) => client.readAllNotifications(),
      "notifications-all-marked",
      buttonValues(ctx, NOTIFICATIONS_READ_ALL),
    ),
  );

  /** Mark read (one or all), then the page the button was on drawn again. */
  async function markThenRedraw(
    ctx: BotContext,
    mark: (client: MarketplaceClient) => Promise<unknown>,
    doneKey: string,
    page: number,
  ): Promise<void> {
    const client = await userClient(ctx);
    if (!client) {
      await ctx.answerCallbackQuery();
      return;
    }
    try {
      await mark(client);
    } catch (error) {
      await ctx.answerCallbackQuery();
      // A POST: its 403 is about this write (scope, limits), not a key that lost access.
      await replyMarketplaceError(ctx, error, { read: false });
      return;
    }
    await ctx.answerCallbackQuery({ text: ctx.tr(doneKey) });
    const shown = await view(ctx, client, Math.max(1, page));
    if (shown) await edit(ctx, shown);
  }

  return composer;
}
