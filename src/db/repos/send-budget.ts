import { sql, type Kysely, type RawBuilder, type Transaction } from "kysely";
import type SQLite from "better-sqlite3";
import type { Database } from "../schema";
import { isPostgres } from "../dialect";
import { grantFromBudgetRow, withoutFsync } from "../raw-sqlite";

// Telegram's overall budget: one token bucket row (send_budget) every replica takes from (see scale/send-budget.ts).

/** The overall budget: messages per second, and how many may leave at once. */
export interface GlobalBudget {
  perSecond: number;
  burst: number;
}

export const DEFAULT_GLOBAL_BUDGET: GlobalBudget = { perSecond: 28, burst: 1.9 };

/**
 * The budget several replicas share on PostgreSQL: at most 26 grants in any second, one every
 * 40 ms. Each process's arrival window (arrival-window.ts) sees only its own messages on their way,
 * so sends of two replicas granted apart can still arrive together at Telegram's end: a replica
 * whose loop stalls between its grant and its request sends late, beside the others' next ones.
 * 31 arrivals then need the grants of 30 / 25 = 1.2 s, which leaves 250 ms for them to bunch
 * (seen on two busy cores: about 100 ms locally, 133 ms in CI at 26/s; 31 within 940 ms at 28/s).
 */
export const REPLICAS_GLOBAL_BUDGET: GlobalBudget = { perSecond: 25, burst: 1 };

/**
 * Takes up to `want` messages from the global bucket. Returns how many were granted and, when
 * fewer than wanted, when the next one will be available.
 */
export async function takeGlobal(
  db: Kysely<Database>,
  now: number,
  want: number,
  budget: GlobalBudget = DEFAULT_GLOBAL_BUDGET,
): Promise<{ granted: number; limited: boolean; nextAt: number }> {
  if (want <= 0) return { granted: 0, limited: false, nextAt: now };
  // On SQLite: raw statements committed without an fsync, a reply (or a retry while it waits)
  // would otherwise pay one per grant (the figures are in ../raw-sqlite).
  const onSqlite = withoutFsync(db, (sqlite) => takeGlobalOnSqlite(sqlite, now, want, budget));
  if (onSqlite) return onSqlite;
  if (isPostgres(db)) return takeGlobalOnPostgres(db, now, want, budget);
  return db.transaction().execute((trx) => takeGlobalIn(trx, now, want, budget));
}

/**
 * {@link takeGlobalIn} on PostgreSQL as one statement, one round trip instead of four (BEGIN, the
 * locking read, the write, COMMIT) for every reply: the row is locked and read in a CTE, and the
 * update computes what {@link drawFromBucket} computes, in double precision as JavaScript does, and
 * returns the grant. In READ COMMITTED a grant that waited for another's lock reads the row that
 * one committed, so concurrent grants never hand out the same tokens. The row is seeded on the
 * first grant ever.
 */
async function takeGlobalOnPostgres(
  db: Kysely<Database>,
  now: number,
  want: number,
  budget: GlobalBudget,
): Promise<Grant> {
  const grant = () =>
    sql<{
      available: number | string;
      granted: number | string;
    }>`with ${BUDGET_ROW_LOCK}, ${budgetGrantCtes({ now, want, capacity: Math.round(budget.burst * 1000), perSecond: budget.perSecond })} select available, granted from budget_drawn`.execute(
      db,
    );
  let result = await grant();
  if (result.rows.length === 0) {
    await seedBudgetRow(db, now, budget);
    result = await grant();
  }
  const row = result.rows[0];
  if (!row) throw new Error("the Telegram budget row could not be created");
  return grantFromRow(row, now, want, budget);
}

/**
 * The CTEs of {@link takeGlobalOnPostgres}'s statement after {@link BUDGET_ROW_LOCK} (which the
 * statement puts first), ending in `budget_drawn` (the grant, and what the bucket held before it).
 * `when` is a condition the row is drawn from only under. The values may be prepared() parameters.
 */
export function budgetGrantCtes(
  v: { now: unknown; want: unknown; capacity: unknown; perSecond: unknown },
  when: RawBuilder<unknown> = sql`true`,
) {
  return sql`drawn as (
        select least(${v.capacity}::float8, tokens_milli + greatest(0, ${v.now}::bigint - updated_at)::float8 * ${v.perSecond}::float8) as available, updated_at from current_row
        where ${when}
      ), granted as (
        select available, least(${v.want}::float8, floor(available / 1000)) as granted, updated_at from drawn
      ), budget_drawn as (
        update send_budget set tokens_milli = floor(granted.available - granted.granted * 1000)::bigint, updated_at = greatest(${v.now}::bigint, granted.updated_at)
        from granted where send_budget.name = 'telegram'
        returning granted.available, granted.granted
      )`;
}

/** The CTE that locks the bucket's row and reads it (materialized: read once, locked once). */
export const BUDGET_ROW_LOCK = sql`current_row as materialized (
        select tokens_milli, updated_at from send_budget where name = 'telegram' for update
      )`;

/** The grant a PostgreSQL grant statement returned, as {@link drawFromBucket} gives it. */
export function grantFromRow(
  row: { available: number | string; granted: number | string },
  now: number,
  want: number,
  budget: GlobalBudget,
): Grant {
  const available = Number(row.available);
  const granted = Number(row.granted);
  return { granted, limited: granted < want, nextAt: nextTokenAt(available - granted * 1000, now, budget) };
}

/** The first grant of an empty bucket: a full one (every later grant reads and writes the row). */
async function seedBudgetRow(db: Kysely<Database>, now: number, budget: GlobalBudget): Promise<void> {
  await db
    .insertInto("send_budget")
    .values({ name: "telegram", tokens_milli: Math.round(budget.burst * 1000), updated_at: now })
    .onConflict((oc) => oc.doNothing())
    .execute();
}

/** When the bucket holds a whole message again, given `leftMilli` after a grant at `now`. */
function nextTokenAt(leftMilli: number, now: number, budget: GlobalBudget): number {
  return now + Math.ceil((1000 - Math.min(1000, leftMilli)) / budget.perSecond);
}

/** What a bucket holding `tokensMilli` at `updatedAt` grants at `now`: the grant and the row to write. */
export function drawFromBucket(
  tokensMilli: number,
  updatedAt: number,
  now: number,
  want: number,
  budget: GlobalBudget,
) {
  const capacity = Math.round(budget.burst * 1000);
  const elapsed = Math.max(0, now - updatedAt);
  const available = Math.min(capacity, tokensMilli + elapsed * budget.perSecond);
  const granted = Math.min(want, Math.floor(available / 1000));
  const left = available - granted * 1000;
  return {
    granted,
    limited: granted < want,
    nextAt: nextTokenAt(left, now, budget),
    row: { tokens_milli: Math.floor(left), updated_at: Math.max(now, updatedAt) },
  };
}

/**
 * {@link takeGlobalIn} as one synchronous better-sqlite3 transaction ({@link grantFromBudgetRow}):
 * a reply's grant costs a few tens of microseconds instead of several awaited queries. The caller
 * holds Kysely's connection, with synchronous = NORMAL ({@link withoutFsync}).
 */
function takeGlobalOnSqlite(sqlite: SQLite.Database, now: number, want: number, budget: GlobalBudget): Grant {
  return grantFromBudgetRow(sqlite, { tokens_milli: Math.round(budget.burst * 1000), updated_at: now }, (row) => {
    const drawn = drawFromBucket(row.tokens_milli, row.updated_at, now, want, budget);
    return { row: drawn.row, result: { granted: drawn.granted, limited: drawn.limited, nextAt: drawn.nextAt } };
  });
}

/** {@link takeGlobal} inside a transaction the caller holds (to claim rows in the same one). */
export async function takeGlobalIn(
  trx: Transaction<Database>,
  now: number,
  want: number,
  budget: GlobalBudget = DEFAULT_GLOBAL_BUDGET,
): Promise<{ granted: number; limited: boolean; nextAt: number }> {
  if (want <= 0) return { granted: 0, limited: false, nextAt: now };
  const read = () =>
    trx
      .selectFrom("send_budget")
      .select(["tokens_milli", "updated_at"])
      .where("name", "=", "telegram")
      .$if(isPostgres<Database>(trx), (qb) => qb.forUpdate())
      .executeTakeFirst();
  // The row exists after the first grant ever: seeded only when the read finds none (on
  // PostgreSQL each statement is a round trip, and this runs for every reply). Two first grants
  // at once both insert; one row wins, and the second read waits for the first one's lock.
  let row = await read();
  if (!row) {
    await seedBudgetRow(trx, now, budget);
    row = await read();
    if (!row) throw new Error("the Telegram budget row could not be created");
  }
  const drawn = drawFromBucket(Number(row.tokens_milli), Number(row.updated_at), now, want, budget);
  await trx.updateTable("send_budget").set(drawn.row).where("name", "=", "telegram").execute();
  return { granted: drawn.granted, limited: drawn.limited, nextAt: drawn.nextAt };
}

/** Gives back `count` granted messages that were not sent (no row was ready), up to the capacity. */
export async function refundGlobal(
  db: Kysely<Database>,
  count: number,
  budget: GlobalBudget = DEFAULT_GLOBAL_BUDGET,
): Promise<void> {
  if (count <= 0) return;
  await db
    .updateTable("send_budget")
    .set((eb) => ({
      tokens_milli: sql<number>`case when ${eb.ref("tokens_milli")} + ${count * 1000} > ${Math.round(budget.burst * 1000)} then ${Math.round(budget.burst * 1000)} else ${eb.ref("tokens_milli")} + ${count * 1000} end`,
    }))
    .where("name", "=", "telegram")
    .execute();
}

/** A grant from the global bucket: how many messages, and when the next one is available. */
export interface Grant {
  granted: number;
  limited: boolean;
  nextAt: number;
}
