import type { Context } from "grammy";
import { autoBuyingEnabled, setAutoBuying } from "#src/db/repos/auto-buy-changes";
import type { Translate } from "#src/chat/i18n";
import type { BotContext } from "#src/bot/context";

// /settings' Automatic buying switch: off stops every auto-buy of the user at once and stays off
// until turned on; on resumes none by itself (each is resumed in /autobuys).

/** The switch as the card drawn in this update shows it (read once per update, again after a change). */
const shown = new WeakMap<Context, boolean>();

export async function autoBuyingShown(ctx: BotContext): Promise<boolean> {
  const known = shown.get(ctx);
  if (known !== undefined) return known;
  const on = await autoBuyingEnabled(ctx.deps.db, ctx.account.telegram_id);
  shown.set(ctx, on);
  return on;
}

/** The card's lines about the switch. */
export function autoBuyingLines(tr: Translate, on: boolean): string[] {
  return [
    "",
    `${on ? "🤖" : "⛔"} ${tr("settings-autobuying", { state: tr(on ? "state-on" : "state-off") })}`,
    tr(on ? "settings-autobuying-on" : "settings-autobuying-off"),
  ];
}

/** The button's words: what the switch is now. */
export function autoBuyingButton(tr: Translate, on: boolean): string {
  return `${on ? "🤖" : "⛔"} ${tr("settings-autobuying", { state: tr(on ? "state-on" : "state-off") })}`;
}

/** A tap on the switch: the state it names ("on" or "off"). False for anything else. */
export async function applyAutoBuying(ctx: BotContext, value: string, now: number): Promise<boolean> {
  if (value !== "on" && value !== "off") return false;
  const paused = await setAutoBuying(ctx.deps.db, ctx.account.telegram_id, value === "on", now);
  shown.set(ctx, value === "on");
  ctx.deps.logger.info(
    { userId: ctx.account.telegram_id, on: value === "on", paused: paused.length },
    "Automatic buying switched",
  );
  return true;
}
