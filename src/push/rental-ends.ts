import type { Kysely } from "kysely";
import type { Database } from "#src/db/schema";
import type { Logger } from "#src/logger";
import type { Translations } from "#src/chat/alerts";
import { rentalEndingAlert, rentalEndingKey } from "#src/chat/reminder-alerts";
import { dueRentals, settleRental, type Rental } from "#src/db/repos/rental-ends";
import { findGuardSettings } from "#src/db/repos/guard-settings";
import { findUser } from "#src/db/repos/users";
import { buyAgainRefs } from "#src/db/repos/buy-again-refs";
import { enqueueAlert } from "#src/db/repos/outbox";
import { recipientOf } from "./recipients";

// The "ends" alert: a filled order's rental is about to end (10 minutes before, a quarter of the
// duration for rentals under an hour), with Renew.

export interface RentalEndsDeps {
  db: Kysely<Database>;
  logger: Logger;
  translations: Translations;
  now: () => number;
  onQueued: () => void;
}

/** What one pass did: alerts queued, rentals passed over (alerts off, ended before their turn, or no longer reachable). */
export interface RentalEndsReport {
  alerted: number;
  missed: number;
}

/** Rentals one pass looks at, at most; the next pass goes on. */
const PASS_LIMIT = 200;

/**
 * Queues the alerts that are due. Each rental's marker moves from waiting in the transaction that
 * queues its alert (a conditional update), and the alert's dedupe key names the order: whatever the
 * restarts and replicas, one alert per rental. A rental whose end came first, or whose user
 * switched the alert off, blocked the bot or has no chat, is marked missed without an alert.
 */
export async function checkRentalEnds(deps: RentalEndsDeps): Promise<RentalEndsReport> {
  const now = deps.now();
  const report: RentalEndsReport = { alerted: 0, missed: 0 };
  for (const rental of await dueRentals(deps.db, now, PASS_LIMIT)) {
    const outcome = await alertRental(deps, rental, now);
    if (outcome) report[outcome] += 1;
  }
  if (report.alerted > 0) deps.onQueued();
  if (report.alerted + report.missed > 0) deps.logger.info(report, "rental ending alerts checked");
  return report;
}

/** One due rental: alerted, missed, or null when another pass took it meanwhile. */
async function alertRental(deps: RentalEndsDeps, rental: Rental, now: number): Promise<"alerted" | "missed" | null> {
  const telegramId = Number(rental.telegram_id);
  const [user, settings] = await Promise.all([findUser(deps.db, telegramId), findGuardSettings(deps.db, telegramId)]);
  const recipient = settings.alertEnds ? recipientOf(deps.translations, telegramId, user, "always") : null;
  const endsAt = Number(rental.ends_at);
  if (!recipient || endsAt <= now) return (await settleRental(deps.db, rental, "missed")) ? "missed" : null;
  return deps.db.transaction().execute(async (trx) => {
    if (!(await settleRental(trx, rental, "alerted"))) return null;
    const [renew] = await buyAgainRefs(trx, [{ telegramId, orderId: rental.order_id }], now);
    const facts = {
      orderId: rental.order_id,
      resource: rental.resource,
      volume: rental.volume,
      duration: rental.duration,
      targetAddress: rental.target_address,
      endsAt,
    };
    await enqueueAlert(trx, {
      telegramId,
      chatId: recipient.chatId,
      dedupeKey: rentalEndingKey(rental.order_id),
      payload: rentalEndingAlert(recipient, facts, now, renew ?? null),
      now,
    });
    return "alerted";
  });
}
