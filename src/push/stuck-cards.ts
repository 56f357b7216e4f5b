import { InlineKeyboard } from "grammy";
import type { Kysely } from "kysely";
import type { Database } from "../db/schema";
import { markPendingActionAttempted, transitionPendingAction } from "../db/repos/pending-actions";
import { recipientFor, type Translations } from "./alerts";
import { enqueueAlert } from "./outbox";

/**
 * How long a card may stay in "processing" before it counts as abandoned. Well above the longest
 * Confirm can take in a live process (a marketplace call with its retries), so a slow call is
 * never taken for a crash.
 */
export const STUCK_CARD_MS = 2 * 60_000;

export interface StuckCardDeps {
  db: Kysely<Database>;
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
  const stuck = await deps.db
    .selectFrom("pending_actions")
    .select(["id", "telegram_id", "message_id", "updated_at"])
    .where("state", "=", "processing")
    .where("updated_at", "<", now - STUCK_CARD_MS)
    .limit(100)
    .execute();
  let released = 0;
  for (const card of stuck) {
    await markPendingActionAttempted(deps.db, card.id);
    if (!(await transitionPendingAction(deps.db, card.id, ["processing"], "pending", now))) continue;
    released += 1;
    const recipient = card.message_id === null ? null : await recipientFor(deps.db, deps.translations, card.telegram_id, "always");
    if (!recipient) continue;
    const { tr } = recipient;
    const keyboard = new InlineKeyboard().text(tr("button-confirm"), `cf:${card.id}`).text(tr("button-cancel"), `cx:${card.id}`);
    await enqueueAlert(deps.db, {
      telegramId: card.telegram_id,
      chatId: recipient.chatId,
      dedupeKey: `card-stuck:${card.id}:${card.updated_at}`,
      payload: { method: "editMessageText", params: { message_id: card.message_id, text: tr("card-unknown-state"), parse_mode: "HTML", reply_markup: keyboard } },
      now,
    });
  }
  if (released > 0) deps.onQueued?.();
  return released;
}
