import type { Menu } from "@grammyjs/menu";
import { type Composer, InlineKeyboard } from "grammy";
import { FlatComposer } from "#src/bot/middleware/flat-composer";
import { randomUUID } from "node:crypto";
import {
  claimPendingAction,
  createPendingAction,
  firstAttemptAt,
  renewClaim,
  findPendingAction,
  markPendingActionAttempted,
  setPendingActionMessage,
  setPendingActionPayload,
  transitionPendingAction,
  wasAttempted,
  type PendingAction,
} from "#src/db/repos/pending-actions";
import { shortId } from "#src/security/secret-box";
import { markInMotion } from "#src/db/repos/poll-schedule";
import { stuckCardAfterMs } from "#src/chat/card-lifetime";
import type { BotContext } from "#src/bot/context";
import { editInPlace } from "#src/bot/edit-in-place";
import { cardButtons } from "#src/chat/alerts";
import { CARD_CANCEL, CARD_CONFIRM, CARD_REFRESH } from "#src/chat/callback-data";
import { buttonValues } from "#src/bot/pressed-button";

/** A card older than this asks for a fresh preview before Confirm (prices move). */
export const CARD_FRESH_MS = 5 * 60_000;
/** After an unknown outcome, a short pause before looking again: a slow marketplace may finish meanwhile. */
const RECHECK_DELAY_MS = 250;

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
  ): Promise<{ text: string; payload: unknown; canConfirm: boolean; extra?: (id: string) => CardButton[] } | null>;
  /** The card's text for an action already done (a second tap shows it again). */
  doneText(ctx: BotContext, action: PendingAction): string;
  /**
   * Before a first attempt: why the card may no longer be confirmed as shown (HTML: an order's
   * total rose since its preview), or null. The card then offers Refresh and Cancel, and nothing is spent.
   */
  changedSince?(ctx: BotContext, action: PendingAction): Promise<string | null>;
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
  canConfirm: boolean,
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
  canConfirm: boolean,
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

async function editCard(
  ctx: BotContext,
  text: string,
  keyboard: InlineKeyboard | Menu<BotContext> = new InlineKeyboard(),
): Promise<void> {
  await editInPlace(ctx, text, keyboard);
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Confirm after the claim: run, and after an unknown outcome say "checking…" and look once more.
 * The claim is renewed before each marketplace stretch and fences every write: a Confirm left so
 * long that its card was released as stuck (and maybe taken by a new tap) stops instead of
 * acting on a card that is no longer its own.
 */
async function runConfirmed(ctx: BotContext, kind: CardKind, id: string, claimed: number): Promise<void> {
  const db = ctx.deps.db;
  const current = async () => (await findPendingAction(db, ctx.account.telegram_id, id))!;
  let claim: number | null = claimed;
  const renew = async () => (claim = await renewClaim(db, id, claim!, ctx.deps.now()));
  let outcome: CardOutcome;
  try {
    if (!(await renew())) return overtaken(ctx, id);
    // Read again after the claim: a toggle may have changed the payload meanwhile.
    outcome = await kind.execute(ctx, await current());
    if (outcome.state === "retry") {
      await markPendingActionAttempted(db, id, ctx.deps.now());
      await editCard(ctx, ctx.tr("card-checking"));
      await sleep(RECHECK_DELAY_MS);
      if (!(await renew())) return overtaken(ctx, id);
      outcome = await kind.recheck(ctx, await current());
    }
  } catch (error) {
    // Whatever threw may have come after the marketplace acted: treat the outcome as unknown.
    await markPendingActionAttempted(db, id, ctx.deps.now());
    if (claim !== null)
      await transitionPendingAction(db, id, ["processing"], "pending", ctx.deps.now(), undefined, claim);
    throw error;
  }
  const next = outcome.state === "retry" ? "pending" : outcome.state === "done" ? "placed" : outcome.state;
  const result =
    outcome.state === "retry" ? { attempted: true, at: firstAttemptAt(await current()) } : (outcome.result ?? null);
  if (!(await transitionPendingAction(db, id, ["processing"], next, ctx.deps.now(), result, claim!)))
    return overtaken(ctx, id);
  await editCard(ctx, outcome.text, outcome.state === "retry" ? cardKeyboard(ctx, id, true) : outcome.keyboard);
  if (next === "placed") await transitionPendingAction(db, id, ["placed"], "done", ctx.deps.now());
}

/** A card given up after an attempt too old to send again (see the order kind): it only offers a new preview. */
function attemptExpired(action: PendingAction): boolean {
  if (action.state !== "failed" || action.result === null) return false;
  try {
    return (JSON.parse(action.result) as { attemptExpired?: unknown } | null)?.attemptExpired === true;
  } catch {
    return false;
  }
}

/** This Confirm's card was released as stuck meanwhile: whoever holds it now tells the user. */
function overtaken(ctx: BotContext, id: string): void {
  ctx.deps.logger.warn(
    { userId: ctx.account.telegram_id, card: id },
    "a Confirm outlived its claim on the card; it stopped and left the card to whoever holds it now",
  );
}

/** Confirm, Cancel and Refresh under every confirmation card, whatever its kind. */
export function cardsFeature(kinds: CardKinds): Composer<BotContext> {
  const composer = new FlatComposer<BotContext>();
  composer.callbackQuery(CARD_CONFIRM.pattern, (ctx) => confirmCard(kinds, ctx));
  composer.callbackQuery(CARD_CANCEL.pattern, (ctx) => cancelCard(kinds, ctx));
  composer.callbackQuery(CARD_REFRESH.pattern, (ctx) => refreshCard(kinds, ctx));
  return composer;
}

/** The card a button names, this user's only, with the kind that handles it. */
async function tappedCard(kinds: CardKinds, ctx: BotContext, id: string) {
  const action = await findPendingAction(ctx.deps.db, ctx.account.telegram_id, id);
  return { action, kind: action ? kinds.get(action.kind) : undefined };
}

/**
 * Confirm: one-shot (a compare-and-set to "processing"), after the card's freshness and price are
 * checked; a card a crash left processing is taken over as an attempt.
 */
async function confirmCard(kinds: CardKinds, ctx: BotContext): Promise<void> {
  const { action, kind } = await tappedCard(kinds, ctx, buttonValues(ctx, CARD_CONFIRM));
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
    await ctx.answerCallbackQuery({
      text: ctx.tr(action.state === "cancelled" ? "card-cancelled-toast" : "card-expired"),
    });
    return;
  }
  // After an attempt, sending the same request again is how the real state is learned: a fresh
  // preview would be a new card, which could charge (or create a rule) a second time.
  if (action.state === "pending" && !wasAttempted(action) && now - action.created_at > CARD_FRESH_MS) {
    await ctx.answerCallbackQuery();
    await editCard(
      ctx,
      ctx.tr("card-stale"),
      new InlineKeyboard()
        .text(ctx.tr("button-refresh"), CARD_REFRESH.data(action.id))
        .text(ctx.tr("button-cancel"), CARD_CANCEL.data(action.id))
        .danger(),
    );
    return;
  }
  // What the card showed no longer holds (a price that rose): nothing is spent, a fresh preview is offered.
  if (action.state === "pending" && !wasAttempted(action) && kind.changedSince) {
    const changed = await kind.changedSince(ctx, action);
    if (changed !== null) {
      await ctx.answerCallbackQuery();
      await editCard(
        ctx,
        changed,
        new InlineKeyboard()
          .text(ctx.tr("button-refresh"), CARD_REFRESH.data(action.id))
          .text(ctx.tr("button-cancel"), CARD_CANCEL.data(action.id))
          .danger(),
      );
      return;
    }
  }
  // A card left in "processing" past the deadline (a crash mid-call) may be taken over; a live
  // Confirm renews its claim well within it, so it is never overtaken.
  const abandoned =
    action.state === "processing" && now - action.updated_at > stuckCardAfterMs(ctx.deps.config.MARKETPLACE_TIMEOUT_MS);
  const claim = abandoned
    ? (await transitionPendingAction(
        ctx.deps.db,
        action.id,
        ["processing"],
        "processing",
        now,
        undefined,
        action.updated_at,
      ))
      ? now
      : null
    : await claimPendingAction(ctx.deps.db, action.id, ["pending"], now);
  if (claim === null) {
    await ctx.answerCallbackQuery({ text: ctx.tr("card-processing") });
    return;
  }
  // Taken over from a "processing" that never finished (a crash mid-call): its outcome is unknown.
  if (abandoned) await markPendingActionAttempted(ctx.deps.db, action.id, action.updated_at);
  // Something is about to move (a rule, an order): its notifications are read every cycle from now.
  // (An auto-buy's card creates a row of the bot's own: nothing moves at the marketplace yet.)
  if (action.kind !== "autobuy")
    await markInMotion(ctx.deps.db, ctx.account.telegram_id, action.kind === "rule" ? "rule" : "order", now);
  await ctx.answerCallbackQuery();
  // Swap the buttons for "processing…" first, so a second tap has nothing to press.
  await editCard(ctx, `${ctx.tr("card-working")}`);
  await runConfirmed(ctx, kind, action.id, claim);
}

/** Cancel: only a pending card; after an attempt, the kind says what the attempt left. */
async function cancelCard(kinds: CardKinds, ctx: BotContext): Promise<void> {
  const { action, kind } = await tappedCard(kinds, ctx, buttonValues(ctx, CARD_CANCEL));
  if (!action || !kind) {
    await ctx.answerCallbackQuery({ text: ctx.tr("card-expired") });
    return;
  }
  if (!(await transitionPendingAction(ctx.deps.db, action.id, ["pending"], "cancelled", ctx.deps.now()))) {
    await ctx.answerCallbackQuery({
      text: ctx.tr(action.state === "done" || action.state === "placed" ? "card-already-done" : "card-processing"),
    });
    return;
  }
  await ctx.answerCallbackQuery();
  if (!wasAttempted(action)) {
    await editCard(ctx, ctx.tr("card-cancelled"));
    return;
  }
  const cancelled = await kind.cancelAfterAttempt(ctx, action);
  if (cancelled.result !== undefined)
    await transitionPendingAction(ctx.deps.db, action.id, ["cancelled"], "done", ctx.deps.now(), cancelled.result);
  await editCard(ctx, cancelled.text, cancelled.keyboard);
}

/** Refresh: a fresh preview, as a new card, or on the same card after an attempt. */
async function refreshCard(kinds: CardKinds, ctx: BotContext): Promise<void> {
  const { action, kind } = await tappedCard(kinds, ctx, buttonValues(ctx, CARD_REFRESH));
  // A card whose earlier attempt is too old to resend may still offer a new preview (a new card).
  if (!action || !kind || (action.state !== "pending" && !attemptExpired(action))) {
    await ctx.answerCallbackQuery({ text: ctx.tr("card-expired") });
    return;
  }
  await ctx.answerCallbackQuery();
  const fresh = await kind.refresh(ctx, action);
  if (!fresh) return;
  if (wasAttempted(action)) {
    // The earlier attempt may have gone through: keep this card (its Idempotency-Key, its rule
    // baseline) and only show the fresh figures, so Confirm can never make a second one.
    if (!(await setPendingActionPayload(ctx.deps.db, action.id, fresh.payload))) return;
    await editCard(ctx, fresh.text, cardKeyboard(ctx, action.id, true));
    return;
  }
  // The refreshed card is a new card (new id, new key); the old one can no longer be confirmed.
  await transitionPendingAction(ctx.deps.db, action.id, ["pending"], "cancelled", ctx.deps.now());
  await editCard(ctx, ctx.tr("card-refreshed"));
  await sendCard(ctx, action.kind, fresh.payload, fresh.text, fresh.canConfirm, fresh.extra);
}
