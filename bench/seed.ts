import type { Kysely } from "kysely";
import type { Database } from "../src/db/schema";
import { hashToken, newToken, type SecretBox } from "../src/security/secret-box";

const CHUNK = 500;

/** Inserts `count` active users from `firstId` on (chat id = user id), in a few large transactions. */
export async function seedUsers(db: Kysely<Database>, firstId: number, count: number, now: number): Promise<void> {
  await db.transaction().execute(async (trx) => {
    for (let start = 0; start < count; start += CHUNK) {
      const rows = [];
      for (let i = start; i < Math.min(count, start + CHUNK); i++) {
        rows.push({
          telegram_id: firstId + i,
          chat_id: firstId + i,
          language: null,
          alert_orders: 1,
          alert_rules: 1,
          alert_deposits: 1,
          alert_other: 1,
          active: 1,
          created_at: now,
          updated_at: now,
        });
      }
      await trx
        .insertInto("users")
        .values(rows)
        .onConflict((oc) => oc.doNothing())
        .execute();
    }
  });
}

/** Gives each of the users a personal webhook token; returns the raw tokens in user order. */
export async function seedWebhookTokens(
  db: Kysely<Database>,
  firstId: number,
  count: number,
  now: number,
): Promise<string[]> {
  const tokens = Array.from({ length: count }, () => newToken());
  await db.transaction().execute(async (trx) => {
    for (let start = 0; start < count; start += CHUNK) {
      const rows = tokens.slice(start, start + CHUNK).map((token, offset) => ({
        telegram_id: firstId + start + offset,
        token_hash: hashToken(token),
        created_at: now,
      }));
      await trx.insertInto("webhook_tokens").values(rows).execute();
    }
  });
  return tokens;
}

/** Links an API key to each user, encrypted exactly as saveApiKey does (same associated data). */
export async function seedCredentials(
  db: Kysely<Database>,
  box: SecretBox,
  firstId: number,
  apiKeys: string[],
  now: number,
): Promise<void> {
  await db.transaction().execute(async (trx) => {
    for (let start = 0; start < apiKeys.length; start += CHUNK) {
      const rows = apiKeys.slice(start, start + CHUNK).map((apiKey, offset) => {
        const telegramId = firstId + start + offset;
        const sealed = box.seal(apiKey, `credentials:${telegramId}`);
        return {
          telegram_id: telegramId,
          key_id: sealed.keyId,
          ciphertext: sealed.ciphertext,
          last4: apiKey.slice(-4),
          broken_at: null,
          broken_notified: 0,
          linked_at: now,
        };
      });
      await trx.insertInto("credentials").values(rows).execute();
    }
  });
}

/** A seeded user's poll state beyond the defaults: their schedule, rule check and seen notifications. */
export interface SeededPollState {
  primed?: number;
  next_poll_at?: number;
  motion?: string | null;
  rule_active?: number;
  rules_checked_at?: number;
  order_until?: number | null;
  deposit_until?: number | null;
  seen_until?: number | null;
}

/**
 * Gives each user a poll state as one linked a while ago has (rules already read at `now`), with
 * what `state` adds for the i-th user; without it, every user is due at once and on the fast
 * schedule for a day (polled every cycle, as every user was before schedules).
 */
export async function seedPollStates(
  db: Kysely<Database>,
  firstId: number,
  count: number,
  now: number,
  state: (index: number) => SeededPollState = () => ({ motion: "deposit", deposit_until: now + 86_400_000 }),
): Promise<void> {
  await db.transaction().execute(async (trx) => {
    for (let start = 0; start < count; start += CHUNK) {
      const rows = [];
      for (let i = start; i < Math.min(count, start + CHUNK); i++)
        rows.push({
          telegram_id: firstId + i,
          primed: 0,
          failures: 0,
          next_poll_at: 0,
          rules_checked_at: now,
          ...state(i),
        });
      await trx
        .insertInto("poll_state")
        .values(rows)
        .onConflict((oc) => oc.doNothing())
        .execute();
    }
  });
}
