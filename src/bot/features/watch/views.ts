import { MAX_WATCHES_PER_USER, WATCH_COOLDOWNS, type PriceWatch, type WatchCooldown } from "#src/db/repos/watches";
import { sunToTrx } from "#src/marketplace/money";
import type { BotContext } from "#src/bot/context";
import { durationText, timeText, trxText } from "#src/chat/format";
import { resourceAmount } from "#src/chat/market-words";
import { code } from "#src/chat/html";

export const COOLDOWNS = Object.keys(WATCH_COOLDOWNS) as WatchCooldown[];

/** The cooldown choice a watch's stored length is, if it is one the card offers. */
export function cooldownOf(watch: PriceWatch): WatchCooldown | null {
  return COOLDOWNS.find((name) => WATCH_COOLDOWNS[name] === watch.cooldown_ms) ?? null;
}

function statusText(ctx: BotContext, watch: PriceWatch): string {
  if (watch.status !== "active") return ctx.tr("watch-status-paused");
  const resting = watch.quiet_until > ctx.deps.now() || (watch.armed === 0 && watch.rearm === "above");
  return ctx.tr(resting ? "watch-status-resting" : "watch-status-active");
}

function targetText(ctx: BotContext, watch: PriceWatch): string {
  return ctx.tr(
    "watch-target",
    { duration: durationText(watch.duration, ctx.lang) },
    { amount: resourceAmount(ctx.tr, watch.resource, watch.volume, ctx.lang) },
  );
}

/** A watch's card: target, threshold, the last price seen, its state and settings (the buttons are its menu's). */
export function watchCardText(ctx: BotContext, watch: PriceWatch, note?: string): string {
  const lines = [ctx.tr("watch-card-title", { id: watch.id.slice(0, 8) }), targetText(ctx, watch)];
  if (watch.address) lines.push(ctx.tr("watch-address", {}, { value: code(watch.address) }));
  lines.push(ctx.tr("watch-threshold", { threshold: trxText(sunToTrx(BigInt(watch.threshold_sun)), ctx.lang) }));
  lines.push(
    watch.last_price_sun === null || watch.last_checked_at === null
      ? ctx.tr("watch-price-unknown")
      : ctx.tr("watch-price-now", {
          price: trxText(sunToTrx(BigInt(watch.last_price_sun)), ctx.lang),
          time: timeText(new Date(watch.last_checked_at).toISOString()),
        }),
  );
  lines.push(ctx.tr("watch-status", { value: statusText(ctx, watch) }));
  const cooldown = cooldownOf(watch);
  lines.push(
    ctx.tr("watch-cooldown", {
      value: cooldown ? ctx.tr(`watch-cooldown-${cooldown}`) : `${Math.round(watch.cooldown_ms / 60_000)} min`,
    }),
  );
  lines.push(ctx.tr(watch.rearm === "cooldown" ? "watch-rearm-cooldown" : "watch-rearm-above"));
  if (note) lines.push("", note);
  return lines.join("\n");
}

/** /watches: every watch of the user, numbered as the buttons number them. */
export function watchListText(ctx: BotContext, watches: PriceWatch[], note?: string): string {
  if (watches.length === 0) return [note, ctx.tr("watches-empty")].filter(Boolean).join("\n\n");
  const lines = [ctx.tr("watches-title", { count: String(watches.length), max: String(MAX_WATCHES_PER_USER) })];
  for (const [index, watch] of watches.entries()) {
    const last =
      watch.last_price_sun === null
        ? ""
        : ` · ${ctx.tr("watches-last", { price: trxText(sunToTrx(BigInt(watch.last_price_sun)), ctx.lang) })}`;
    lines.push(
      `${index + 1}. ${targetText(ctx, watch)} · ≤ ${trxText(sunToTrx(BigInt(watch.threshold_sun)), ctx.lang)}${last} — ${statusText(ctx, watch)}`,
    );
  }
  if (note) lines.push("", note);
  return lines.join("\n");
}
