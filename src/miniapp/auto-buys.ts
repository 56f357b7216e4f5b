import { listAutoBuys, canResume, findAutoBuy, type AutoBuy } from "#src/db/repos/auto-buys";
import { pauseAutoBuy, resumeAutoBuy, type AutoBuyChange } from "#src/db/repos/auto-buy-changes";
import { spentOn } from "#src/db/repos/auto-buy-orders";
import { utcDay } from "#src/db/utc-day";
import { autoBuyRentText, autoBuyStatusWords } from "#src/chat/auto-buy-alerts";
import { timeText, trxText } from "#src/chat/format";
import type { Language, Translate } from "#src/chat/i18n";
import { sunToTrx } from "#src/marketplace/money";
import { plain } from "./failures";
import type { MiniAppDeps } from "./deps";
import type { SignerAccount } from "./signer-account";

/** An auto-buy as the dashboard lists it, with the actions its state allows (as /autobuys offers them). */
export interface AutoBuyRow {
  id: string;
  short: string;
  rent: string;
  target: string;
  cap: string;
  budget: string;
  leftToday: string;
  ends: string;
  status: string;
  statusText: string;
  canPause: boolean;
  canResume: boolean;
}

function autoBuyRow(autoBuy: AutoBuy, spentSun: bigint, tr: Translate, lang: Language, now: number): AutoBuyRow {
  const budget = BigInt(autoBuy.daily_budget_sun);
  return {
    id: autoBuy.id,
    short: autoBuy.id.slice(0, 8),
    rent: autoBuyRentText(tr, lang, autoBuy),
    target: autoBuy.address,
    cap: trxText(sunToTrx(BigInt(autoBuy.max_total_sun)), lang),
    budget: trxText(sunToTrx(budget), lang),
    leftToday: trxText(sunToTrx(spentSun >= budget ? 0n : budget - spentSun), lang),
    ends: timeText(new Date(autoBuy.ends_at).toISOString()),
    status: autoBuy.status,
    statusText: plain(autoBuyStatusWords(tr, autoBuy)),
    canPause: autoBuy.status === "active" || autoBuy.status === "waiting",
    canResume: canResume(autoBuy, now),
  };
}

/** The signer's auto-buys, from the bot's own database (the marketplace knows nothing of them). */
export async function readAutoBuys(deps: MiniAppDeps, account: SignerAccount): Promise<{ items: AutoBuyRow[] }> {
  const now = deps.now();
  const autoBuys = await listAutoBuys(deps.db, account.signer.telegramId);
  const spent = await spentOn(
    deps.db,
    autoBuys.map((autoBuy) => autoBuy.id),
    utcDay(now),
  );
  return {
    items: autoBuys.map((autoBuy) => autoBuyRow(autoBuy, spent.get(autoBuy.id) ?? 0n, account.tr, account.lang, now)),
  };
}

const MESSAGE: Record<AutoBuyChange, string> = {
  done: "",
  gone: "autobuy-gone",
  unchanged: "autobuys-toast-changed",
  "switch-off": "autobuy-switch-off-toast",
  "no-key": "autobuy-no-key-toast",
  ended: "autobuy-ended-toast",
};

/**
 * Pause or Resume from the dashboard: the signer's own auto-buy only (found by their id), the same
 * change /autobuys makes, with the same refusals (Automatic buying off, no working key, ended).
 * The dashboard never creates an auto-buy.
 */
export async function changeAutoBuy(
  deps: MiniAppDeps,
  account: SignerAccount,
  id: string,
  action: "pause" | "resume",
): Promise<{ status: 200 | 404 | 409; message: string; autoBuy: AutoBuyRow | null }> {
  const telegramId = account.signer.telegramId;
  const now = deps.now();
  const result =
    action === "pause"
      ? await pauseAutoBuy(deps.db, telegramId, id, now)
      : await resumeAutoBuy(deps.db, telegramId, id, now);
  const autoBuy = await findAutoBuy(deps.db, telegramId, id);
  if (!autoBuy) return { status: 404, message: plain(account.tr("autobuy-gone")), autoBuy: null };
  deps.logger.info({ userId: telegramId, autoBuy: id, action, result, from: "dashboard" }, "auto-buy changed");
  const spent = (await spentOn(deps.db, [id], utcDay(now))).get(id) ?? 0n;
  const row = autoBuyRow(autoBuy, spent, account.tr, account.lang, now);
  const message = result === "done" ? account.tr(`autobuy-${action}-done`) : account.tr(MESSAGE[result]);
  return { status: result === "done" ? 200 : 409, message: plain(message), autoBuy: row };
}
