import { Composer, InlineKeyboard } from "grammy";
import { randomUUID } from "node:crypto";
import { createPendingAction, findPendingAction, setPendingActionMessage, transitionPendingAction, type PendingAction } from "../../db/repos/pending-actions";
import { shortId } from "../../security/secret-box";
import type { BotContext } from "../context";
import { editInPlace } from "../edit-in-place";

/** A card older than this asks for a fresh preview before Confirm (prices move). */
export const CARD_FRESH_MS = 5 * 60_000;
/** A card stuck in "processing" this long (a crash mid-call) may be confirmed again with the same key. */
const PROCESSING_STALE_MS = 30_000;

export interface CardOutcome {
  /** done: the action happened (result shown); failed: refused for good; retry: not known yet, Confirm may be tapped again. */
  state: "done" | "failed" | "retry";
  text: string;
  keyboard?: InlineKeyboard;
  result?: unknown;
}

/** What a kind of confirmation card does on Confirm, and how it rebuilds its text on Refresh. */
export interface CardKind {
  execute(ctx: BotContext, action: PendingAction): Promise<CardOutcome>;
  /** Re-runs the preview; returns the new card text and payload, or null after telling the user why not. */
  refresh(ctx: BotContext, action: PendingAction): Promise<{ text: string; payload: unknown; canConfirm: boolean } | null>;
  /** The card's text for an action already done (a second tap shows it again). */
  doneText(ctx: BotContext, action: PendingAction): string;
}

export type CardKinds = Map<string, CardKind>;

export function cardKeyboard(ctx: BotContext, id: string, canConfirm: boolean): InlineKeyboard {
  const keyboard = new InlineKeyboard();
  if (canConfirm) keyboard.text(ctx.tr("button-confirm"), `cf:${id}`);
  else keyboard.text(ctx.tr("button-topup"), "m:topup");
  return keyboard.text(ctx.tr("button-cancel"), `cx:${id}`);
}

/**
 * Sends a confirmation card. It owns one Idempotency-Key from this moment; Confirm, a double tap,
 * a retry or a tap after a restart all use that key, so the marketplace charges once.
 */
export async function sendCard(ctx: BotContext, kind: string, payload: unknown, text: string, canConfirm: boolean): Promise<void> {
  const id = shortId();
  await createPendingAction(ctx.deps.db, { id, telegramId: ctx.account.telegram_id, kind, payload, idempotencyKey: randomUUID(), chatId: ctx.chat!.id, now: ctx.deps.now() });
  const message = await ctx.reply(text, { parse_mode: "HTML", reply_markup: cardKeyboard(ctx, id, canConfirm), link_preview_options: { is_disabled: true } });
  await setPendingActionMessage(ctx.deps.db, id, message.message_id);
}

async function editCard(ctx: BotContext, text: string, keyboard: InlineKeyboard = new InlineKeyboard()): Promise<void> {
  await editInPlace(ctx, text, keyboard);
}

export function cardsFeature(kinds: CardKinds): Composer<BotContext> {
  const composer = new Composer<BotContext>();

  composer.callbackQuery(/^cf:([A-Za-z0-9_-]{10})$/, async (ctx) => {
    const action = await findPendingAction(ctx.deps.db, ctx.account.telegram_id, ctx.match[1]!);
    const kind = action ? kinds.get(action.kind) : undefined;
    if (!action || !kind) {
      await ctx.answerCallbackQuery({ text: ctx.tr("card-expired") });
      return;
    }
    const now = ctx.deps.now();
    if (action.state === "done" || action.state === "placed") {
      await ctx.answerCallbackQuery({ text: ctx.tr("card-already-done") });
      // "placed": the action happened but the card was never updated (a crash in between): show it now.
      if (action.state === "placed") {
        await editCard(ctx, kind.doneText(ctx, action));
        await transitionPendingAction(ctx.deps.db, action.id, ["placed"], "done", now);
      }
      return;
    }
    if (action.state === "cancelled" || action.state === "failed") {
      await ctx.answerCallbackQuery({ text: ctx.tr(action.state === "cancelled" ? "card-cancelled-toast" : "card-expired") });
      return;
    }
    if (action.state === "pending" && now - action.created_at > CARD_FRESH_MS) {
      await ctx.answerCallbackQuery();
      await editCard(ctx, ctx.tr("card-stale"), new InlineKeyboard().text(ctx.tr("button-refresh"), `rf:${action.id}`).text(ctx.tr("button-cancel"), `cx:${action.id}`));
      return;
    }
    const from = now - action.updated_at > PROCESSING_STALE_MS ? ["pending", "processing"] : ["pending"];
    if (!(await transitionPendingAction(ctx.deps.db, action.id, from, "processing", now))) {
      await ctx.answerCallbackQuery({ text: ctx.tr("card-processing") });
      return;
    }
    await ctx.answerCallbackQuery();
    // Swap the buttons for "processing…" first, so a second tap has nothing to press.
    await editCard(ctx, `${ctx.tr("card-working")}`);
    let outcome: CardOutcome;
    try {
      outcome = await kind.execute(ctx, action);
    } catch (error) {
      await transitionPendingAction(ctx.deps.db, action.id, ["processing"], "pending", ctx.deps.now());
      throw error;
    }
    const next = outcome.state === "retry" ? "pending" : outcome.state === "done" ? "placed" : outcome.state;
    await transitionPendingAction(ctx.deps.db, action.id, ["processing"], next, ctx.deps.now(), outcome.result ?? null);
    await editCard(ctx, outcome.text, outcome.state === "retry" ? cardKeyboard(ctx, action.id, true) : outcome.keyboard);
    if (next === "placed") await transitionPendingAction(ctx.deps.db, action.id, ["placed"], "done", ctx.deps.now());
  });

  composer.callbackQuery(/^cx:([A-Za-z0-9_-]{10})$/, async (ctx) => {
    const action = await findPendingAction(ctx.deps.db, ctx.account.telegram_id, ctx.match[1]!);
    if (!action) {
      await ctx.answerCallbackQuery({ text: ctx.tr("card-expired") });
      return;
    }
    if (!(await transitionPendingAction(ctx.deps.db, action.id, ["pending"], "cancelled", ctx.deps.now()))) {
      await ctx.answerCallbackQuery({ text: ctx.tr(action.state === "done" || action.state === "placed" ? "card-already-done" : "card-processing") });
      return;
    }
    await ctx.answerCallbackQuery();
    await editCard(ctx, ctx.tr("card-cancelled"));
  });

  composer.callbackQuery(/^rf:([A-Za-z0-9_-]{10})$/, async (ctx) => {
    const action = await findPendingAction(ctx.deps.db, ctx.account.telegram_id, ctx.match[1]!);
    const kind = action ? kinds.get(action.kind) : undefined;
    if (!action || !kind || action.state !== "pending") {
      await ctx.answerCallbackQuery({ text: ctx.tr("card-expired") });
      return;
    }
    await ctx.answerCallbackQuery();
    const fresh = await kind.refresh(ctx, action);
    if (!fresh) return;
    // The refreshed card is a new card (new id, new key); the old one can no longer be confirmed.
    await transitionPendingAction(ctx.deps.db, action.id, ["pending"], "cancelled", ctx.deps.now());
    await editCard(ctx, ctx.tr("card-refreshed"));
    await sendCard(ctx, action.kind, fresh.payload, fresh.text, fresh.canConfirm);
  });

  return composer;
}
