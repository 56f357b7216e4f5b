import type { Kysely } from "kysely";
import type { Database } from "#src/db/schema";
import { WriteBatcher } from "#src/db/write-batcher";
import {
  claimUpdateNow,
  claimWaitingUpdate,
  forgetUpdate,
  markUpdateDone,
  markUpdateHandling,
  renewUpdateLease,
  startTurnIfFree,
} from "#src/db/repos/telegram-updates";

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

export type Turn =
  { kind: "duplicate" } | { kind: "go"; waitedMs: number; finish(): Promise<void>; abandon(): Promise<void> };

/**
 * Takes an update's turn in the database every replica shares: records it (a duplicate is
 * refused), then waits, polling every `pollMs`, until no earlier update of its chat is waiting and
 * none is being handled (at most `maxWaitMs`), holding its lease renewed meanwhile.
 */
export async function takeTurn(
  db: Kysely<Database>,
  updateId: number,
  chatId: number,
  owner: string,
  options: TurnOptions = {},
): Promise<Turn> {
  const leaseMs = options.leaseMs ?? 15_000;
  const started = Date.now();
  const writes = options.writes ?? new WriteBatcher(db);
  if (!(await writes.run((db) => claimWaitingUpdate(db, updateId, chatId, owner, started, leaseMs))))
    return { kind: "duplicate" };

  const heartbeat = setInterval(
    () => void renewUpdateLease(db, updateId, owner, Date.now() + leaseMs).catch(() => undefined),
    Math.max(200, Math.floor(leaseMs / 3)),
  );
  heartbeat.unref();
  const stop = () => clearInterval(heartbeat);
  try {
    await waitForTurn(writes, updateId, chatId, leaseMs, started, options);
  } catch (error) {
    stop();
    throw error;
  }
  return {
    kind: "go",
    waitedMs: Date.now() - started,
    async finish() {
      stop();
      await writes.run((db) => markUpdateDone(db, updateId));
    },
    async abandon() {
      // Handling failed: let a redelivery by Telegram try again at once.
      stop();
      await writes.run((db) => forgetUpdate(db, updateId, owner));
    },
  };
}

/** Tries for the chat's turn until it comes; past `maxWaitMs` (an earlier update stuck far too long) the update goes anyway. */
async function waitForTurn(
  writes: WriteBatcher,
  updateId: number,
  chatId: number,
  leaseMs: number,
  started: number,
  options: TurnOptions,
): Promise<void> {
  const maxWaitMs = options.maxWaitMs ?? 60_000;
  const pollMs = options.pollMs ?? 15;
  while (!(await writes.transaction((trx) => startTurnIfFree(trx, updateId, chatId, leaseMs)))) {
    if (Date.now() - started > maxWaitMs) {
      await writes.run((db) => markUpdateHandling(db, updateId));
      break;
    }
    await new Promise((resolve) => setTimeout(resolve, pollMs));
  }
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
export function processUpdateTurns(
  db: Kysely<Database>,
  owner: string,
  options: Pick<TurnOptions, "leaseMs" | "writes"> = {},
): UpdateTurns {
  const leaseMs = options.leaseMs ?? 15_000;
  const writes = options.writes ?? new WriteBatcher(db);
  const handling = new Set<number>();
  return {
    kind: "process",
    async take(updateId, chatId) {
      if (handling.has(updateId)) return { kind: "duplicate" };
      handling.add(updateId);
      const now = Date.now();
      let claimed: boolean;
      try {
        claimed = await writes.run((db) => claimUpdateNow(db, updateId, chatId, owner, now, leaseMs));
      } catch (error) {
        handling.delete(updateId);
        throw error;
      }
      if (!claimed) {
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
        finish: () => end(() => writes.run((db) => markUpdateDone(db, updateId))),
        abandon: () => end(() => writes.run((db) => forgetUpdate(db, updateId, owner))),
      };
    },
  };
}
