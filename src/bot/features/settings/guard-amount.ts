import type { Context } from "grammy";
import type { BotContext } from "#src/bot/context";
import { answer, markAsked, sendQuestion, type AnswerButton, type Checked, type Guided } from "#src/bot/guided/steps";
import { trxText } from "#src/chat/format";
import { truncate } from "#src/chat/html";
import { findGuardSettings, updateGuardSettings } from "#src/db/repos/guard-settings";
import { MAX_TRX_LIMIT_SUN, parseTrxLimit } from "#src/input/trx-limit";
import { sunToTrx } from "#src/marketplace/money";

/*
 * The two amounts of the spend guard, typed by the user: Ask again above and the daily cap. Asked
 * by a one-step guided flow (the /settings buttons) or given on one line (/settings ask 100,
 * /settings cap off). A bad amount is explained and changes nothing.
 */

export type GuardAmount = "ask" | "cap";

/** A typed amount read: the sun it sets (null: off), or why not (HTML). */
export type AmountRead = { ok: true; sun: bigint | null } | { ok: false; message: string };

/** Reads an amount as the user typed it: "100", "250.5", "250,5" (ru), "100 TRX", or off in any shipped language ("off", "выкл", "关闭"). */
export function readGuardAmount(ctx: BotContext, input: string): AmountRead {
  const text = input.trim();
  if (/^(?:off|выкл|выключить|отключить|关|关闭)$/i.test(text)) return { ok: true, sun: null };
  if (/^[-−]\s*\d/.test(text)) return { ok: false, message: ctx.tr("guard-amount-negative") };
  const read = parseTrxLimit(text, { decimalComma: ctx.lang === "ru" });
  if (read.ok) return { ok: true, sun: read.sun };
  const max = trxText(sunToTrx(MAX_TRX_LIMIT_SUN), ctx.lang);
  if (read.reason === "zero") return { ok: false, message: ctx.tr("guard-amount-zero") };
  if (read.reason === "precision") return { ok: false, message: ctx.tr("guard-amount-precision") };
  if (read.reason === "high") return { ok: false, message: ctx.tr("guard-amount-high", { max }) };
  return { ok: false, message: ctx.tr("guard-amount-format", { input: truncate(text, 40) }) };
}

/** Stores the amount and says what it now is. */
export async function saveGuardAmount(ctx: BotContext, which: GuardAmount, sun: bigint | null): Promise<void> {
  await updateGuardSettings(
    ctx.deps.db,
    ctx.account.telegram_id,
    which === "ask" ? { askAboveSun: sun } : { dailyCapSun: sun },
    ctx.deps.now(),
  );
  const said =
    sun === null
      ? ctx.tr(`guard-${which}-off`)
      : ctx.tr(`guard-${which}-saved`, { value: trxText(sunToTrx(sun), ctx.lang) });
  await ctx.reply(said, { parse_mode: "HTML" });
}

/** The question for `which`, with the amount set now, and Turn off when one is set. */
async function askAmount(ctx: BotContext, which: GuardAmount) {
  const asked = markAsked(ctx, "guard-amount", which);
  const settings = await findGuardSettings(ctx.deps.db, ctx.account.telegram_id);
  const now = which === "ask" ? settings.askAboveSun : settings.dailyCapSun;
  const value = now === null ? ctx.tr("state-off") : trxText(sunToTrx(now), ctx.lang);
  const buttons: AnswerButton[][] = now === null ? [] : [[{ label: ctx.tr("button-turn-off"), value: "off" }]];
  await sendQuestion(
    ctx,
    asked,
    [ctx.tr(`guard-${which}-question`, { value }), ctx.tr("guard-amount-off-hint"), "", ctx.tr("ask-cancel-hint")].join(
      "\n",
    ),
    buttons,
    ctx.tr(`guard-${which}-title`),
  );
  return asked;
}

/** The amount step after Ask again above… or Daily cap… in /settings: one typed answer (or Turn off), then the settings card again. */
export function guardAmountConversation(settings: { show(ctx: BotContext): Promise<void> }) {
  return async function guardAmount(conversation: Guided, _ctx: Context, which: GuardAmount): Promise<void> {
    const asked = await conversation.external((ctx) => askAmount(ctx, which));
    // Plain JSON in the flow's replay log: the amount as a decimal string of sun.
    const sun = await answer(
      conversation,
      "guard-amount",
      asked,
      async (ctx, input): Promise<Checked<string | null>> => {
        const read = readGuardAmount(ctx, input);
        return read.ok ? { ok: true, value: read.sun?.toString() ?? null } : { ok: false, message: read.message };
      },
    );
    await conversation.external(async (ctx) => {
      await saveGuardAmount(ctx, which, sun === null ? null : BigInt(sun));
      await settings.show(ctx);
    });
  };
}
