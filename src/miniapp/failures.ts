import type { Translate } from "#src/chat/i18n";
import { visibleText } from "#src/bot/edit-in-place";
import { MarketplaceError } from "#src/marketplace/index";
import { truncate } from "#src/chat/html";
import { markKeyBroken } from "#src/db/repos/credentials";
import type { MiniAppDeps } from "./deps";

/**
 * A read of the dashboard failed: a 401 means the marketplace refused the key itself, so it is
 * marked broken, as the chat marks it (alerts pause until a new key is linked). The failure in
 * the chat's words.
 */
export async function readFailure(
  deps: Pick<MiniAppDeps, "db" | "now" | "logger">,
  telegramId: number,
  tr: Translate,
  error: unknown,
): Promise<string> {
  if (
    error instanceof MarketplaceError &&
    error.kind === "unauthorized" &&
    (await markKeyBroken(deps.db, telegramId, deps.now()))
  ) {
    deps.logger.info(
      { userId: telegramId },
      "dashboard: the marketplace refused the API key; it is marked broken and alerts pause until the user links a new one",
    );
  }
  return describeFailure(tr, error);
}

/**
 * A marketplace failure in the chat's words, as plain text for the page. `write`: the call acted
 * (a 403 there is about the action, not the key), as the chat reads it.
 */
export function describeFailure(tr: Translate, error: unknown, write = false): string {
  if (!(error instanceof MarketplaceError)) throw error;
  const detail = truncate(error.detail ?? "", 200);
  switch (error.kind) {
    case "insufficient_balance":
      return plain(tr("error-insufficient-balance"));
    case "insufficient_scope":
      return plain(tr("error-scope"));
    case "spend_limit":
      return plain(tr("error-spend-limit"));
    case "forbidden":
    case "unauthorized":
      if (error.kind === "forbidden" && write) return plain(tr("error-forbidden", { detail: detail || "403" }));
      return plain(tr("key-broken-now"));
    case "not_found":
      return plain(tr("error-not-found"));
    case "conflict":
      return plain(tr("error-conflict", { detail: detail || "409" }));
    case "rate_limited":
      return plain(tr("error-rate-limited"));
    case "bad_request":
    case "unprocessable":
      return plain(tr("error-rejected", { detail: detail || error.kind }));
    default:
      return plain(tr("error-unavailable"));
  }
}

/** A translation's HTML as the text Telegram would show. */
export function plain(html: string): string {
  return visibleText(html).trim();
}
