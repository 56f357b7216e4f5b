import type { Transformer } from "grammy";
import { sql, type Kysely, type RawBuilder, type Transaction } from "kysely";
import type { Database } from "../db/schema";
import { coordinating, isPostgres } from "../db/dialect";
import { sqliteHandle } from "../db/connection";
import { prepared, type ParamFn } from "../db/prepared";
import { StatementBatcher, type BatcherCounts } from "../db/statement-batcher";
import type SQLite from "better-sqlite3";
import type { ArrivalWindow } from "./arrival-window";

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
 *   to a chat out of turn. The row is a token bucket kept as one time (GCRA): `burst` messages
 *   may leave at once, then one per `intervalMs`. The bot's replies and the pushed alerts take
 *   their turns from the same row, so together they keep the one pace Telegram allows a chat.
 */
export interface ChatPace {
  /** One message per this many ms once the burst is spent. */
  intervalMs: number;
  /** Messages that may leave at once after a quiet spell. */
  burst: number;
  /**
   * A reply answered within this many ms of its turn is not counted again from its answer: the
   * interval's own margin covers that delay (see DEFAULT_CHAT_PACE). Unset: every reply is.
   */
  answerSlackMs?: number;
}

/**
 * Telegram lets a private chat have a short burst (3 messages), then about 1 per second, counted
 * when they arrive. 1,100 ms instead of 1,000 leaves a tenth for a send that left late or took
 * long on the way: such a delay up to about 100 ms still arrives within the chat's allowance.
 *
 * A reply's send is counted again from Telegram's answer only when the answer came more than 50 ms
 * after its turn (half that tenth): any earlier, the message arrived at most 50 ms after its turn,
 * and the turn's own spacing already keeps it 1,050 ms from the chat's next one. On PostgreSQL that
 * is a round trip per reply saved whenever Telegram answers quickly.
 */
export const DEFAULT_CHAT_PACE: ChatPace = { intervalMs: 1_100, burst: 3, answerSlackMs: 50 };

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
export async function takeGlobal(db: Kysely<Database>, now: number, want: number, budget: GlobalBudget = DEFAULT_GLOBAL_BUDGET): Promise<{ granted: number; limited: boolean; nextAt: number }> {
  if (want <= 0) return { granted: 0, limited: false, nextAt: now };
  // No fsync on SQLite: a reply (or a retry while it waits) would otherwise pay one per grant.
  const sqlite = sqliteHandle(db);
  if (sqlite) return db.connection().execute(async () => takeGlobalOnSqlite(sqlite, now, want, budget));
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
async function takeGlobalOnPostgres(db: Kysely<Database>, now: number, want: number, budget: GlobalBudget): Promise<Grant> {
  const grant = () => sql<{ available: number | string; granted: number | string }>`with ${BUDGET_ROW_LOCK}, ${budgetGrantCtes({ now, want, capacity: Math.round(budget.burst * 1000), perSecond: budget.perSecond })} select available, granted from budget_drawn`.execute(db);
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
function budgetGrantCtes(v: { now: unknown; want: unknown; capacity: unknown; perSecond: unknown }, when: RawBuilder<unknown> = sql`true`) {
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
const BUDGET_ROW_LOCK = sql`current_row as materialized (
        select tokens_milli, updated_at from send_budget where name = 'telegram' for update
      )`;

/** The grant a PostgreSQL grant statement returned, as {@link drawFromBucket} gives it. */
function grantFromRow(row: { available: number | string; granted: number | string }, now: number, want: number, budget: GlobalBudget): Grant {
  const available = Number(row.available);
  const granted = Number(row.granted);
  return { granted, limited: granted < want, nextAt: nextTokenAt(available - granted * 1000, now, budget) };
}

/** The first grant of an empty bucket: a full one (every later grant reads and writes the row). */
async function seedBudgetRow(db: Kysely<Database>, now: number, budget: GlobalBudget): Promise<void> {
  await db.insertInto("send_budget").values({ name: "telegram", tokens_milli: Math.round(budget.burst * 1000), updated_at: now }).onConflict((oc) => oc.doNothing()).execute();
}

/** When the bucket holds a whole message again, given `leftMilli` after a grant at `now`. */
function nextTokenAt(leftMilli: number, now: number, budget: GlobalBudget): number {
  return now + Math.ceil((1000 - Math.min(1000, leftMilli)) / budget.perSecond);
}

/** What a bucket holding `tokensMilli` at `updatedAt` grants at `now`: the grant and the row to write. */
function drawFromBucket(tokensMilli: number, updatedAt: number, now: number, want: number, budget: GlobalBudget) {
  const capacity = Math.round(budget.burst * 1000);
  const elapsed = Math.max(0, now - updatedAt);
  const available = Math.min(capacity, tokensMilli + elapsed * budget.perSecond);
  const granted = Math.min(want, Math.floor(available / 1000));
  const left = available - granted * 1000;
  return { granted, limited: granted < want, nextAt: nextTokenAt(left, now, budget), row: { tokens_milli: Math.floor(left), updated_at: Math.max(now, updatedAt) } };
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
export async function refundGlobal(db: Kysely<Database>, count: number, budget: GlobalBudget = DEFAULT_GLOBAL_BUDGET): Promise<void> {
  if (count <= 0) return;
  await db
    .updateTable("send_budget")
    .set((eb) => ({ tokens_milli: sql<number>`case when ${eb.ref("tokens_milli")} + ${count * 1000} > ${Math.round(budget.burst * 1000)} then ${Math.round(budget.burst * 1000)} else ${eb.ref("tokens_milli")} + ${count * 1000} end` }))
    .where("name", "=", "telegram")
    .execute();
}

/**
 * Takes the chat's next turn; null when granted, else the time the chat may be written to again.
 * With `burst` above 1 the row is a bucket (see {@link ChatPace}): the stored time is where a full
 * bucket's allowance would start, so a chat quiet for a while gets `burst` turns at once, and a
 * turn moves the time by `intervalMs` from no earlier than `now - (burst - 1) × intervalMs`.
 */
export async function takeChatSlot(db: Kysely<Database>, chatId: number, now: number, intervalMs: number, burst = 1): Promise<number | null> {
  const fullFrom = now - Math.max(0, burst - 1) * intervalMs;
  // Compiled once (on PostgreSQL this runs for every reply; see src/db/prepared.ts).
  const result = await takeChatQuery(db, { chatId, fullFrom, interval: intervalMs, next: fullFrom + intervalMs, now });
  if (Number(result.numAffectedRows ?? 0n) > 0) return null;
  const [row] = (await nextChatSendQuery(db, { chatId })).rows;
  return row ? Number(row.next_send_at) : now + intervalMs;
}

const takeChatQuery = prepared((db: Kysely<Database>, param: ParamFn<{ chatId: number; fullFrom: number; interval: number; next: number; now: number }>) =>
  db
    .insertInto("chat_send")
    .values({ chat_id: param("chatId"), next_send_at: param("next") })
    .onConflict((oc) =>
      oc
        .column("chat_id")
        .doUpdateSet((eb) => ({ next_send_at: eb.case().when("chat_send.next_send_at", ">", param("fullFrom")).then(eb("chat_send.next_send_at", "+", param("interval"))).else(param("next")).end() }))
        .where("chat_send.next_send_at", "<=", param("now")),
    ),
);

const nextChatSendQuery = prepared((db: Kysely<Database>, param: ParamFn<{ chatId: number }>) => db.selectFrom("chat_send").select("next_send_at").where("chat_id", "=", param("chatId")));

const chatStatements = new WeakMap<SQLite.Database, { take: SQLite.Statement; read: SQLite.Statement; defer: SQLite.Statement }>();

/** The chat-turn statements of {@link takeChatSlot} and {@link deferChat}, compiled once per connection. */
function chatStatementsFor(sqlite: SQLite.Database) {
  let statements = chatStatements.get(sqlite);
  if (!statements) {
    statements = {
      take: sqlite.prepare("insert into chat_send (chat_id, next_send_at) values (@chat, @fullFrom + @interval) on conflict (chat_id) do update set next_send_at = case when chat_send.next_send_at > @fullFrom then chat_send.next_send_at + @interval else @fullFrom + @interval end where chat_send.next_send_at <= @now"),
      read: sqlite.prepare("select next_send_at from chat_send where chat_id = ?"),
      defer: sqlite.prepare("insert into chat_send (chat_id, next_send_at) values (@chat, @until) on conflict (chat_id) do update set next_send_at = @until where chat_send.next_send_at < @until"),
    };
    chatStatements.set(sqlite, statements);
  }
  return statements;
}

/** Runs one autocommitted write without an fsync: see takeGlobalOnSqlite for why that is safe. */
function withoutFsync<T>(sqlite: SQLite.Database, work: () => T): T {
  const level = Number(sqlite.pragma("synchronous", { simple: true }));
  sqlite.pragma("synchronous = NORMAL");
  try {
    return work();
  } finally {
    sqlite.pragma(`synchronous = ${level}`);
  }
}

/**
 * {@link takeChatSlot} for a reply, outside any transaction. On SQLite it commits without an
 * fsync, as the global grant does: a reply would otherwise pay one per message, and a turn lost
 * with the process costs nothing.
 */
export async function takeChatTurn(db: Kysely<Database>, chatId: number, now: number, pace: ChatPace): Promise<number | null> {
  const sqlite = sqliteHandle(db);
  if (!sqlite) return takeChatSlot(db, chatId, now, pace.intervalMs, pace.burst);
  return db.connection().execute(async () => {
    const statements = chatStatementsFor(sqlite);
    const fullFrom = now - Math.max(0, pace.burst - 1) * pace.intervalMs;
    const changes = withoutFsync(sqlite, () => statements.take.run({ chat: chatId, fullFrom, interval: pace.intervalMs, now }).changes);
    if (changes > 0) return null;
    const row = statements.read.get(chatId) as { next_send_at: number } | undefined;
    return row ? Number(row.next_send_at) : now + pace.intervalMs;
  });
}

/**
 * Counts a chat's send from the time Telegram answered it rather than the time it left: a send
 * that waited or took long on the way arrived later than its turn said, and the next turn must
 * not come early for that. Outside any transaction (on SQLite without an fsync, as {@link takeChatTurn}).
 */
export async function recordChatSendAt(db: Kysely<Database>, chatId: number, answeredAt: number, pace: ChatPace): Promise<void> {
  const until = answeredAt + pace.intervalMs - Math.max(0, pace.burst - 1) * pace.intervalMs;
  const sqlite = sqliteHandle(db);
  if (!sqlite) return deferChat(db, chatId, until);
  await db.connection().execute(async () => {
    withoutFsync(sqlite, () => chatStatementsFor(sqlite).defer.run({ chat: chatId, until }));
  });
}

/** A reply's chat turn and, when the chat's turn was granted, its grant of one message from the global bucket. */
export interface ReplyTurn {
  /** Null when the chat's turn was granted, else the time the chat may be written to again. */
  chatDueAt: number | null;
  /** The global grant taken with the turn: null when the turn was not granted, or, in a batch, when the bucket had no row yet (the caller then takes the grant itself). */
  grant: Grant | null;
}

/**
 * {@link takeChatTurn} and then, only when the turn is granted, {@link takeGlobal} for one message:
 * what every reply to a private chat takes before it leaves. On PostgreSQL both are one statement
 * (the bucket's row locked, the chat's upsert, then the draw, only if the upsert took the turn),
 * one round trip per reply instead of two. The bucket row is seeded by the usual grant when missing.
 */
export async function takeReplyTurn(db: Kysely<Database>, chatId: number, now: number, pace: ChatPace, budget: GlobalBudget): Promise<ReplyTurn> {
  if (!isPostgres(db)) {
    const chatDueAt = await takeChatTurn(db, chatId, now, pace);
    return { chatDueAt, grant: chatDueAt === null ? await takeGlobal(db, now, 1, budget) : null };
  }
  const fullFrom = now - Math.max(0, pace.burst - 1) * pace.intervalMs;
  const [row] = (await replyTurnQuery(db, { chatId, fullFrom, interval: pace.intervalMs, next: fullFrom + pace.intervalMs, now, capacity: Math.round(budget.burst * 1000), perSecond: budget.perSecond })).rows;
  if (!row) throw new Error("the reply turn statement returned no row");
  if (!row.turn_taken) return { chatDueAt: row.next_send_at === null ? now + pace.intervalMs : Number(row.next_send_at), grant: null };
  if (row.granted === null || row.available === null) return { chatDueAt: null, grant: await takeGlobal(db, now, 1, budget) };
  return { chatDueAt: null, grant: grantFromRow({ available: row.available, granted: row.granted }, now, 1, budget) };
}

const replyTurnQuery = prepared((db: Kysely<Database>, param: ParamFn<{ chatId: number; fullFrom: number; interval: number; next: number; now: number; capacity: number; perSecond: number }>) => {
  // The bucket's row is locked before the chat's: the sender's transaction takes the grant, then
  // its chats' turns, and two statements taking the two locks in opposite orders would deadlock.
  // The chat's insert selects its row only once current_row has been read (the count is never
  // below 0: it only orders the two). The upsert is takeChatQuery's; next_send_at is read as the
  // statement began (a turn not taken left the row as it was: the time the chat is due).
  const query = sql<{ turn_taken: boolean; next_send_at: number | string | null; available: number | string | null; granted: number | string | null }>`
    with ${BUDGET_ROW_LOCK}, chat_turn as (
      insert into chat_send (chat_id, next_send_at)
      select cast(${param("chatId")} as bigint), cast(${param("next")} as bigint) where (select count(*) from current_row) >= 0
      on conflict (chat_id) do update set next_send_at = case when chat_send.next_send_at > ${param("fullFrom")} then chat_send.next_send_at + ${param("interval")} else ${param("next")} end
      where chat_send.next_send_at <= ${param("now")}
      returning 1
    ), ${budgetGrantCtes({ now: param("now"), want: 1, capacity: param("capacity"), perSecond: param("perSecond") }, sql`exists (select 1 from chat_turn)`)}
    select exists (select 1 from chat_turn) as turn_taken,
      (select next_send_at from chat_send where chat_id = ${param("chatId")}) as next_send_at,
      (select available from budget_drawn) as available,
      (select granted from budget_drawn) as granted`;
  return { compile: () => query.compile(db) };
});

/** A reply's turn asked for through a batcher (see {@link replyTurns}). */
interface ReplyTurnCall {
  chatId: number;
  now: number;
  pace: ChatPace;
  budget: GlobalBudget;
}

/**
 * {@link takeReplyTurn} for several chats in one statement (PostgreSQL): the bucket's row locked
 * first, as there, each chat's upsert, then one draw for the turns taken, handed to them in the
 * order the calls came. One time for all (the batch's latest), one pace and one budget: a batch that mixes them
 * is refused and its calls run one at a time.
 */
async function takeReplyTurns(db: Kysely<Database>, calls: ReplyTurnCall[]): Promise<ReplyTurn[]> {
  // Refused before the statement runs, so the calls run again one at a time with nothing taken.
  const [first] = calls;
  if (!first || calls.some((call) => call.pace.intervalMs !== first.pace.intervalMs || call.pace.burst !== first.pace.burst || call.budget.perSecond !== first.budget.perSecond || call.budget.burst !== first.budget.burst)) {
    throw new Error("a batch of reply turns mixes paces or budgets");
  }
  const { pace, budget } = first;
  const now = Math.max(...calls.map((call) => call.now));
  const fullFrom = now - Math.max(0, pace.burst - 1) * pace.intervalMs;
  const { rows } = await replyTurnsQuery(db, { chatIds: calls.map((call) => call.chatId), fullFrom, interval: pace.intervalMs, next: fullFrom + pace.intervalMs, now, capacity: Math.round(budget.burst * 1000), perSecond: budget.perSecond });
  const byChat = new Map(rows.map((row) => [Number(row.chat_id), row]));
  // Nothing below throws: the statement has committed, and a batch that failed would be run again call by call.
  return calls.map((call): ReplyTurn => {
    const row = byChat.get(call.chatId);
    // (Every chat of the input has its row; one missing would have taken no turn.)
    if (!row || row.place === null) {
      const due = row?.next_send_at;
      return { chatDueAt: due === null || due === undefined ? now + pace.intervalMs : Number(due), grant: null };
    }
    // No bucket row yet: the turn is taken, and the caller takes its grant, which seeds the row.
    if (row.granted === null || row.available === null) return { chatDueAt: null, grant: null };
    const place = Number(row.place);
    const granted = Number(row.granted);
    const available = Number(row.available);
    // The turns drawn before this one took a message each.
    const grant = place <= granted ? grantFromRow({ available: available - (place - 1) * 1000, granted: 1 }, now, 1, budget) : grantFromRow({ available: available - granted * 1000, granted: 0 }, now, 1, budget);
    return { chatDueAt: null, grant };
  });
}

const replyTurnsQuery = prepared((db: Kysely<Database>, param: ParamFn<{ chatIds: number[]; fullFrom: number; interval: number; next: number; now: number; capacity: number; perSecond: number }>) => {
  // replyTurnQuery's statement for each chat of the batch; `place` numbers the turns taken in the
  // order the calls came (the draw goes to the first ones, as one at a time it would).
  const query = sql<{ chat_id: number | string; place: number | string | null; next_send_at: number | string | null; available: number | string | null; granted: number | string | null }>`
    with ${BUDGET_ROW_LOCK}, input as (
      select chat_id, arrival from unnest(cast(${param("chatIds")} as bigint[])) with ordinality as i(chat_id, arrival)
    ), chat_turn as (
      insert into chat_send (chat_id, next_send_at)
      select input.chat_id, cast(${param("next")} as bigint) from input where (select count(*) from current_row) >= 0
      on conflict (chat_id) do update set next_send_at = case when chat_send.next_send_at > ${param("fullFrom")} then chat_send.next_send_at + ${param("interval")} else ${param("next")} end
      where chat_send.next_send_at <= ${param("now")}
      returning chat_id
    ), ranked as (
      select chat_turn.chat_id, row_number() over (order by input.arrival) as place from chat_turn join input on input.chat_id = chat_turn.chat_id
    ), ${budgetGrantCtes({ now: param("now"), want: sql`(select count(*) from chat_turn)`, capacity: param("capacity"), perSecond: param("perSecond") }, sql`exists (select 1 from chat_turn)`)}
    select input.chat_id, ranked.place,
      (select next_send_at from chat_send where chat_send.chat_id = input.chat_id) as next_send_at,
      (select available from budget_drawn) as available,
      (select granted from budget_drawn) as granted
    from input left join ranked on ranked.chat_id = input.chat_id`;
  return { compile: () => query.compile(db) };
});

/** The reply turns of one store's concurrent replies (PostgreSQL): see StatementBatcher and {@link takeReplyTurns}. */
function replyTurns(db: Kysely<Database>): StatementBatcher<ReplyTurnCall, ReplyTurn> {
  return new StatementBatcher<ReplyTurnCall, ReplyTurn>({
    key: (call) => call.chatId,
    one: (call) => takeReplyTurn(db, call.chatId, call.now, call.pace, call.budget),
    many: (calls) => takeReplyTurns(db, calls),
  });
}

/** Gives back a chat turn that was taken but not used (the global budget was empty). */
export async function returnChatSlot(db: Kysely<Database>, chatId: number, takenAt: number, intervalMs: number): Promise<void> {
  await db.updateTable("chat_send").set({ next_send_at: takenAt }).where("chat_id", "=", chatId).where("next_send_at", "=", takenAt + intervalMs).execute();
}

/** Pushes a chat's next turn back (after a send; Telegram answered 429 with retry_after). */
export async function deferChat(db: Kysely<Database>, chatId: number, until: number): Promise<void> {
  await deferChatQuery(db, { chatId, until });
}

const deferChatQuery = prepared((db: Kysely<Database>, param: ParamFn<{ chatId: number; until: number }>) =>
  db
    .insertInto("chat_send")
    .values({ chat_id: param("chatId"), next_send_at: param("until") })
    .onConflict((oc) => oc.column("chat_id").doUpdateSet({ next_send_at: param("until") }).where("chat_send.next_send_at", "<", param("until"))),
);

/** Forgets chat turns long past (run now and then). */
export async function pruneSendBudget(db: Kysely<Database>, now: number): Promise<void> {
  await db.deleteFrom("chat_send").where("next_send_at", "<", now - 3_600_000).execute();
}


/** Bot API methods that put a new message in a chat: each takes one message from the global budget. */
const NEW_MESSAGE_METHODS = new Set(["sendMessage", "sendPhoto", "sendDocument", "sendAnimation", "sendVideo", "sendAudio", "sendVoice", "sendSticker", "sendLocation", "sendContact", "sendPoll", "sendDice", "sendMediaGroup", "copyMessage", "copyMessages", "forwardMessage", "forwardMessages"]);

/** A private chat's id (a user's), the only chats the per-chat pace applies to. */
function privateChatId(payload: unknown): number | null {
  const chatId = payload && typeof payload === "object" && "chat_id" in payload ? Number((payload as { chat_id: unknown }).chat_id) : Number.NaN;
  return Number.isSafeInteger(chatId) && chatId > 0 ? chatId : null;
}

/**
 * Makes the bot's own replies take from the same budgets as pushed alerts, so replies and alerts
 * of every replica together stay under Telegram's limits:
 *
 * - with `chatPace`, a new message to a private chat first waits for the chat's turn (the turns
 *   alerts take too), for at most `maxChatWaitMs`; its send then counts from the time Telegram
 *   answered, unless that came within the pace's `answerSlackMs` of the turn;
 * - it then waits for the overall budget (about 36 ms at most while alerts use the whole budget),
 *   for at most `maxWaitMs`;
 * - with `window`, it leaves only while the process's messages stay within it on arrival.
 *
 * After a wait runs out, or when the database cannot be asked, the message goes anyway and
 * Telegram's 429 handling takes over. The caller keeps one chat's calls one at a time (the chat
 * throttler), so a reply never races the reply before it for the chat's turn.
 */
export function sharedBudgetTransformer(store: SendBudgetStore, now: () => number, options: { budget?: GlobalBudget; maxWaitMs?: number; chatPace?: ChatPace | null; maxChatWaitMs?: number; window?: ArrivalWindow } = {}): Transformer {
  const budget = options.budget ?? store.budget;
  const maxWaitMs = options.maxWaitMs ?? 5_000;
  const maxChatWaitMs = options.maxChatWaitMs ?? 30_000;
  return async (prev, method, payload, signal) => {
    if (!NEW_MESSAGE_METHODS.has(method)) return prev(method, payload, signal);
    const chatId = options.chatPace ? privateChatId(payload) : null;
    // The global grant taken with the chat's turn (one statement on PostgreSQL), if it granted one.
    let grantedWithTurn = false;
    // When the chat's turn was granted (undefined: it was not, and the send counts from its answer).
    let turnAt: number | undefined;
    if (chatId !== null) {
      const deadline = Date.now() + maxChatWaitMs;
      try {
        for (;;) {
          const at = now();
          const { chatDueAt, grant } = await store.takeReplyTurn(chatId, at, options.chatPace!, budget);
          if (chatDueAt === null) {
            turnAt = at;
            grantedWithTurn = (grant?.granted ?? 0) > 0;
          }
          if (chatDueAt === null || Date.now() >= deadline || signal?.aborted) break;
          await new Promise((resolve) => setTimeout(resolve, Math.max(1, Math.min(50, chatDueAt - now()))));
        }
      } catch {
        // as below: the pace is a courtesy to Telegram, never a reason to lose the reply
      }
    }
    const deadline = Date.now() + maxWaitMs;
    try {
      while (!grantedWithTurn) {
        const { granted, nextAt } = await store.takeGlobal(now(), 1, budget);
        if (granted > 0 || Date.now() >= deadline) break;
        // The app clock may run faster than the wall clock in tests: never sleep more than 50 ms at once.
        await new Promise((resolve) => setTimeout(resolve, Math.max(1, Math.min(50, nextAt - now()))));
      }
    } catch {
      // the budget is a courtesy to Telegram; a database hiccup must not swallow the reply
    }
    const leave = options.window ? await options.window.enter() : null;
    try {
      return await prev(method, payload, signal);
    } finally {
      leave?.();
      if (chatId !== null) {
        const pace = options.chatPace!;
        const answeredAt = now();
        if (turnAt === undefined || pace.answerSlackMs === undefined || answeredAt - turnAt > pace.answerSlackMs) await store.recordChatSendAt(null, chatId, answeredAt, pace).catch(() => undefined);
      }
    }
  };
}

/** A grant from the global bucket: how many messages, and when the next one is available. */
export interface Grant {
  granted: number;
  limited: boolean;
  nextAt: number;
}

/** What the budget calls run on: a transaction the caller holds, or null for none (the store's own database). */
type Executor = Kysely<Database> | Transaction<Database> | null;

/**
 * Where Telegram's budgets are kept, one interface for both homes:
 *
 * - {@link databaseSendBudget}: rows every replica shares (PostgreSQL), as described above;
 * - {@link memorySendBudget}: this process's memory, for SQLite, which is one process by design.
 *   The same bucket arithmetic with no statement at all: a reply's grant and chat turn cost a few
 *   microseconds. A restart forgets them, which costs at most one chat burst (the bot is down
 *   longer than a burst lasts) and is what Telegram's 429 handling covers anyway.
 *
 * `exec` is the transaction the caller holds (the sender claims rows in the same one); the memory
 * store ignores it.
 */
export interface SendBudgetStore {
  readonly kind: "database" | "memory";
  /** On PostgreSQL, how many statements the reply turns took, for how many turns (see {@link replyTurns}). */
  readonly replyTurnStatements?: Readonly<BatcherCounts>;
  /** The overall budget replies and alerts take from unless a caller names another. */
  readonly budget: GlobalBudget;
  /** The global grant for a reply, outside any transaction. */
  takeGlobal(now: number, want: number, budget: GlobalBudget): Promise<Grant>;
  /** The global grant inside the caller's transaction. */
  takeGlobalIn(trx: Transaction<Database>, now: number, want: number, budget: GlobalBudget): Promise<Grant>;
  refundGlobal(exec: Executor, count: number, budget: GlobalBudget): Promise<void>;
  /** A chat's turn inside the caller's transaction (see {@link takeChatSlot}); null when granted. */
  takeChatSlot(exec: Executor, chatId: number, now: number, pace: ChatPace): Promise<number | null>;
  /** A reply's chat turn and, once granted, its global grant (see {@link takeReplyTurn}). */
  takeReplyTurn(chatId: number, now: number, pace: ChatPace, budget: GlobalBudget): Promise<ReplyTurn>;
  recordChatSendAt(exec: Executor, chatId: number, answeredAt: number, pace: ChatPace): Promise<void>;
  deferChat(exec: Executor, chatId: number, until: number): Promise<void>;
  prune(now: number): Promise<void>;
}

/** The budgets in the database, shared by every replica. */
export function databaseSendBudget(db: Kysely<Database>, budget: GlobalBudget = isPostgres(db) ? REPLICAS_GLOBAL_BUDGET : DEFAULT_GLOBAL_BUDGET): SendBudgetStore {
  // Outside a caller's transaction, the grants and turns commit asynchronously on PostgreSQL (see coordinating).
  const fast = coordinating(db);
  // Concurrent replies' turns share a statement while the replica is busy (PostgreSQL).
  const turns = isPostgres(db) ? replyTurns(fast) : null;
  return {
    kind: "database",
    ...(turns ? { replyTurnStatements: turns.counts } : {}),
    budget,
    takeGlobal: (now, want, budget) => takeGlobal(fast, now, want, budget),
    takeGlobalIn: (trx, now, want, budget) => takeGlobalIn(trx, now, want, budget),
    refundGlobal: (exec, count, budget) => refundGlobal(exec ?? fast, count, budget),
    takeChatSlot: (exec, chatId, now, pace) => takeChatSlot(exec ?? fast, chatId, now, pace.intervalMs, pace.burst),
    takeReplyTurn: (chatId, now, pace, budget) => (turns ? turns.run({ chatId, now, pace, budget }) : takeReplyTurn(fast, chatId, now, pace, budget)),
    recordChatSendAt: (exec, chatId, answeredAt, pace) => recordChatSendAt(exec ?? fast, chatId, answeredAt, pace),
    deferChat: (exec, chatId, until) => deferChat(exec ?? fast, chatId, until),
    prune: (now) => pruneSendBudget(db, now),
  };
}

/** The budgets in this process's memory (SQLite: one process), with the same arithmetic as the rows. */
export function memorySendBudget(): SendBudgetStore {
  let bucket: { tokensMilli: number; updatedAt: number } | null = null;
  /** Per chat, the earliest time of its next message (as the chat_send row). */
  const chats = new Map<number, number>();
  const draw = (now: number, want: number, budget: GlobalBudget): Grant => {
    if (want <= 0) return { granted: 0, limited: false, nextAt: now };
    bucket ??= { tokensMilli: Math.round(budget.burst * 1000), updatedAt: now };
    const drawn = drawFromBucket(bucket.tokensMilli, bucket.updatedAt, now, want, budget);
    bucket = { tokensMilli: drawn.row.tokens_milli, updatedAt: drawn.row.updated_at };
    return { granted: drawn.granted, limited: drawn.limited, nextAt: drawn.nextAt };
  };
  const takeChat = (chatId: number, now: number, pace: ChatPace): number | null => {
    const fullFrom = now - Math.max(0, pace.burst - 1) * pace.intervalMs;
    const next = chats.get(chatId);
    if (next !== undefined && next > now) return next;
    chats.set(chatId, next !== undefined && next > fullFrom ? next + pace.intervalMs : fullFrom + pace.intervalMs);
    return null;
  };
  const defer = (chatId: number, until: number) => {
    const next = chats.get(chatId);
    if (next === undefined || next < until) chats.set(chatId, until);
  };
  return {
    kind: "memory",
    budget: DEFAULT_GLOBAL_BUDGET,
    takeGlobal: async (now, want, budget) => draw(now, want, budget),
    takeGlobalIn: async (_trx, now, want, budget) => draw(now, want, budget),
    refundGlobal: async (_exec, count, budget) => {
      if (count <= 0 || !bucket) return;
      bucket = { ...bucket, tokensMilli: Math.min(Math.round(budget.burst * 1000), bucket.tokensMilli + count * 1000) };
    },
    takeChatSlot: async (_exec, chatId, now, pace) => takeChat(chatId, now, pace),
    takeReplyTurn: async (chatId, now, pace, budget) => {
      const chatDueAt = takeChat(chatId, now, pace);
      return { chatDueAt, grant: chatDueAt === null ? draw(now, 1, budget) : null };
    },
    recordChatSendAt: async (_exec, chatId, answeredAt, pace) => defer(chatId, answeredAt + pace.intervalMs - Math.max(0, pace.burst - 1) * pace.intervalMs),
    deferChat: async (_exec, chatId, until) => defer(chatId, until),
    prune: async (now) => {
      for (const [chatId, next] of chats) if (next < now - 3_600_000) chats.delete(chatId);
    },
  };
}
