import { MarketplaceError, type MarketplaceClient } from "#src/marketplace/index";
import { addTrx, sunToTrx, trxToSun } from "#src/marketplace/money";
import { durationMs } from "#src/input/volume";
import { findCredential, openApiKey, type Credential } from "#src/db/repos/credentials";
import { findAutoBuy, setAutoBuyStatus, type AutoBuy, type AutoBuyRent } from "#src/db/repos/auto-buys";
import { activeAutoBuysUnder, autoBuysPastEnd, resumeWaitingAutoBuys } from "#src/db/repos/auto-buy-rents";
import { autoBuyingEnabled } from "#src/db/repos/auto-buy-changes";
import {
  autoBuyUse,
  autoBuyOrderKey,
  insertAttempt,
  openAttemptsDue,
  releaseAttempt,
  type AutoBuyOrder,
} from "#src/db/repos/auto-buy-orders";
import { utcDay } from "#src/db/utc-day";
import { stopAutoBuys, type AutoBuyDeps } from "./auto-buy-stops";
import { keyRefused, resolveOpenAttempt, sendOrder } from "./auto-buy-order";
import { reserveSpend } from "#src/spend-guard/index";

export type { AutoBuyDeps } from "./auto-buy-stops";

/** What one check did with auto-buys. */
export interface AutoBuyReport {
  /** Order previews read (only for auto-buys whose cap the public quote is at or under). */
  previews: number;
  /** Orders placed (new ones, and earlier attempts whose order was found or sent again). */
  ordered: number;
}

export const emptyAutoBuyReport = (): AutoBuyReport => ({ previews: 0, ordered: 0 });

/** Auto-buys under their cap checked at once for one rent. */
const AUTO_BUYS_AT_ONCE = 4;

/**
 * Before a check's quotes: waiting auto-buys whose UTC day came resume, those past their end date
 * end (and say so once), and attempts whose outcome is unknown (a crash, a timeout) are settled
 * before anything new is bought for them.
 */
export async function autoBuyHousekeeping(deps: AutoBuyDeps, report: AutoBuyReport): Promise<void> {
  const now = deps.now();
  await resumeWaitingAutoBuys(deps.db, now);
  for (const autoBuy of await autoBuysPastEnd(deps.db, now, 100)) await stopAutoBuys(deps, autoBuy, "ended");
  for (const attempt of await openAttemptsDue(deps.db, now, 50)) {
    const autoBuy = await findAutoBuy(deps.db, attempt.telegram_id, attempt.auto_buy_id);
    if (!autoBuy) {
      await releaseAttempt(deps.db, attempt, deps.owner);
      continue;
    }
    const client = await clientFor(deps, autoBuy);
    if (client && (await resolveOpenAttempt(deps, autoBuy, attempt, client))) report.ordered += 1;
  }
}

/**
 * The public quote of one rent was read: every active auto-buy whose cap it is at or under reads its
 * user's own order preview and buys when that total, the day's budget and count, and the address
 * allow it. At most AUTO_BUYS_AT_ONCE at a time.
 */
export async function buyOnQuote(
  deps: AutoBuyDeps,
  rent: AutoBuyRent,
  priceSun: bigint,
  report: AutoBuyReport,
): Promise<void> {
  const under = await activeAutoBuysUnder(deps.db, rent, priceSun, deps.now());
  let next = 0;
  const worker = async () => {
    while (next < under.length) {
      const autoBuy = under[next++]!;
      try {
        await tryAutoBuy(deps, autoBuy, priceSun, report);
      } catch (error) {
        deps.logger.error({ err: error, autoBuy: autoBuy.id }, "auto-buy check failed; the next check tries again");
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(AUTO_BUYS_AT_ONCE, under.length) }, worker));
}

/**
 * The user's client for an auto-buy, or null after stopping it: the switch turned off, no key,
 * another key than the one it was made under, a key marked broken or one that cannot be opened.
 */
async function clientFor(deps: AutoBuyDeps, autoBuy: AutoBuy): Promise<MarketplaceClient | null> {
  if (!(await autoBuyingEnabled(deps.db, autoBuy.telegram_id))) {
    await setAutoBuyStatus(
      deps.db,
      { id: autoBuy.id, telegramId: null, from: ["active", "waiting"], status: "paused", reason: "switch" },
      deps.now(),
    );
    return null;
  }
  const credential = await findCredential(deps.db, autoBuy.telegram_id);
  if (!credential || credential.linked_at !== autoBuy.key_linked_at) {
    await stopAutoBuys(deps, autoBuy, "relinked");
    return null;
  }
  if (credential.broken_at) {
    await stopAutoBuys(deps, autoBuy, "key");
    return null;
  }
  return openClient(deps, autoBuy, credential);
}

async function openClient(
  deps: AutoBuyDeps,
  autoBuy: AutoBuy,
  credential: Credential,
): Promise<MarketplaceClient | null> {
  try {
    const apiKey = openApiKey(deps.box, credential);
    return deps.marketplace(() => apiKey);
  } catch (error) {
    deps.logger.warn(
      { err: error, userId: autoBuy.telegram_id },
      "a stored key cannot be opened; the user's auto-buys stop",
    );
    await stopAutoBuys(deps, autoBuy, "key");
    return null;
  }
}

/** One auto-buy under its cap: the day's budget and count, a running rental, then the preview, then the order. */
async function tryAutoBuy(deps: AutoBuyDeps, autoBuy: AutoBuy, quoteSun: bigint, report: AutoBuyReport): Promise<void> {
  const now = deps.now();
  if (autoBuy.ends_at <= now) return;
  const day = utcDay(now);
  const use = await autoBuyUse(deps.db, autoBuy.id, day, now);
  // An attempt still open is settled first (housekeeping); one rental covers the address at a time.
  if (use.open || use.running || use.orders >= autoBuy.orders_per_day) return;
  const budgetLeft = BigInt(autoBuy.daily_budget_sun) - use.spentSun;
  if (budgetLeft < quoteSun) return;
  const client = await clientFor(deps, autoBuy);
  if (!client) return;
  let totalSun: bigint;
  try {
    const preview = await client.previewOrder({
      volume: autoBuy.volume,
      days: autoBuy.duration,
      resource: autoBuy.resource,
      target: autoBuy.address,
    });
    totalSun = trxToSun(addTrx(preview.priceTrx, preview.activationTrx ?? "0"));
  } catch (error) {
    report.previews += 1;
    return previewFailed(deps, autoBuy, client, error);
  }
  report.previews += 1;
  if (totalSun > BigInt(autoBuy.max_total_sun) || totalSun > budgetLeft) return;
  const n = use.attempts + 1;
  const attempt = {
    autoBuyId: autoBuy.id,
    telegramId: autoBuy.telegram_id,
    day,
    n,
    totalSun,
    rentalEndsAt: now + (durationMs(autoBuy.duration) ?? 24 * 3_600_000),
    owner: deps.owner,
    leaseMs: deps.leaseMs ?? 60_000,
  };
  // The bot's daily cap (/settings) bounds auto-buys as it bounds cards: the spend is reserved
  // under the order's own key, so a replica that decided the same finds it reserved, not twice.
  const key = autoBuyOrderKey(autoBuy.id, day, n);
  const cap = await reserveSpend(deps.db, { source: key, telegramId: autoBuy.telegram_id, totalSun, now });
  if (!cap.allowed) {
    deps.logger.info(
      { userId: autoBuy.telegram_id, autoBuy: autoBuy.id, totalTrx: sunToTrx(totalSun) },
      "auto-buy: the order would pass the user's daily cap through the bot; not placed today",
    );
    return;
  }
  // Written before the order goes out: another replica that decided the same is refused here.
  if (!(await insertAttempt(deps.db, attempt, now))) return;
  const row: AutoBuyOrder = {
    auto_buy_id: autoBuy.id,
    day,
    n,
    telegram_id: autoBuy.telegram_id,
    idempotency_key: key,
    state: "placing",
    order_id: null,
    total_sun: totalSun.toString(),
    rental_ends_at: attempt.rentalEndsAt,
    lease_owner: deps.owner,
    lease_until: now + attempt.leaseMs,
    created_at: now,
    updated_at: now,
  };
  deps.logger.info(
    { userId: autoBuy.telegram_id, autoBuy: autoBuy.id, day, n, totalTrx: sunToTrx(totalSun) },
    "auto-buy: the user's total is at or under the cap; placing the order",
  );
  if (await sendOrder(deps, autoBuy, row, client)) report.ordered += 1;
}

/** A preview that failed: a refused key stops the user's auto-buys; anything else waits for the next check. */
async function previewFailed(
  deps: AutoBuyDeps,
  autoBuy: AutoBuy,
  client: MarketplaceClient,
  error: unknown,
): Promise<void> {
  if (!(error instanceof MarketplaceError)) throw error;
  deps.logger.info(
    { userId: autoBuy.telegram_id, autoBuy: autoBuy.id, kind: error.kind, status: error.status },
    "auto-buy: the order preview failed",
  );
  if (error.kind === "insufficient_scope") await stopAutoBuys(deps, autoBuy, "scope");
  else if (error.kind === "unauthorized" || (error.kind === "forbidden" && (await balanceRefused(client))))
    await keyRefused(deps, autoBuy);
}

/** A 403 with no code on a read means the key lost access only when the account's balance is refused too (docs/decisions.md). */
async function balanceRefused(client: MarketplaceClient): Promise<boolean> {
  try {
    await client.balance();
    return false;
  } catch (again) {
    return again instanceof MarketplaceError && (again.kind === "unauthorized" || again.kind === "forbidden");
  }
}
