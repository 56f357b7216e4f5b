import type { Transformer } from "grammy";
import { sql, type Kysely, type Transaction } from "kysely";
import type { Database } from "../db/schema";
import { isPostgres } from "../db/dialect";
import { sqliteHandle } from "../db/connection";
import type SQLite from "better-sqlite3";

/**
 * Telegram's limits held across all replicas together, in the database:
 *
 * - global: one token bucket row (rate `perSecond`, capacity `burst`), taken from in a short
 *   transaction (row lock FOR UPDATE on PostgreSQL; SQLite has one writer), so the replicas
 *   together never exceed it. Any sliding second sees at most floor(`perSecond` + `burst`)
 *   grants (28 + 1.9: 29 by default, under Telegram's 30). Below 2 whole messages of burst the
 *   sends stay spaced (about 36 ms apart) and cannot arrive bunched at Telegram's end, while a
 *   loop that wakes a little late keeps the time it lost instead of falling behind the rate;
 *   The bot's replies take from the same bucket (sharedBudgetTransformer), so replies and alerts
 *   together stay under the limit;
 * - per chat: a row per chat with the earliest time of its next message, moved forward by one
 *   upsert whose DO UPDATE applies only when the chat is due, so two replicas cannot both write
 *   to a chat within the interval.
 */
export interface GlobalBudget {
  perSecond: number;
  burst: number;
}

export const DEFAULT_GLOBAL_BUDGET: GlobalBudget = { perSecond: 28, burst: 1.9 };

/**
 * Takes up to `want` messages from the global bucket. Returns how many were granted and, when
 * fewer than wanted, when the next one will be available.
 */
export async function takeGlobal(db: Kysely<Database>, now: number, want: number, budget: GlobalBudget = DEFAULT_GLOBAL_BUDGET): Promise<{ granted: number; limited: boolean; nextAt: number }> {
  if (want <= 0) return { granted: 0, limited: false, nextAt: now };
  // No fsync on SQLite: a reply (or a retry while it waits) would otherwise pay one per grant.
  const sqlite = sqliteHandle(db);
  if (sqlite) return db.connection().execute(async () => takeGlobalOnSqlite(sqlite, now, want, budget));
  return db.transaction().execute((trx) => takeGlobalIn(trx, now, want, budget));
}

/** What a bucket holding `tokensMilli` at `updatedAt` grants at `now`: the grant and the row to write. */
function drawFromBucket(tokensMilli: number, updatedAt: number, now: number, want: number, budget: GlobalBudget) {
  const capacity = Math.round(budget.burst * 1000);
  const elapsed = Math.max(0, now - updatedAt);
  const available = Math.min(capacity, tokensMilli + elapsed * budget.perSecond);
  const granted = Math.min(want, Math.floor(available / 1000));
  const left = available - granted * 1000;
  return { granted, limited: granted < want, nextAt: now + Math.ceil((1000 - Math.min(1000, left)) / budget.perSecond), row: { tokens_milli: Math.floor(left), updated_at: Math.max(now, updatedAt) } };
}

const budgetStatements = new WeakMap<SQLite.Database, { seed: SQLite.Statement; read: SQLite.Statement; write: SQLite.Statement; grant: SQLite.Transaction<(now: number, want: number, budget: GlobalBudget) => { granted: number; limited: boolean; nextAt: number }> }>();

/**
 * {@link takeGlobalIn} as one synchronous better-sqlite3 transaction (BEGIN IMMEDIATE, so another
 * process's grant waits on SQLite's lock instead of failing): a reply's grant costs a few
 * microseconds instead of several awaited queries. The caller holds Kysely's connection.
 *
 * It commits without an fsync (synchronous=NORMAL for this transaction, then the level the
 * connection had): a grant lost with the process costs nothing, and in WAL mode every other commit
 * stays as durable, since the next synchronous commit syncs the WAL up to and including this one
 * and a torn tail is cut off here, never before an earlier commit.
 */
function takeGlobalOnSqlite(sqlite: SQLite.Database, now: number, want: number, budget: GlobalBudget): { granted: number; limited: boolean; nextAt: number } {
  let statements = budgetStatements.get(sqlite);
  if (!statements) {
    const seed = sqlite.prepare("insert into send_budget (name, tokens_milli, updated_at) values ('telegram', ?, ?) on conflict do nothing");
    const read = sqlite.prepare("select tokens_milli, updated_at from send_budget where name = 'telegram'");
    const write = sqlite.prepare("update send_budget set tokens_milli = ?, updated_at = ? where name = 'telegram'");
    const grant = sqlite.transaction((at: number, count: number, limits: GlobalBudget) => {
      seed.run(Math.round(limits.burst * 1000), at);
      const row = read.get() as { tokens_milli: number; updated_at: number };
      const drawn = drawFromBucket(Number(row.tokens_milli), Number(row.updated_at), at, count, limits);
      write.run(drawn.row.tokens_milli, drawn.row.updated_at);
      return { granted: drawn.granted, limited: drawn.limited, nextAt: drawn.nextAt };
    });
    statements = { seed, read, write, grant };
    budgetStatements.set(sqlite, statements);
  }
  const level = Number(sqlite.pragma("synchronous", { simple: true }));
  sqlite.pragma("synchronous = NORMAL");
  try {
    return statements.grant.immediate(now, want, budget);
  } finally {
    sqlite.pragma(`synchronous = ${level}`);
  }
}

/** {@link takeGlobal} inside a transaction the caller holds (to claim rows in the same one). */
export async function takeGlobalIn(trx: Transaction<Database>, now: number, want: number, budget: GlobalBudget = DEFAULT_GLOBAL_BUDGET): Promise<{ granted: number; limited: boolean; nextAt: number }> {
  if (want <= 0) return { granted: 0, limited: false, nextAt: now };
  const capacity = Math.round(budget.burst * 1000);
  await trx.insertInto("send_budget").values({ name: "telegram", tokens_milli: capacity, updated_at: now }).onConflict((oc) => oc.doNothing()).execute();
  const row = await trx
    .selectFrom("send_budget")
    .select(["tokens_milli", "updated_at"])
    .where("name", "=", "telegram")
    .$if(isPostgres<Database>(trx), (qb) => qb.forUpdate())
    .executeTakeFirstOrThrow();
  const drawn = drawFromBucket(Number(row.tokens_milli), Number(row.updated_at), now, want, budget);
  await trx.updateTable("send_budget").set(drawn.row).where("name", "=", "telegram").execute();
  return { granted: drawn.granted, limited: drawn.limited, nextAt: drawn.nextAt };
}

/** Gives back `count` granted messages that were not sent (no row was ready), up to the capacity. */
export async function refundGlobal(db: Kysely<Database>, count: number, budget: GlobalBudget = DEFAULT_GLOBAL_BUDGET): Promise<void> {
  if (count <= 0) return;
  await db
    .updateTable("send_budget")
    .set((eb) => ({ tokens_milli: sql<number>`case when ${eb.ref("tokens_milli")} + ${count * 1000} > ${Math.round(budget.burst * 1000)} then ${Math.round(budget.burst * 1000)} else ${eb.ref("tokens_milli")} + ${count * 1000} end` }))
    .where("name", "=", "telegram")
    .execute();
}

/** Takes the chat's next turn; null when granted, else the time the chat may be written to again. */
export async function takeChatSlot(db: Kysely<Database>, chatId: number, now: number, intervalMs: number): Promise<number | null> {
  const result = await db
    .insertInto("chat_send")
    .values({ chat_id: chatId, next_send_at: now + intervalMs })
    .onConflict((oc) => oc.column("chat_id").doUpdateSet({ next_send_at: now + intervalMs }).where("chat_send.next_send_at", "<=", now))
    .executeTakeFirst();
  if (Number(result.numInsertedOrUpdatedRows ?? 0n) > 0) return null;
  const row = await db.selectFrom("chat_send").select("next_send_at").where("chat_id", "=", chatId).executeTakeFirst();
  return row ? Number(row.next_send_at) : now + intervalMs;
}

/** Gives back a chat turn that was taken but not used (the global budget was empty). */
export async function returnChatSlot(db: Kysely<Database>, chatId: number, takenAt: number, intervalMs: number): Promise<void> {
  await db.updateTable("chat_send").set({ next_send_at: takenAt }).where("chat_id", "=", chatId).where("next_send_at", "=", takenAt + intervalMs).execute();
}

/** Pushes a chat's next turn back (after a send; Telegram answered 429 with retry_after). */
export async function deferChat(db: Kysely<Database>, chatId: number, until: number): Promise<void> {
  await db
    .insertInto("chat_send")
    .values({ chat_id: chatId, next_send_at: until })
    .onConflict((oc) => oc.column("chat_id").doUpdateSet({ next_send_at: until }).where("chat_send.next_send_at", "<", until))
    .execute();
}

/** Forgets chat turns long past (run now and then). */
export async function pruneSendBudget(db: Kysely<Database>, now: number): Promise<void> {
  await db.deleteFrom("chat_send").where("next_send_at", "<", now - 3_600_000).execute();
}


/** Bot API methods that put a new message in a chat: each takes one message from the global budget. */
const NEW_MESSAGE_METHODS = new Set(["sendMessage", "sendPhoto", "sendDocument", "sendAnimation", "sendVideo", "sendAudio", "sendVoice", "sendSticker", "sendLocation", "sendContact", "sendPoll", "sendDice", "sendMediaGroup", "copyMessage", "copyMessages", "forwardMessage", "forwardMessages"]);

/**
 * Makes the bot's own replies take from the same global budget as pushed alerts, so replies and
 * alerts of every replica together stay under Telegram's overall limit. A reply waits for its turn
 * (about 36 ms at most while alerts use the whole budget), for at most `maxWaitMs`; after that, or
 * when the database cannot be asked, it goes anyway and Telegram's 429 handling takes over.
 */
export function sharedBudgetTransformer(db: Kysely<Database>, now: () => number, options: { budget?: GlobalBudget; maxWaitMs?: number } = {}): Transformer {
  const budget = options.budget ?? DEFAULT_GLOBAL_BUDGET;
  const maxWaitMs = options.maxWaitMs ?? 5_000;
  return async (prev, method, payload, signal) => {
    if (NEW_MESSAGE_METHODS.has(method)) {
      const deadline = Date.now() + maxWaitMs;
      try {
        for (;;) {
          const { granted, nextAt } = await takeGlobal(db, now(), 1, budget);
          if (granted > 0 || Date.now() >= deadline) break;
          // The app clock may run faster than the wall clock in tests: never sleep more than 50 ms at once.
          await new Promise((resolve) => setTimeout(resolve, Math.max(1, Math.min(50, nextAt - now()))));
        }
      } catch {
        // the budget is a courtesy to Telegram; a database hiccup must not swallow the reply
      }
    }
    return prev(method, payload, signal);
  };
}
