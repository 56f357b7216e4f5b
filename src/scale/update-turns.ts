import { sql, type Kysely } from "kysely";
import type { Database } from "../db/schema";
import { isPostgres } from "../db/dialect";
import { WriteBatcher } from "../db/write-batcher";

/** First key of the two-key advisory locks taken for chat turns (the second is the chat's hash). */
const TURN_LOCK_SPACE = 7_340_121;

/**
 * Telegram updates in webhook mode, shared by every replica behind the load balancer:
 *
 * - each update is recorded once by update_id (a redelivery while it is handled or after it was
 *   handled is acknowledged and dropped; one whose handler died with its replica is taken over
 *   once its lease runs out);
 * - updates of one chat take turns in update_id order: an update is handled only when no earlier
 *   update of its chat is waiting and no other one is being handled, wherever they are
 *   (done: 0 waiting, 2 being handled, 1 done).
 *
 * Leases are wall-clock milliseconds and renewed while the handler runs.
 */
export interface TurnOptions {
  leaseMs?: number;
  /** How long to wait for the turn before handling anyway (an earlier update stuck far too long). */
  maxWaitMs?: number;
  pollMs?: number;
  /** The app's batcher, so the turn's writes share commits with other concurrent writes (SQLite); default: one of its own. */
  writes?: WriteBatcher;
}

export type Turn = { kind: "duplicate" } | { kind: "go"; waitedMs: number; finish(): Promise<void>; abandon(): Promise<void> };

export async function takeTurn(db: Kysely<Database>, updateId: number, chatId: number, owner: string, options: TurnOptions = {}): Promise<Turn> {
  const leaseMs = options.leaseMs ?? 15_000;
  const maxWaitMs = options.maxWaitMs ?? 60_000;
  const pollMs = options.pollMs ?? 15;
  const started = Date.now();
  const now = started;
  const writes = options.writes ?? new WriteBatcher(db);
  const claimed = await writes.run((db) =>
    db
      .insertInto("telegram_updates")
      .values({ update_id: updateId, chat_id: chatId, owner, lease_until: now + leaseMs, done: 0, received_at: now })
      .onConflict((oc) =>
        oc
          .column("update_id")
          .doUpdateSet({ owner, lease_until: now + leaseMs })
          // A waiting update whose holder's lease ran out; or one this replica took and whose
          // handling is over without a record of it (the database went away before the turn could
          // be given back): a chat's updates run one at a time here, so none of its handling runs now.
          .where((eb) =>
            eb.or([
              eb.and([eb("telegram_updates.done", "=", 0), eb("telegram_updates.lease_until", "<", now)]),
              eb.and([eb("telegram_updates.owner", "=", owner), eb("telegram_updates.done", "!=", 1)]),
            ]),
          ),
      )
      .executeTakeFirst(),
  );
  if (Number(claimed.numInsertedOrUpdatedRows ?? 0n) === 0) return { kind: "duplicate" };

  const renew = () => db.updateTable("telegram_updates").set({ lease_until: Date.now() + leaseMs }).where("update_id", "=", updateId).where("owner", "=", owner).execute();
  const heartbeat = setInterval(() => void renew().catch(() => undefined), Math.max(200, Math.floor(leaseMs / 3)));
  heartbeat.unref();
  const stop = () => clearInterval(heartbeat);

  const pg = isPostgres(db);
  // Atomically: no live earlier update of this chat is waiting and none is being handled → ours
  // is marked as being handled (done = 2). The check and the mark run under a per-chat lock
  // (pg_advisory_xact_lock on PostgreSQL; SQLite has one writer), so two replicas cannot both go.
  const tryGo = () =>
    writes.transaction(async (trx) => {
      if (pg) await sql`select pg_advisory_xact_lock(${TURN_LOCK_SPACE}::int, hashtext(${String(chatId)}))`.execute(trx);
      const current = Date.now();
      const blocker = await trx
        .selectFrom("telegram_updates")
        .select("update_id")
        .where("chat_id", "=", chatId)
        .where("lease_until", ">=", current)
        .where("update_id", "!=", updateId)
        .where((eb) => eb.or([eb.and([eb("done", "=", 0), eb("update_id", "<", updateId)]), eb("done", "=", 2)]))
        .limit(1)
        .executeTakeFirst();
      if (blocker) return false;
      await trx.updateTable("telegram_updates").set({ done: 2, lease_until: current + leaseMs }).where("update_id", "=", updateId).execute();
      return true;
    });
  try {
    while (!(await tryGo())) {
      if (Date.now() - started > maxWaitMs) {
        await writes.run((db) => db.updateTable("telegram_updates").set({ done: 2 }).where("update_id", "=", updateId).execute());
        break;
      }
      await new Promise((resolve) => setTimeout(resolve, pollMs));
    }
  } catch (error) {
    stop();
    throw error;
  }
  return {
    kind: "go",
    waitedMs: Date.now() - started,
    async finish() {
      stop();
      await writes.run((db) => db.updateTable("telegram_updates").set({ done: 1 }).where("update_id", "=", updateId).execute());
    },
    async abandon() {
      // Handling failed: let a redelivery by Telegram try again at once.
      stop();
      await writes.run((db) => db.deleteFrom("telegram_updates").where("update_id", "=", updateId).where("owner", "=", owner).execute());
    },
  };
}

/** How long a received update is remembered for redelivery dedupe (Telegram gives up well before). */
export const UPDATE_DEDUPE_MS = 86_400_000;

/**
 * Forgets updates received over UPDATE_DEDUPE_MS ago that nobody holds: finished ones, and those
 * whose handler died with its replica (their lease ran out). At most `limit` a call; wall-clock
 * `now`, as the turns' own times. Returns how many went.
 */
export async function pruneTelegramUpdates(db: Kysely<Database>, now: number, limit = 10_000): Promise<number> {
  const before = now - UPDATE_DEDUPE_MS;
  const result = await db
    .deleteFrom("telegram_updates")
    .where("update_id", "in", (eb) => eb.selectFrom("telegram_updates").select("update_id").where("received_at", "<", before).where("lease_until", "<", now).limit(limit))
    .where("lease_until", "<", now)
    .executeTakeFirst();
  return Number(result.numDeletedRows);
}

/**
 * How the webhook route takes an update's turn: in the database every replica shares
 * (PostgreSQL), or, on SQLite (one process by design), in this process with only the dedupe row
 * in the database.
 */
export interface UpdateTurns {
  readonly kind: "database" | "process";
  take(updateId: number, chatId: number): Promise<Turn>;
}

/** Turns shared by every replica through the database ({@link takeTurn}). */
export function databaseUpdateTurns(db: Kysely<Database>, owner: string, options: TurnOptions = {}): UpdateTurns {
  return { kind: "database", take: (updateId, chatId) => takeTurn(db, updateId, chatId, owner, options) };
}

/**
 * Turns for one process. The webhook route already handles a chat's updates one after another
 * in this process, so the cross-replica check (a transaction per update, and a lease renewed
 * while it runs) has nothing to guard. What stays in the database is the dedupe row, so a
 * redelivery after a restart is still recognised: an update is claimed by one upsert, and marked
 * done when handled.
 *
 * - an update being handled here is a duplicate (known from memory);
 * - a row already done is a duplicate (handled before, perhaps before a restart);
 * - a row not done and not being handled here was left by a process that died: taken over at
 *   once (no other process shares a SQLite file, so no lease needs to run out first).
 */
export function processUpdateTurns(db: Kysely<Database>, owner: string, options: Pick<TurnOptions, "leaseMs" | "writes"> = {}): UpdateTurns {
  const leaseMs = options.leaseMs ?? 15_000;
  const writes = options.writes ?? new WriteBatcher(db);
  const handling = new Set<number>();
  return {
    kind: "process",
    async take(updateId, chatId) {
      if (handling.has(updateId)) return { kind: "duplicate" };
      handling.add(updateId);
      const now = Date.now();
      let claimed;
      try {
        claimed = await writes.run((db) =>
          db
            .insertInto("telegram_updates")
            .values({ update_id: updateId, chat_id: chatId, owner, lease_until: now + leaseMs, done: 2, received_at: now })
            .onConflict((oc) => oc.column("update_id").doUpdateSet({ owner, lease_until: now + leaseMs, done: 2 }).where("telegram_updates.done", "!=", 1))
            .executeTakeFirst(),
        );
      } catch (error) {
        handling.delete(updateId);
        throw error;
      }
      if (Number(claimed.numInsertedOrUpdatedRows ?? 0n) === 0) {
        handling.delete(updateId);
        return { kind: "duplicate" };
      }
      let over = false;
      // Forgotten here only once the row says what happened, so a redelivery in between is still a duplicate.
      const end = async (write: () => Promise<unknown>) => {
        if (over) return;
        over = true;
        try {
          await write();
        } finally {
          handling.delete(updateId);
        }
      };
      return {
        kind: "go",
        waitedMs: Date.now() - now,
        finish: () => end(() => writes.run((db) => db.updateTable("telegram_updates").set({ done: 1 }).where("update_id", "=", updateId).execute())),
        abandon: () => end(() => writes.run((db) => db.deleteFrom("telegram_updates").where("update_id", "=", updateId).where("owner", "=", owner).execute())),
      };
    },
  };
}
