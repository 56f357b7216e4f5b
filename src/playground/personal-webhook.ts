import type { Kysely } from "kysely";
import type { Database } from "#src/db/schema";
import { findUserByWebhookToken, hasWebhookToken, rotateWebhookToken } from "#src/db/repos/webhook-tokens";
import type { FakeTelegram } from "#src/telegram-fake/index";

const WEBHOOK_URL_IN_CHAT = /https?:\/\/[^\s<>"]+\/webhooks\/marketplace\/[A-Za-z0-9_-]+/g;

/** The newest personal webhook URL the bot showed this user (from /webhook, when PUBLIC_URL is set). */
export function webhookUrlFromChat(fake: FakeTelegram, userId: number): string | null {
  const messages = fake
    .messages(userId)
    .filter((m) => m.from === "bot" && !m.deleted)
    .reverse();
  for (const message of messages) {
    const found = (message.text ?? "").match(WEBHOOK_URL_IN_CHAT);
    if (found) return found.at(-1)!;
  }
  return null;
}

export type TokenOutcome = { token: string; issued: boolean } | { unknown: true };

/**
 * Only a hash of each personal token is stored, so the panel can use a user's token only when it
 * knows the raw one: one it issued itself (remembered in memory) or one the bot showed in the chat.
 * A user with no token gets one, the way /webhook issues it. A user whose token the panel cannot
 * read gets a new one only when `mayReissue` (no PUBLIC_URL: nobody could have been shown the
 * old URL, so nothing outside depends on it); otherwise the caller explains how to rotate it.
 */
export function createPersonalWebhookTokens(fake: FakeTelegram) {
  const issued = new Map<number, string>();
  const owns = async (db: Kysely<Database>, userId: number, token: string | undefined) =>
    token !== undefined && (await findUserByWebhookToken(db, token)) === userId;

  return async function tokenFor(
    db: Kysely<Database>,
    userId: number,
    now: number,
    mayReissue: boolean,
  ): Promise<TokenOutcome> {
    const remembered = issued.get(userId);
    if (await owns(db, userId, remembered)) return { token: remembered!, issued: false };
    const shown = webhookUrlFromChat(fake, userId)?.split("/").at(-1);
    if (await owns(db, userId, shown)) return { token: shown!, issued: false };
    if ((await hasWebhookToken(db, userId)) && !mayReissue) return { unknown: true };
    const token = await rotateWebhookToken(db, userId, now);
    issued.set(userId, token);
    return { token, issued: true };
  };
}
