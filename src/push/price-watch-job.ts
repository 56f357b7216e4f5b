import type { Kysely } from "kysely";
import type { Database } from "#src/db/schema";
import {
  activeWatchesOn,
  claimWatchCycle,
  markWatchFired,
  rearmWatch,
  type PriceWatch,
  type WatchTarget,
} from "#src/db/repos/watches";
import { countWatchTargets, watchTargetsDue } from "#src/db/repos/watch-rotation";
import type { Metrics } from "#src/metrics";
import type { Logger } from "#src/logger";
import { MarketplaceError, type MarketplaceClient } from "#src/marketplace/index";
import { MAX_PUBLIC_QUOTES_IN_FLIGHT } from "#src/marketplace/public-quotes";
import { trxToSun } from "#src/marketplace/money";
import { findCredential } from "#src/db/repos/credentials";
import { priceReachedAlert, type Translations } from "#src/chat/alerts";
import { enqueueAlert, enqueueGroupAlerts } from "#src/db/repos/outbox";
import { alertTargets, groupAlertOf } from "./group-copies";
import type { SecretBox } from "#src/security/secret-box";
import { ownPrice } from "./watch-own-price";
import { autoBuyRentsDue, countAutoBuyRents } from "#src/db/repos/auto-buy-rents";
import {
  autoBuyHousekeeping,
  buyOnQuote,
  emptyAutoBuyReport,
  type AutoBuyDeps,
  type AutoBuyReport,
} from "./auto-buy-engine";

export interface PriceWatchJobDeps {
  db: Kysely<Database>;
  logger: Logger;
  translations: Translations;
  now: () => number;
  /** Without a key for the public quote; with an owner's key for their own order preview. */
  marketplace: (apiKey?: () => string) => MarketplaceClient;
  /** Opens owners' keys: a watch of a user with a key compares their own order's total (watch-own-price.ts). */
  box: SecretBox;
  /** Wakes the outbox sender after an alert was queued. */
  onQueued: () => void;
  /**
   * Rents checked at once (default 8: the public quotes' own bound per process, so the quotes fill
   * it; an auto-buy's preview and order wait behind their rent's quote, and a crossing must reach
   * its orders within the tick).
   */
  concurrency?: number;
  /** Distinct rents quoted at most per tick (default MAX_WATCH_RENTS_PER_TICK). */
  rentsPerTick?: number;
  /** Counts the rents left for later ticks (public_work_limited_total, watch_rents_deferred). */
  metrics?: Metrics;
  /** Auto-buys share the check: their rents are quoted with the watches' (one quote per rent), then they buy. */
  autoBuys?: AutoBuyDeps;
  /** Distinct rents of auto-buys quoted at most per tick (default MAX_AUTO_BUY_RENTS_PER_TICK). */
  autoBuyRentsPerTick?: number;
}

/**
 * Distinct rents (resource, volume, duration) quoted at most per tick, however many watches and
 * users there are: the public quotes a tick makes are bounded. The others are checked on later
 * ticks in turn, those checked longest ago first.
 */
export const MAX_WATCH_RENTS_PER_TICK = 50;

/**
 * Distinct rents of auto-buys quoted at most per tick. Their own bound: an auto-buy needs a linked
 * key and a user has at most five, and a crossing must reach its order within the tick, so every
 * such rent is quoted on each tick up to this many (the rest in turn, as watches' are).
 */
export const MAX_AUTO_BUY_RENTS_PER_TICK = 2_000;

export interface PriceWatchReport {
  /** Distinct (resource, volume, duration) of active watches. */
  targets: number;
  /** Targets left for later ticks by the per-tick bound. */
  deferred: number;
  /** Quote requests answered (one per target at most). */
  quoted: number;
  fired: number;
  rearmed: number;
  /** Distinct rents of active auto-buys (some may be watched too: quoted once). */
  autoBuyRents: number;
  /** Order previews auto-buys read (only those whose cap the quote is at or under). */
  previews: number;
  /** Orders auto-buys placed. */
  autoBought: number;
}

export type WatchDecision = "fire" | "rearm" | "none";

/**
 * What one price seen means for a watch. It alerts when the price is at or below the threshold,
 * it is armed and its cooldown is over; "above" watches are disarmed by an alert until the price
 * is seen above the threshold again, "cooldown" watches only wait for the cooldown.
 */
export function decideWatch(
  watch: Pick<PriceWatch, "armed" | "rearm" | "quiet_until" | "threshold_sun">,
  priceSun: bigint,
  now: number,
): WatchDecision {
  if (priceSun <= BigInt(watch.threshold_sun)) {
    const armed = watch.armed === 1 || watch.rearm === "cooldown";
    return armed && now >= watch.quiet_until ? "fire" : "none";
  }
  return watch.armed === 0 && watch.rearm === "above" ? "rearm" : "none";
}

/** The outbox dedupe key of a watch's n-th crossing: a restart or a second replica queues it once. */
export function watchAlertKey(watchId: string, crossing: number): string {
  return `watch:${watchId}:${crossing}`;
}

/**
 * Checks the active price watches for cron tick `tick` (ms), once across all replicas: the first
 * to claim the tick does it (the caller also holds a lease, so two checks never overlap). One
 * public quote per distinct target, however many users watch it, and at most
 * MAX_WATCH_RENTS_PER_TICK targets, those checked longest ago first. Auto-buys share it: their rents
 * (up to MAX_AUTO_BUY_RENTS_PER_TICK) join the watched ones, each quoted once, and each quote at or
 * under an auto-buy's cap lets that auto-buy buy (auto-buy-engine.ts). Returns null when the tick was
 * already claimed. A null tick is a check asked for now (the playground, tests): it claims none.
 */
export async function checkPriceWatches(
  deps: PriceWatchJobDeps,
  tick: number | null,
): Promise<PriceWatchReport | null> {
  if (tick !== null && !(await claimWatchCycle(deps.db, tick))) return null;
  const cap = deps.rentsPerTick ?? MAX_WATCH_RENTS_PER_TICK;
  const watched = await rentsDue(deps.db, cap);
  // Fewer than the cap: these are all of them, and counting them again is a read spared.
  const total = watched.length < cap ? watched.length : await countWatchTargets(deps.db);
  const report: PriceWatchReport = {
    targets: total,
    deferred: total - watched.length,
    quoted: 0,
    fired: 0,
    rearmed: 0,
    autoBuyRents: 0,
    previews: 0,
    autoBought: 0,
  };
  const buying = emptyAutoBuyReport();
  const rents = watched.map((target) => ({ target, watched: true, bought: false }));
  if (deps.autoBuys) {
    await autoBuyHousekeeping(deps.autoBuys, buying);
    const autoCap = deps.autoBuyRentsPerTick ?? MAX_AUTO_BUY_RENTS_PER_TICK;
    const bought = await autoBuyRentsDue(deps.db, autoCap);
    report.autoBuyRents = bought.length < autoCap ? bought.length : await countAutoBuyRents(deps.db);
    const byKey = new Map(rents.map((rent) => [rentKey(rent.target), rent]));
    for (const target of bought) {
      const known = byKey.get(rentKey(target));
      if (known) known.bought = true;
      else rents.push({ target, watched: false, bought: true });
    }
  }
  if (report.deferred > 0) {
    deps.metrics?.publicWorkLimited.inc({ limit: "watch_rents_deferred" }, report.deferred);
    deps.logger.debug(
      { targets: total, deferred: report.deferred },
      "more watched rents than one tick quotes; the rest are checked on later ticks",
    );
  }
  const client = deps.marketplace();
  let next = 0;
  const worker = async () => {
    while (next < rents.length) {
      const rent = rents[next++]!;
      await checkTarget(deps, client, rent, report, buying);
    }
  };
  await Promise.all(
    Array.from({ length: Math.min(deps.concurrency ?? MAX_PUBLIC_QUOTES_IN_FLIGHT, rents.length) }, worker),
  );
  report.previews = buying.previews;
  report.autoBought = buying.ordered;
  if (report.fired > 0 || report.rearmed > 0 || report.autoBought > 0)
    deps.logger.info(report, "price watches and auto-buys checked");
  return report;
}

/**
 * Rents whose quote failed lately, with when, per database (this process's memory). A failed rent
 * keeps its place at the front of the database's order (its watches were not checked), so it is
 * put after the others here: rents that keep failing never hold back the ones behind them.
 */
const failedRents = new WeakMap<Kysely<Database>, Map<string, number>>();
const MAX_FAILED_REMEMBERED = 10 * MAX_WATCH_RENTS_PER_TICK;
const rentKey = (target: WatchTarget) => `${target.resource}:${target.volume}:${target.duration}`;

function rememberFailure(db: Kysely<Database>, target: WatchTarget, now: number): void {
  let failed = failedRents.get(db);
  if (!failed) failedRents.set(db, (failed = new Map()));
  failed.delete(rentKey(target));
  failed.set(rentKey(target), now);
  if (failed.size > MAX_FAILED_REMEMBERED) failed.delete(failed.keys().next().value!);
}

/** The rents this tick quotes: checked longest ago first, those that failed lately last (oldest failure first). */
async function rentsDue(db: Kysely<Database>, cap: number): Promise<WatchTarget[]> {
  const failed = failedRents.get(db);
  if (!failed || failed.size === 0) return watchTargetsDue(db, cap);
  const candidates = await watchTargetsDue(db, cap + failed.size);
  const failedAt = (target: WatchTarget) => failed.get(rentKey(target)) ?? -1;
  const order = candidates.map((target, index) => ({ target, index, at: failedAt(target) }));
  order.sort((a, b) => a.at - b.at || a.index - b.index);
  return order.slice(0, cap).map(({ target }) => target);
}

async function checkTarget(
  deps: PriceWatchJobDeps,
  client: MarketplaceClient,
  rent: { target: WatchTarget; watched: boolean; bought: boolean },
  report: PriceWatchReport,
  buying: AutoBuyReport,
): Promise<void> {
  const { target } = rent;
  let priceTrx: string;
  try {
    priceTrx = (await client.quote({ resource: target.resource, duration: target.duration, volume: target.volume }))
      .priceTrx;
  } catch (error) {
    if (!(error instanceof MarketplaceError)) throw error;
    deps.logger.warn(
      { ...target, kind: error.kind, status: error.status },
      "price quote for watches failed; these watches are checked again on a later tick",
    );
    rememberFailure(deps.db, target, deps.now());
    return;
  }
  failedRents.get(deps.db)?.delete(rentKey(target));
  report.quoted += 1;
  const priceSun = trxToSun(priceTrx);
  const now = deps.now();
  if (rent.bought && deps.autoBuys) await buyOnQuote(deps.autoBuys, target, priceSun, buying);
  if (!rent.watched) return;
  for (const watch of await activeWatchesOn(deps.db, target, priceSun, now)) {
    const decision = decideWatch(watch, priceSun, now);
    if (decision === "rearm") {
      await rearmWatch(deps.db, watch, now);
      report.rearmed += 1;
      continue;
    }
    if (decision !== "fire") continue;
    // The public price leaves out the commission, so it is never above what the owner would pay:
    // only a watch it reaches asks for the owner's own total, which must reach the threshold too.
    const own = await ownPrice(deps, watch);
    if (own === "unknown") continue;
    if (own !== "public" && trxToSun(own.totalTrx) > BigInt(watch.threshold_sun)) continue;
    if (await fire(deps, watch, { priceTrx, ownTotalTrx: own === "public" ? null : own.totalTrx }, now))
      report.fired += 1;
  }
}

/**
 * Queues the alert (and the group's copy: the group's switches are its own, whatever /settings
 * says) and records the crossing in one transaction, so an alert is queued exactly when the watch
 * is marked fired. A user with neither (price alerts switched off and no group copying them, or
 * the bot blocked) is skipped and the watch stays as it was.
 */
async function fire(
  deps: PriceWatchJobDeps,
  watch: PriceWatch,
  prices: { priceTrx: string; ownTotalTrx: string | null },
  now: number,
): Promise<boolean> {
  const to = await alertTargets(deps.db, deps.translations, watch.telegram_id);
  const recipient = to.recipient("prices");
  const group = to.group("prices");
  if (!recipient && !group) return false;
  const crossing = watch.crossings + 1;
  const reached = {
    watchId: watch.id,
    resource: watch.resource,
    volume: watch.volume,
    duration: watch.duration,
    thresholdSun: BigInt(watch.threshold_sun),
    ...prices,
    keyLinked: prices.ownTotalTrx !== null || (await findCredential(deps.db, watch.telegram_id)) !== undefined,
    at: now,
  };
  const key = watchAlertKey(watch.id, crossing);
  const queued = await deps.db.transaction().execute(async (trx) => {
    if (!(await markWatchFired(trx, watch, now + watch.cooldown_ms, now))) return false;
    const copied = group
      ? (await enqueueGroupAlerts(trx, [groupAlertOf(group, key, priceReachedAlert(group, reached), now)])) > 0
      : false;
    if (!recipient) return copied;
    return (
      (await enqueueAlert(trx, {
        telegramId: watch.telegram_id,
        chatId: recipient.chatId,
        dedupeKey: key,
        payload: priceReachedAlert(recipient, reached),
        now,
      })) || copied
    );
  });
  if (queued) {
    deps.logger.info(
      { userId: watch.telegram_id, watch: watch.id, crossing, ...prices },
      "price watch reached its threshold; alert queued",
    );
    deps.onQueued();
  }
  return queued;
}
