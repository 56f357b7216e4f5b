import type { Kysely } from "kysely";
import type { Database } from "#src/db/schema";
import {
  findStuckPendingActions,
  markPendingActionAttempted,
  transitionPendingAction,
} from "#src/db/repos/pending-actions";
import { stuckCardAfterMs } from "#src/chat/card-lifetime";
import { cardButtons, type Translations } from "#src/chat/alerts";
import { recipientFor } from "./recipients";
import { enqueueAlert } from "#src/db/repos/outbox";

export interface StuckCardDeps {
  db: Kysely<Database>;
  /** MARKETPLACE_TIMEOUT_MS: sets how long a card must be left before it counts as stuck. */
  marketplaceTimeoutMs: number;
  translations: Translations;
  now: () => number;
  onQueued?: () => void;
}

/**
 * Gives back the cards a crash left in "processing" (their buttons already swapped for
 * "processing…", so the user has nothing to press): each becomes pending again, marked as an
 * attempt with an unknown outcome (it keeps its Idempotency-Key and never claims that nothing was
 * charged), and its message is edited through the outbox to "could not confirm" with Confirm and
 * Cancel. The compare-and-set makes one replica do it once. Returns how many cards were released.
 */
export async function releaseStuckCards(deps: StuckCardDeps): Promise<number> {
  const now = deps.now();
  const stuck = await findStuckPendingActions(deps.db, now - stuckCardAfterMs(deps.marketplaceTimeoutMs), 100);
  let released = 0;
  for (const card of stuck) {
    await markPendingActionAttempted(deps.db, card.id, card.updated_at);
    // Fenced by the claim read above: a Confirm that renewed it meanwhile keeps its card.
    if (!(await transitionPendingAction(deps.db, card.id, ["processing"], "pending", now, undefined, card.updated_at)))
      continue;
    released += 1;
    const recipient =
      card.message_id === null ? null : await recipientFor(deps.db, deps.translations, card.telegram_id, "always");
    if (!recipient) continue;
    const { tr } = recipient;
    const keyboard = cardButtons(tr, card.id);
    await enqueueAlert(deps.db, {
      telegramId: card.telegram_id,
      chatId: recipient.chatId,
      dedupeKey: `card-stuck:${card.id}:${card.updated_at}`,
      payload: {
        method: "editMessageText",
        params: {
          message_id: card.message_id,
          text: tr("card-unknown-state"),
          parse_mode: "HTML",
          reply_markup: keyboard,
        },
      },
      now,
    });
  }
  if (released > 0) deps.onQueued?.();
  return released;
}
