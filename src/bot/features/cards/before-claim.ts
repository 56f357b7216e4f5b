import { InlineKeyboard } from "grammy";
import { wasAttempted, type PendingAction } from "#src/db/repos/pending-actions";
import type { BotContext } from "#src/bot/context";
import { CARD_CANCEL, CARD_REFRESH, CARD_SURE } from "#src/chat/callback-data";
import { CARD_FRESH_MS, editCard, type CardKind } from "./kind";

/** Refresh and Cancel in place of Confirm: the card may not be confirmed as it shows (too old, a higher price). */
export function refreshOrCancel(ctx: BotContext, id: string): InlineKeyboard {
  return new InlineKeyboard()
    .text(ctx.tr("button-refresh"), CARD_REFRESH.data(id))
    .text(ctx.tr("button-cancel"), CARD_CANCEL.data(id))
    .danger();
}

/**
 * The checks before a first attempt claims the card: too old (a fresh preview is asked for), a
 * total that rose since (the same), and, on the first tap, Ask again above (the card asks for the
 * second tap that names the amount). True when one of them answered the tap instead.
 */
export async function stoppedBeforeClaim(
  kind: CardKind,
  ctx: BotContext,
  action: PendingAction,
  sure: boolean,
): Promise<boolean> {
  // After an attempt, sending the same request again is how the real state is learned: a fresh
  // preview would be a new card, which could charge (or create a rule) a second time.
  if (action.state !== "pending" || wasAttempted(action)) return false;
  if (ctx.deps.now() - action.created_at > CARD_FRESH_MS) {
    await ctx.answerCallbackQuery();
    await editCard(ctx, ctx.tr("card-stale"), refreshOrCancel(ctx, action.id));
    return true;
  }
  // What the card showed no longer holds (a price that rose): nothing is spent, a fresh preview is offered.
  const changed = kind.changedSince ? await kind.changedSince(ctx, action) : null;
  if (changed !== null) {
    await ctx.answerCallbackQuery();
    await editCard(ctx, changed, refreshOrCancel(ctx, action.id));
    return true;
  }
  const ask = !sure && kind.askAgain ? await kind.askAgain(ctx, action) : null;
  if (ask === null) return false;
  await ctx.answerCallbackQuery();
  await editCard(
    ctx,
    ask.text,
    new InlineKeyboard()
      .text(ctx.tr("button-spend", { total: ask.total }), CARD_SURE.data(action.id))
      .success()
      .text(ctx.tr("button-cancel"), CARD_CANCEL.data(action.id))
      .danger(),
  );
  return true;
}
