import type { Menu } from "@grammyjs/menu";
import { InlineKeyboard } from "grammy";
import { randomUUID } from "node:crypto";
import { createPendingAction, setPendingActionMessage, type PendingAction } from "#src/db/repos/pending-actions";
import { shortId } from "#src/security/secret-box";
import type { BotContext } from "#src/bot/context";
import { editInPlace } from "#src/bot/edit-in-place";
import { cardButtons, type CanConfirm } from "#src/chat/alerts";

// Confirmation cards: what a kind of card is, and how a card is drawn, sent and edited (the
// Confirm, Cancel and Refresh lifecycle is in index.ts, the checks before a claim in before-claim.ts).

/** A card older than this asks for a fresh preview before Confirm (prices move). */
export const CARD_FRESH_MS = 5 * 60_000;

export interface CardOutcome {
  /** done: the action happened (result shown); failed: refused for good; retry: not known yet, Confirm may be tapped again. */
  state: "done" | "failed" | "retry";
  text: string;
  /** The buttons under the result: a keyboard, or a menu (a new rule's card). */
  keyboard?: InlineKeyboard | Menu<BotContext>;
  result?: unknown;
}

/** A button a kind adds under Confirm and Cancel while the card can still change (e.g. a toggle). */
export interface CardButton {
  text: string;
  data: string;
}

/** What a kind of confirmation card does on Confirm, and how it rebuilds its text on Refresh. */
export interface CardKind {
  execute(ctx: BotContext, action: PendingAction): Promise<CardOutcome>;
  /**
   * Learns the real state after an unknown outcome without risking a second charge or rule
   * (orders: the same request with the same key; rules: a look in the rule list).
   */
  recheck(ctx: BotContext, action: PendingAction): Promise<CardOutcome>;
  /**
   * Re-runs the preview; returns the new card text and payload, or null after telling the user why
   * not. For a card with an attempt behind it (wasAttempted) the payload must still describe that
   * attempt (rules: the original knownIds).
   */
  refresh(
    ctx: BotContext,
    action: PendingAction,
  ): Promise<{ text: string; payload: unknown; canConfirm: CanConfirm; extra?: (id: string) => CardButton[] } | null>;
  /** The card's text for an action already done (a second tap shows it again). */
  doneText(ctx: BotContext, action: PendingAction): string;
  /**
   * Before a first attempt: why the card may no longer be confirmed as shown (HTML: an order's
   * total rose since its preview), or null. The card then offers Refresh and Cancel, and nothing is spent.
   */
  changedSince?(ctx: BotContext, action: PendingAction): Promise<string | null>;
  /**
   * Before a first attempt, on the first tap: when the card's total is above the user's "Ask again
   * above" amount, the question to ask instead (HTML) and the total its "Yes, spend …" button
   * names; null to go on. The second tap (CARD_SURE) skips this.
   */
  askAgain?(ctx: BotContext, action: PendingAction): Promise<{ text: string; total: string } | null>;
  /**
   * Cancel on a card whose earlier attempt may have gone through: never "nothing was charged".
   * A `result` means the action did happen (the card becomes done with it).
   */
  cancelAfterAttempt(
    ctx: BotContext,
    action: PendingAction,
  ): Promise<{ text: string; keyboard?: InlineKeyboard | Menu<BotContext>; result?: unknown }>;
}

export type CardKinds = Map<string, CardKind>;

export function cardKeyboard(
  ctx: BotContext,
  id: string,
  canConfirm: CanConfirm,
  extra: CardButton[] = [],
): InlineKeyboard {
  const keyboard = cardButtons(ctx.tr, id, canConfirm);
  if (extra.length > 0) keyboard.row();
  for (const button of extra) keyboard.text(button.text, button.data);
  return keyboard;
}

/**
 * Sends a confirmation card. It owns one Idempotency-Key from this moment; Confirm, a double tap,
 * a retry or a tap after a restart all use that key, so the marketplace charges once.
 * `extra` adds the kind's own buttons (they need the card id, made here).
 */
export async function sendCard(
  ctx: BotContext,
  kind: string,
  payload: unknown,
  text: string,
  canConfirm: CanConfirm,
  extra?: (id: string) => CardButton[],
): Promise<void> {
  const id = shortId();
  await createPendingAction(ctx.deps.db, {
    id,
    telegramId: ctx.account.telegram_id,
    kind,
    payload,
    idempotencyKey: randomUUID(),
    chatId: ctx.chat!.id,
    now: ctx.deps.now(),
  });
  const message = await ctx.reply(text, {
    parse_mode: "HTML",
    reply_markup: cardKeyboard(ctx, id, canConfirm, extra?.(id)),
    link_preview_options: { is_disabled: true },
  });
  await setPendingActionMessage(ctx.deps.db, id, message.message_id);
}

/** Edits the pressed card in place (no buttons unless given). */
export async function editCard(
  ctx: BotContext,
  text: string,
  keyboard: InlineKeyboard | Menu<BotContext> = new InlineKeyboard(),
): Promise<void> {
  await editInPlace(ctx, text, keyboard);
}
