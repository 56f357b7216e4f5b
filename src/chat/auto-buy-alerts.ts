import { InlineKeyboard } from "grammy";
import type { OutboxPayload } from "#src/db/repos/outbox";
import { AUTO_BUY_ACTION, MAIN_MENU } from "./callback-data";
import { durationText, timeText, trxText, volumeText } from "./format";
import { code, escapeHtml, truncate } from "./html";
import type { Recipient } from "./alerts";
import type { Translate } from "./i18n";
import type { AutoBuy } from "#src/db/repos/auto-buys";

// The alerts of auto-buys: what was bought, and why one stopped by itself. A text module: it is
// given what it shows, never reads the database.

function message(text: string, keyboard?: InlineKeyboard): OutboxPayload {
  return {
    method: "sendMessage",
    params: {
      text,
      parse_mode: "HTML",
      link_preview_options: { is_disabled: true },
      ...(keyboard ? { reply_markup: keyboard } : {}),
    },
  };
}

/** The rent as every auto-buy text writes it: "65,000 Energy for 1h". */
export function autoBuyRentText(
  tr: Translate,
  language: Recipient["language"],
  rent: { resource: string; volume: string; duration: string },
): string {
  const resource =
    rent.resource === "energy" || rent.resource === "bandwidth" ? tr(`resource-${rent.resource}`) : rent.resource;
  return tr("autobuy-rent", {
    volume: volumeText(rent.volume, language),
    resource,
    duration: durationText(rent.duration, language),
  });
}

/** What the "Auto-bought" alert shows. */
export interface AutoBought {
  autoBuyId: string;
  orderId: string;
  resource: string;
  volume: string;
  duration: string;
  address: string;
  totalTrx: string;
  capTrx: string;
  /** What is left of today's budget (UTC day) after this order, and the budget. */
  leftTodayTrx: string;
  budgetTrx: string;
}

/**
 * "Auto-bought": the rent, the address, the total, what is left of today's budget, with Pause and
 * Stop. A group's copy (team alerts) shows what was bought for whom, not what it cost nor the
 * owner's budget, and no button.
 */
export function autoBoughtAlert(recipient: Recipient, bought: AutoBought): OutboxPayload {
  const { tr, language } = recipient;
  const lines = [
    tr("alert-autobought", { id: bought.autoBuyId.slice(0, 8), rent: autoBuyRentText(tr, language, bought) }),
    tr("alert-autobought-target", {}, { value: code(bought.address) }),
  ];
  if (!recipient.group) {
    lines.push(
      tr("alert-autobought-total", {
        total: trxText(bought.totalTrx, language),
        cap: trxText(bought.capTrx, language),
      }),
      tr("alert-autobought-left", {
        left: trxText(bought.leftTodayTrx, language),
        budget: trxText(bought.budgetTrx, language),
      }),
    );
  }
  lines.push(tr("order-id-line", {}, { id: code(bought.orderId) }), "", tr("alert-autobought-hint"));
  const keyboard = new InlineKeyboard()
    .text(tr("button-pause"), AUTO_BUY_ACTION.data("pause", bought.autoBuyId))
    .text(tr("button-stop"), AUTO_BUY_ACTION.data("stop", bought.autoBuyId))
    .danger();
  return message(lines.join("\n"), recipient.group ? undefined : keyboard);
}

/** Why auto-buys stopped by themselves (or wait for the next UTC day). */
export type AutoBuyStopReason =
  "balance" | "scope" | "key" | "provider" | "rejected" | "relinked" | "ended" | "spend_limit";

export interface AutoBuyStop {
  reason: AutoBuyStopReason;
  /** The auto-buys it stopped (one for most reasons; every one of the user's for a key's). */
  autoBuys: Array<{ id: string; resource: string; volume: string; duration: string }>;
  /** rejected: the marketplace's own words. */
  detail?: string;
}

/**
 * An auto-buy that stopped by itself: which, why, and what to do, with the button that does it
 * (Top up and Resume after a 402, Resume after provider failures, Connect after a refused key).
 * A spend limit reached says it waits for the next UTC day and resumes by itself.
 */
export function autoBuyStoppedAlert(recipient: Recipient, stop: AutoBuyStop): OutboxPayload {
  const { tr, language } = recipient;
  const names = stop.autoBuys.map(
    (autoBuy) => `<code>${autoBuy.id.slice(0, 8)}</code> (${autoBuyRentText(tr, language, autoBuy)})`,
  );
  const title = stop.reason === "spend_limit" ? "alert-autobuy-waiting" : "alert-autobuy-stopped";
  const lines = [
    tr(title, { count: stop.autoBuys.length }, { names: names.join(", ") }),
    tr(
      `alert-autobuy-why-${stop.reason.replace("_", "-")}`,
      {},
      { detail: escapeHtml(truncate(stop.detail ?? "", 300)) },
    ),
    tr(`alert-autobuy-do-${stop.reason.replace("_", "-")}`),
  ];
  const keyboard = new InlineKeyboard();
  const only = stop.autoBuys.length === 1 ? stop.autoBuys[0]!.id : null;
  if (stop.reason === "balance") keyboard.text(tr("button-topup"), MAIN_MENU.data("topup"));
  if (stop.reason === "key" || stop.reason === "scope") keyboard.text(tr("button-connect"), MAIN_MENU.data("connect"));
  if (only && (stop.reason === "balance" || stop.reason === "provider"))
    keyboard.text(tr("button-resume"), AUTO_BUY_ACTION.data("resume", only)).success();
  return message(lines.join("\n"), keyboard.inline_keyboard.flat().length > 0 ? keyboard : undefined);
}

/** An auto-buy's state in words: buying, paused (by whom), waiting for the next UTC day, stopped (why), ended. */
export function autoBuyStatusWords(tr: Translate, autoBuy: Pick<AutoBuy, "status" | "reason" | "resume_at">): string {
  switch (autoBuy.status) {
    case "active":
      return tr("autobuy-status-active");
    case "paused":
      return tr(autoBuy.reason === "switch" ? "autobuy-status-paused-switch" : "autobuy-status-paused");
    case "waiting":
      return tr("autobuy-status-waiting", { time: timeText(new Date(autoBuy.resume_at ?? 0).toISOString()) });
    case "stopped":
      return tr("autobuy-status-stopped", {
        why: tr(`autobuy-reason-${(autoBuy.reason ?? "user").replace("_", "-")}`),
      });
    default:
      return tr(autoBuy.reason === "user" ? "autobuy-status-ended-user" : "autobuy-status-ended");
  }
}
