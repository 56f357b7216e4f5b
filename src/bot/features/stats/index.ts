import { type Composer, type InlineKeyboard, InputFile } from "grammy";
import { FlatComposer } from "#src/bot/middleware/flat-composer";
import { labelledAddresses } from "#src/db/repos/addresses";
import { findCredential } from "#src/db/repos/credentials";
import type { BotContext } from "#src/bot/context";
import { editInPlace } from "#src/bot/edit-in-place";
import { replyMarketplaceError, userClient } from "#src/bot/marketplace-access";
import type { MenuActions } from "#src/bot/context";
import { SpendingCache, STATS_FRESH_MS } from "#src/reports/cache";
import { collectSpending } from "#src/reports/collect";
import { buildSpendingReport, windowKeyboard, type SpendingReport } from "#src/reports/report";
import { knownZone, lastDays } from "#src/reports/time-zones";
import { STATS_WINDOW } from "#src/chat/callback-data";
import { buttonValues } from "#src/bot/pressed-button";

/** The longest window offered; one read of it serves both buttons. */
const READ_DAYS = 30;

type Shown = { report: SpendingReport; keyboard: InlineKeyboard; days: 7 | 30 };

/**
 * /stats: TRX spent per day over the last 7 or 30 days as a chart (a photo) stacked by source,
 * with the figures as its caption. /stats reads 30 days from the marketplace and keeps them a few
 * minutes, so the 7/30 switch redraws from memory and edits the same message; a /stats within
 * STATS_FRESH_MS of the read shows the same records without asking the marketplace again.
 */
export function statsFeature(menu: MenuActions): Composer<BotContext> {
  const composer = new FlatComposer<BotContext>();
  const cache = new SpendingCache();

  /** `fresh`: a /stats command reads again unless it read a minute ago; the 7/30 switch reuses that read for a few minutes. */
  async function load(ctx: BotContext, days: 7 | 30, fresh: boolean): Promise<Shown | null> {
    const client = await userClient(ctx);
    if (!client) return null;
    const credential = await findCredential(ctx.deps.db, ctx.account.telegram_id);
    const identity = `${credential?.last4 ?? ""}:${credential?.linked_at ?? 0}`;
    const timeZone = knownZone(ctx.account.digest_time_zone);
    const now = ctx.deps.now();
    const readWindow = lastDays(timeZone, READ_DAYS, now);
    let records = cache.get(
      ctx.account.telegram_id,
      identity,
      readWindow.from,
      now,
      fresh ? STATS_FRESH_MS : undefined,
    );
    if (records && fresh) ctx.deps.metrics.publicWorkLimited.inc({ limit: "stats_reused" });
    if (!records) {
      await ctx.replyWithChatAction("upload_photo").catch(() => undefined);
      try {
        records = await collectSpending(client, readWindow.from, now);
      } catch (error) {
        await replyMarketplaceError(ctx, error, { read: true });
        return null;
      }
      cache.set(ctx.account.telegram_id, identity, records);
      ctx.deps.logger.debug(
        { userId: ctx.account.telegram_id, requests: records.requests, gaps: records.gaps },
        "spending read from the marketplace for /stats",
      );
    }
    const report = await buildSpendingReport({
      tr: ctx.tr,
      lang: ctx.lang,
      records,
      window: lastDays(timeZone, days, now),
      heading: ctx.tr("stats-title", { days: String(days) }),
      period: ctx.tr("stats-period", { days: String(days) }),
      addressLabels: await labelledAddresses(ctx.deps.db, ctx.account.telegram_id),
      onChartWait: () => ctx.deps.metrics.publicWorkLimited.inc({ limit: "chart_waited" }),
    });
    return { report, keyboard: windowKeyboard(ctx.tr, days), days };
  }

  async function send(ctx: BotContext, shown: Shown): Promise<void> {
    const { report, keyboard } = shown;
    if (report.kind === "text") await ctx.reply(report.text, { parse_mode: "HTML", reply_markup: keyboard });
    else
      await ctx.replyWithPhoto(new InputFile(report.png, `spending-${shown.days}d.png`), {
        caption: report.caption,
        parse_mode: "HTML",
        reply_markup: keyboard,
      });
  }

  async function showStats(ctx: BotContext): Promise<void> {
    const shown = await load(ctx, 7, true);
    if (shown) await send(ctx, shown);
  }

  composer.command("stats", showStats);
  menu.register("stats", showStats);

  composer.callbackQuery(STATS_WINDOW.pattern, async (ctx) => {
    await ctx.answerCallbackQuery();
    const shown = await load(ctx, buttonValues(ctx, STATS_WINDOW), false);
    if (!shown) return;
    const message = ctx.callbackQuery.message;
    const showsPhoto = Boolean(message && "photo" in message && message.photo);
    const { report, keyboard } = shown;
    if (report.kind === "chart" && showsPhoto) {
      await ctx.editMessageMedia(
        {
          type: "photo",
          media: new InputFile(report.png, `spending-${shown.days}d.png`),
          caption: report.caption,
          parse_mode: "HTML",
        },
        { reply_markup: keyboard },
      );
    } else if (report.kind === "text" && !showsPhoto) {
      await editInPlace(ctx, report.text, keyboard);
    } else {
      // Telegram turns neither a text into a photo nor a photo into a text: the view is replaced.
      await ctx.deleteMessage().catch(() => undefined);
      await send(ctx, shown);
    }
  });

  return composer;
}
