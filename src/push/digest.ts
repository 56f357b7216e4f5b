import { createHash } from "node:crypto";
import { InputFile } from "grammy";
import type { Kysely } from "kysely";
import { pickLanguage, translatorFor } from "#src/chat/i18n";
import { collectSpending } from "#src/reports/collect";
import { buildSpendingReport } from "#src/reports/report";
import { DIGEST_TIME_ZONES, knownZone, latestDigestSlot, weekBefore } from "#src/reports/time-zones";
import { labelledAddresses } from "#src/db/repos/addresses";
import { findCredential, markKeyBroken, openApiKey } from "#src/db/repos/credentials";
import { findUser, markDigestWeek, usersDueForDigest } from "#src/db/repos/users";
import type { Database } from "#src/db/schema";
import type { Logger } from "#src/logger";
import { isMarketplaceError, type MarketplaceClient } from "#src/marketplace/index";
import { SecretBoxError, type SecretBox } from "#src/security/secret-box";
import type { Translations } from "#src/chat/alerts";
import { enqueueAlert, type OutboxPayload, type OutboxRow } from "#src/db/repos/outbox";

const HOUR_MS = 3_600_000;
/** A week's digests are spread over this long after Monday 09:00, so 100,000 of them stay near 28 a second. */
export const DIGEST_SPREAD_MS = HOUR_MS;
/** A digest more than this late (the bot was down all Monday) is skipped; next week's comes as usual. */
const CATCH_UP_MS = 24 * HOUR_MS;
/** Users queued per statement, and statements per pass (the next cron tick goes on). */
const BATCH = 500;
const MAX_BATCHES = 40;
/** Tries at building one digest (the marketplace failing) before it is given up. */
const MAX_BUILD_ATTEMPTS = 6;

export interface DigestParams {
  /** Local date of the Monday the digest is for; it covers the week before. */
  week: string;
  timeZone: string;
}

/** The dedupe key of a user's digest for one week. */
export function digestKey(week: string): string {
  return `digest:${week}`;
}

/** Where in the spread hour a user's digest goes: fixed per user and week, even across users. */
export function spreadOffsetMs(telegramId: number, week: string): number {
  const digest = createHash("sha256").update(`${telegramId}:${week}`).digest();
  return digest.readUInt32BE(0) % DIGEST_SPREAD_MS;
}

export interface DigestQueueDeps {
  db: Kysely<Database>;
  logger: Logger;
  now: () => number;
  onQueued?: () => void;
}

/**
 * Queues this week's digest for every user whose Monday 09:00 has come in their zone and who
 * has not had it: one outbox row each (dedupe key per week), due at a point spread over the
 * following hour. Run on the cron tick by one replica at a time (under a lease). Returns how many
 * were queued.
 */
export async function queueWeeklyDigests(deps: DigestQueueDeps): Promise<number> {
  const now = deps.now();
  let queued = 0;
  for (const { zone } of DIGEST_TIME_ZONES) {
    const slot = latestDigestSlot(zone, now);
    if (now - slot.at > CATCH_UP_MS) continue;
    for (let batch = 0; batch < MAX_BATCHES; batch++) {
      const due = await usersDueForDigest(deps.db, zone, slot.week, BATCH);
      if (due.length === 0) break;
      await deps.db.transaction().execute(async (trx) => {
        for (const user of due) {
          const offset = spreadOffsetMs(user.telegram_id, slot.week);
          // Queued late (after a restart): the spread starts now instead of in the past.
          const at = slot.at + offset >= now ? slot.at + offset : now + offset;
          const payload: OutboxPayload = {
            method: "sendDigest",
            params: { week: slot.week, timeZone: zone } satisfies DigestParams,
          };
          if (
            await enqueueAlert(trx, {
              telegramId: user.telegram_id,
              chatId: user.chat_id,
              dedupeKey: digestKey(slot.week),
              payload,
              now,
              notBefore: at,
            })
          )
            queued += 1;
          await markDigestWeek(trx, user.telegram_id, slot.week);
        }
      });
      if (due.length < BATCH) break;
    }
  }
  if (queued > 0) {
    deps.logger.info({ queued }, "weekly digests queued, spread over the next hour");
    deps.onQueued?.();
  }
  return queued;
}

export interface DigestBuildDeps {
  db: Kysely<Database>;
  logger: Logger;
  box: SecretBox;
  translations: Translations;
  marketplace: (apiKey?: () => string) => MarketplaceClient;
  now: () => number;
}

function readParams(payload: OutboxPayload): DigestParams | null {
  const { week, timeZone } = payload.params as Partial<DigestParams>;
  return typeof week === "string" && /^\d{4}-\d\d-\d\d$/.test(week)
    ? { week, timeZone: knownZone(typeof timeZone === "string" ? timeZone : null) }
    : null;
}

/**
 * Builds a queued digest when it is due: reads the week from the marketplace, renders the chart
 * and returns the photo (or, for a week with nothing spent, a text). Null when there is nothing to
 * send any more: the user turned the digest off, left, or their key no longer works. A marketplace
 * failure is thrown (the sender retries), until MAX_BUILD_ATTEMPTS.
 */
export function digestBuilder(
  deps: DigestBuildDeps,
): (row: OutboxRow, payload: OutboxPayload) => Promise<OutboxPayload | null> {
  return async (row, payload) => {
    const params = readParams(payload);
    const user = await findUser(deps.db, row.telegram_id);
    if (!params || !user || user.active !== 1 || user.digest_enabled !== 1) return null;
    const credential = await findCredential(deps.db, row.telegram_id);
    if (!credential || credential.broken_at) return null;
    let apiKey: string;
    try {
      apiKey = openApiKey(deps.box, credential);
    } catch (error) {
      if (error instanceof SecretBoxError) return null;
      throw error;
    }
    const window = weekBefore(params.timeZone, params.week);
    let records;
    try {
      records = await collectSpending(
        deps.marketplace(() => apiKey),
        window.from,
        deps.now(),
      );
    } catch (error) {
      if (isMarketplaceError(error, "unauthorized", "forbidden")) {
        await markKeyBroken(deps.db, row.telegram_id, deps.now());
        return null;
      }
      if (row.attempts + 1 >= MAX_BUILD_ATTEMPTS) {
        deps.logger.warn(
          { userId: row.telegram_id, week: params.week, err: error },
          "weekly digest could not be built; given up for this week",
        );
        return null;
      }
      throw error;
    }
    const lang = pickLanguage(user.language ?? user.telegram_language ?? "en");
    const tr = translatorFor(deps.translations, lang);
    const report = await buildSpendingReport({
      tr,
      lang,
      records,
      window,
      heading: tr("digest-title"),
      period: tr("digest-period"),
      addressLabels: await labelledAddresses(deps.db, row.telegram_id),
      footer: tr("digest-footer"),
    });
    if (report.kind === "text") return { method: "sendMessage", params: { text: report.text, parse_mode: "HTML" } };
    return {
      method: "sendPhoto",
      params: {
        photo: new InputFile(report.png, `digest-${params.week}.png`),
        caption: report.caption,
        parse_mode: "HTML",
      },
    };
  };
}
