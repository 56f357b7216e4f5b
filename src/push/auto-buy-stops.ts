import type { Kysely, Transaction } from "kysely";
import type { Database } from "#src/db/schema";
import type { Logger } from "#src/logger";
import type { SecretBox } from "#src/security/secret-box";
import type { MarketplaceClient } from "#src/marketplace/index";
import {
  listAutoBuys,
  setAutoBuyStatus,
  setUserAutoBuysStatus,
  type AutoBuy,
  type AutoBuyStatus,
} from "#src/db/repos/auto-buys";
import { recordAttempt, type AutoBuyOrder } from "#src/db/repos/auto-buy-orders";
import { nextUtcMidnight, utcDay } from "#src/db/utc-day";
import { enqueueAlert } from "#src/db/repos/outbox";
import { autoBuyStoppedAlert, type AutoBuyStopReason } from "#src/chat/auto-buy-alerts";
import type { Translations } from "#src/chat/alerts";
import { recipientFor } from "./recipients";

/** What stopping an auto-buy needs. */
export interface StopDeps {
  db: Kysely<Database>;
  logger: Logger;
  translations: Translations;
  now: () => number;
  onQueued: () => void;
}

/** What the buying engine needs: the watch job's, plus the keys to open and this replica's name for its leases. */
export interface AutoBuyDeps extends StopDeps {
  box: SecretBox;
  marketplace: (apiKey?: () => string) => MarketplaceClient;
  /** This replica's id: the owner of the attempts it works on. */
  owner: string;
  /** How long an attempt is this replica's before another may take it (default 60 s). */
  leaseMs?: number;
}

/** Causes that lie with the key (or the account), not with one auto-buy: every auto-buy of the user stops with them. */
const USER_WIDE: ReadonlySet<AutoBuyStopReason> = new Set(["scope", "key", "relinked", "spend_limit"]);

/** The state each cause leaves an auto-buy in, and the states it may come from. */
function transition(reason: AutoBuyStopReason): { status: AutoBuyStatus; from: AutoBuyStatus[] } {
  if (reason === "ended") return { status: "ended", from: ["active", "paused", "waiting", "stopped"] };
  if (reason === "spend_limit") return { status: "waiting", from: ["active"] };
  if (reason === "relinked") return { status: "stopped", from: ["active", "paused", "waiting", "stopped"] };
  return { status: "stopped", from: ["active", "waiting"] };
}

/**
 * Stops an auto-buy by itself (`reason`), or, for a cause that lies with the key, every auto-buy of
 * its user, and tells the user once, why and what to do: the change is a compare-and-set, and the
 * alert is queued in its transaction, so whichever replica or check sees the cause first tells and
 * the others change nothing. A spend limit reached waits for the next UTC day instead (resumed by
 * itself, told once a day). `attempt`, when given, is recorded as failed in the same transaction.
 * Returns whether anything changed.
 */
export async function stopAutoBuys(
  deps: StopDeps,
  autoBuy: AutoBuy,
  reason: AutoBuyStopReason,
  options: { detail?: string; attempt?: AutoBuyOrder } = {},
): Promise<boolean> {
  const now = deps.now();
  const { status, from } = transition(reason);
  const resumeAt = reason === "spend_limit" ? nextUtcMidnight(now) : null;
  const recipient = await recipientFor(deps.db, deps.translations, autoBuy.telegram_id, "always");
  const queued = await deps.db.transaction().execute(async (trx) => {
    if (options.attempt) await recordAttempt(trx, options.attempt, { state: "failed" }, now);
    const changed = await stopped(trx, autoBuy, reason, status, from, resumeAt, now);
    if (changed.length === 0 || !recipient) return changed.length > 0 ? false : null;
    const key =
      reason === "spend_limit"
        ? `autobuy-limit:${autoBuy.telegram_id}:${utcDay(now)}`
        : `autobuy-stop:${USER_WIDE.has(reason) ? `user:${autoBuy.telegram_id}` : autoBuy.id}:${reason}:${now}`;
    return enqueueAlert(trx, {
      telegramId: autoBuy.telegram_id,
      chatId: recipient.chatId,
      dedupeKey: key,
      payload: autoBuyStoppedAlert(recipient, {
        reason,
        autoBuys: changed,
        ...(options.detail === undefined ? {} : { detail: options.detail }),
      }),
      now,
    });
  });
  if (queued === null) return false;
  deps.logger.info(
    { userId: autoBuy.telegram_id, autoBuy: autoBuy.id, reason, status },
    reason === "spend_limit"
      ? "the key's daily spend limit is reached: the user's auto-buys wait for the next UTC day"
      : "auto-buy stopped by itself; the user is told why",
  );
  if (queued) deps.onQueued();
  return true;
}

/** The auto-buys the cause moved (the one, or every one of the user's for a key's cause), as the alert names them. */
async function stopped(
  trx: Transaction<Database>,
  autoBuy: AutoBuy,
  reason: AutoBuyStopReason,
  status: AutoBuyStatus,
  from: AutoBuyStatus[],
  resumeAt: number | null,
  now: number,
): Promise<AutoBuy[]> {
  if (!USER_WIDE.has(reason)) {
    const changed = await setAutoBuyStatus(
      trx,
      { id: autoBuy.id, telegramId: null, from, status, reason, resumeAt },
      now,
    );
    return changed ? [autoBuy] : [];
  }
  const ids = new Set(await setUserAutoBuysStatus(trx, autoBuy.telegram_id, from, status, reason, now, resumeAt));
  if (ids.size === 0) return [];
  return (await listAutoBuys(trx, autoBuy.telegram_id)).filter((row) => ids.has(row.id));
}
