import type { Composer } from "grammy";
import { FlatComposer } from "#src/bot/middleware/flat-composer";
import {
  claimPendingAction,
  firstAttemptAt,
  renewClaim,
  findPendingAction,
  markPendingActionAttempted,
  setPendingActionPayload,
  transitionPendingAction,
  wasAttempted,
  type PendingAction,
} from "#src/db/repos/pending-actions";
import { markInMotion } from "#src/db/repos/poll-schedule";
import { stuckCardAfterMs } from "#src/chat/card-lifetime";
import type { BotContext } from "#src/bot/context";
import { CARD_CANCEL, CARD_CONFIRM, CARD_REFRESH, CARD_SURE } from "#src/chat/callback-data";
import { buttonValues, pressedButtonExists } from "#src/bot/pressed-button";
import { cardKeyboard, editCard, sendCard, type CardKind, type CardKinds, type CardOutcome } from "./kind";
import { stoppedBeforeClaim } from "./before-claim";

export {
  CARD_FRESH_MS,
  cardKeyboard,
  sendCard,
  type CardButton,
  type CardKind,
  type CardKinds,
  type CardOutcome,
} from "./kind";

/** After an unknown outcome, a short pause before looking again: a slow marketplace may finish meanwhile. */
const RECHECK_DELAY_MS = 250;

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

/**
 * A failed card that offers a new one: given up after an attempt too old to send again
 * ("attemptExpired"), or refused at once with nothing done ("tryAgain": Try again).
 */
function offersNewCard(action: PendingAction): "attemptExpired" | "tryAgain" | null {
  if (action.state !== "failed" || action.result === null) return null;
  try {
    const result = JSON.parse(action.result) as { attemptExpired?: unknown; tryAgain?: unknown } | null;
    return result?.attemptExpired === true ? "attemptExpired" : result?.tryAgain === true ? "tryAgain" : null;
  } catch {
    return null;
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
  composer.callbackQuery(CARD_CONFIRM.pattern, (ctx) => confirmCard(kinds, ctx, buttonValues(ctx, CARD_CONFIRM)));
  // The second tap of Ask again above: only from the button the question drew.
  composer.callbackQuery(CARD_SURE.pattern, async (ctx) => {
    if (!pressedButtonExists(ctx)) return void (await ctx.answerCallbackQuery({ text: ctx.tr("card-expired") }));
    await confirmCard(kinds, ctx, buttonValues(ctx, CARD_SURE), true);
  });
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
 * checked (and, above the user's Ask again amount, after the second tap: `sure`); a card a crash
 * left processing is taken over as an attempt.
 */
async function confirmCard(kinds: CardKinds, ctx: BotContext, id: string, sure = false): Promise<void> {
  const { action, kind } = await tappedCard(kinds, ctx, id);
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
  if (await stoppedBeforeClaim(kind, ctx, action, sure)) return;
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
  // A card whose earlier attempt is too old to resend, or refused at once, still offers a new preview (a new card).
  const newCard = action ? offersNewCard(action) : null;
  if (!action || !kind || (action.state !== "pending" && !newCard)) {
    await ctx.answerCallbackQuery({ text: ctx.tr("card-expired") });
    return;
  }
  if (newCard === "tryAgain") return tryAgain(ctx, kind, action);
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

/**
 * Try again on a card refused at once: a fresh confirmation card below, with a new key (the
 * refused attempt made nothing); the refused card keeps saying what happened, without its button.
 * Once only: a second tap finds the card no longer failed.
 */
async function tryAgain(ctx: BotContext, kind: CardKind, action: PendingAction): Promise<void> {
  if (!(await transitionPendingAction(ctx.deps.db, action.id, ["failed"], "cancelled", ctx.deps.now()))) {
    await ctx.answerCallbackQuery({ text: ctx.tr("card-expired") });
    return;
  }
  await ctx.answerCallbackQuery();
  await ctx.editMessageReplyMarkup();
  const fresh = await kind.refresh(ctx, action);
  if (fresh) await sendCard(ctx, action.kind, fresh.payload, fresh.text, fresh.canConfirm, fresh.extra);
}
