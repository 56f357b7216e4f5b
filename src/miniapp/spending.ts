import { SpendingCache } from "#src/reports/cache";
import { collectSpending, type SpendingRecords } from "#src/reports/collect";
import { SingleFlight } from "#src/bounded/single-flight";
import { summarize } from "#src/reports/figures";
import { dayText, figureLines } from "#src/reports/report";
import { knownZone, lastDays } from "#src/reports/time-zones";
import { sunToTrx } from "#src/marketplace/money";
import { amountText } from "#src/chat/format";
import type { Language } from "#src/chat/i18n";
import type { MiniAppDeps } from "./deps";
import { plain, readFailure } from "./failures";
import type { SignerAccount } from "./signer-account";

/** The longest window offered; one read of it serves both (as /stats reads it). */
const READ_DAYS = 30;

interface SpendingView {
  days: 7 | 30;
  /** "12 Nov – 18 Nov · UTC". */
  range: string;
  /**
   * TRX spent per local day, oldest first (decimal strings, from integer sun), and the figure its
   * bar shows ("" for a day with nothing spent).
   */
  perDay: Array<{ day: string; label: string; trx: string; value: string }>;
  /** The figures under /stats' chart, in the same words. */
  lines: string[];
}

/**
 * The spending of the last 7 or 30 days: the same records, window and figures as /stats (the
 * user's digest time zone, the same collection from the marketplace), drawn by the page as bars.
 */
export function spendingReader(deps: MiniAppDeps) {
  const cache = new SpendingCache();
  // Concurrent cold reads of one user (a cold read may cost dozens of calls) share one collection.
  const collections = new SingleFlight<string, SpendingRecords>();
  return async (account: SignerAccount, days: 7 | 30): Promise<SpendingView | { error: string }> => {
    const { client, user, tr, lang } = account;
    if (!client || !user) return { error: tr("miniapp-connect-first") };
    const now = deps.now();
    const timeZone = knownZone(user.digest_time_zone);
    const identity = `${account.last4 ?? ""}:${account.linkedAt ?? 0}`;
    const readWindow = lastDays(timeZone, READ_DAYS, now);
    let records = cache.get(user.telegram_id, identity, readWindow.from, now);
    if (!records) {
      try {
        records = await collections.run(`${user.telegram_id}:${identity}`, () =>
          collectSpending(client, readWindow.from, now),
        );
      } catch (error) {
        return { error: await readFailure(deps, user.telegram_id, tr, error) };
      }
      cache.set(user.telegram_id, identity, records);
    }
    const window = lastDays(timeZone, days, now);
    const figures = summarize(records, window);
    const byDay = new Map<string, bigint>();
    for (const cell of figures.cells) byDay.set(cell.day, (byDay.get(cell.day) ?? 0n) + cell.sun);
    return {
      days,
      range: plain(
        tr("stats-range", {
          from: dayText(lang, window.days[0]!),
          to: dayText(lang, window.days.at(-1)!),
          zone: timeZone,
        }),
      ),
      perDay: window.days.map((day) => ({
        day,
        label: dayText(lang, day, "numeric"),
        trx: sunToTrx(byDay.get(day) ?? 0n),
        value: barValue(byDay.get(day) ?? 0n, lang),
      })),
      lines: figureLines(tr, lang, figures, records).map(plain),
    };
  };
}

const SUN_PER_TRX = 1_000_000n;

/**
 * A day's TRX as its bar shows it, short enough to stand over a bar: to a tenth under 10 TRX, whole
 * TRX from there (rounded half up, in integer sun), written as the reader's language writes
 * numbers; "" for nothing spent.
 */
export function barValue(sun: bigint, lang: Language): string {
  if (sun <= 0n) return "";
  if (sun < 10n * SUN_PER_TRX) {
    const tenths = (sun + SUN_PER_TRX / 20n) / (SUN_PER_TRX / 10n);
    // Under a tenth still shows that something was spent.
    if (tenths === 0n) return `<${amountText("0.1", lang)}`;
    const text = tenths % 10n === 0n ? `${tenths / 10n}` : `${tenths / 10n}.${tenths % 10n}`;
    return amountText(text, lang);
  }
  return amountText(`${(sun + SUN_PER_TRX / 2n) / SUN_PER_TRX}`, lang);
}
