/** The update's first read: the user's row with their key, their chat's guided flow and open step, and the flood-limit window. */
import { sql, type Kysely, type QueryCreator, type SelectQueryBuilder } from "kysely";
import type { Database, UsersTable } from "../schema";
import type { Credential } from "./credentials";
import type { StoredFlow } from "./flows";
import { storedConversation, type StoredConversation } from "./conversations";
import { prepared, type ParamFn } from "../prepared";
import { countUpdateInWindow, updateWindowUpsert, updateWindowUpsertFrom } from "./update-windows";
import { coordinating, isPostgres } from "../dialect";
import { perDatabase, type BatcherCounts, type StatementBatcherOptions } from "../statement-batcher";
import { insertUserRow, NEW_USER, type User } from "./user-row";

/** What an update of a chat reads first: the user's row (undefined before their first update is stored), their key, the chat's guided flow, and their open step in `flows`. */
export interface UserWithState {
  user: User | undefined;
  credential: Credential | null;
  conversation: StoredConversation | null;
  /** The user's row in `flows` (the key step, or a guided flow's first question), if any. */
  step: StoredFlow | null;
  /** This update's place in the user's flood-limit window, when the read counted it (see {@link findUserWithState}). */
  windowPlace: number | null;
}

/** The columns of the update's first read, joined to a one-row source `w` that names the user; `users` is already joined. */
function selectUserWithState<W extends { telegram_id: number }>(
  qb: SelectQueryBuilder<Database & { w: W }, "w" | "users", object>,
  chatId: unknown,
) {
  return (
    qb
      .leftJoin("credentials", "credentials.telegram_id", "w.telegram_id")
      // A parameter, or for a batch the reference to each row's chat.
      .leftJoin("conversations", (join) => join.on("conversations.chat_id", "=", chatId as number))
      .leftJoin("flows", "flows.telegram_id", "w.telegram_id")
      .selectAll("users")
      .select([
        "credentials.key_id as credential_key_id",
        "credentials.ciphertext as credential_ciphertext",
        "credentials.last4 as credential_last4",
        "credentials.broken_at as credential_broken_at",
        "credentials.broken_notified as credential_broken_notified",
        "credentials.linked_at as credential_linked_at",
        "conversations.flow as conversation_flow",
        "conversations.step as conversation_step",
        "conversations.state as conversation_state",
        "conversations.updated_at as conversation_updated_at",
        "flows.flow as step_flow",
        "flows.step as step_step",
        "flows.data as step_data",
        "flows.version as step_version",
      ])
  );
}

/** upsertUser's insert for a first contact, with no effect on a user stored already. */
function insertNewUser(
  db: QueryCreator<Database>,
  param: ParamFn<{ telegramId: number; chatId: number; now: number }>,
) {
  return insertUserRow(db, param).onConflict((oc) => oc.column("telegram_id").doNothing());
}

/** The read alone: the source row is the asked user's id, so a user not stored yet still gets their chat's flow. */
const userWithStateQuery = prepared((db: Kysely<Database>, param: ParamFn<{ telegramId: number; chatId: number }>) =>
  selectUserWithState(
    db
      .selectFrom(sql<{ telegram_id: number }>`(select cast(${param("telegramId")} as bigint) as telegram_id)`.as("w"))
      .leftJoin("users", "users.telegram_id", "w.telegram_id"),
    param("chatId"),
  ).select(sql<number | null>`null`.as("window_updates")),
);

/**
 * The update's read on PostgreSQL: the window's upsert is the source row, and a user met for the
 * first time is stored by the same statement. A statement's reads do not see its own writes, so
 * the user comes from the table or, when the insert stored it, from the insert's returned row
 * (exactly one of the two has it, or neither when another update of the same new user stored it
 * first, in which case loadAccount's upsert runs as before).
 */
const userWithStateCountedQuery = prepared(
  (db: Kysely<Database>, param: ParamFn<{ telegramId: number; chatId: number; now: number; openedBefore: number }>) => {
    const withCtes = db
      .with("w", (qc) => updateWindowUpsert(qc, param))
      // (A second WITH's creator also knows `w`; the insert needs only the tables.)
      .with("created", (qc) => insertNewUser(qc as unknown as QueryCreator<Database>, param).returningAll());
    // Built on plain creators: a subquery built on `withCtes` would repeat the WITH clause inside.
    const created = (db as unknown as Kysely<Database & { created: UsersTable }>).selectFrom("created").selectAll();
    const user = db
      .selectFrom("users")
      .selectAll()
      .where("users.telegram_id", "=", param("telegramId"))
      .unionAll(created);
    const joined = withCtes
      .selectFrom("w")
      .leftJoin(user.as("users"), (join) => join.onRef("users.telegram_id", "=", "w.telegram_id"));
    return selectUserWithState(joined, param("chatId")).select("w.updates as window_updates");
  },
);

/** The users of a batched read (see {@link userWithStateBatchQuery}): each telegram_id once, with its chat. */
interface BatchInput {
  telegram_id: number;
  chat_id: number;
}

/**
 * {@link userWithStateCountedQuery} for several users at once (PostgreSQL, see findUserWithState):
 * the users come as two arrays, each counted in its window, each met for the first time stored,
 * and each read with its key, its chat's flow and its key step; `source_telegram_id` says whose
 * row is whose. Every user once: an upsert may not touch a row twice in one statement.
 */
const userWithStateBatchQuery = prepared(
  (
    db: Kysely<Database>,
    param: ParamFn<{ telegramIds: number[]; chatIds: number[]; now: number; openedBefore: number }>,
  ) => {
    const withInput = db.with(
      "input",
      () =>
        sql<BatchInput>`(select * from unnest(cast(${param("telegramIds")} as bigint[]), cast(${param("chatIds")} as bigint[])) as i(telegram_id, chat_id))`,
    );
    const withCtes = withInput
      .with("counted", (qc) =>
        updateWindowUpsertFrom(
          qc
            .insertInto("update_windows")
            .columns(["telegram_id", "window_start", "updates"])
            .expression(
              qc
                .selectFrom("input")
                .select([
                  "input.telegram_id",
                  sql<number>`cast(${param("now")} as bigint)`.as("window_start"),
                  sql<number>`1`.as("updates"),
                ]),
            ),
          param,
        ),
      )
      .with("created", (qc) =>
        qc
          .insertInto("users")
          .columns([
            "telegram_id",
            "chat_id",
            ...(Object.keys(NEW_USER) as Array<keyof typeof NEW_USER>),
            "created_at",
            "updated_at",
          ])
          .expression(
            qc
              .selectFrom("input")
              .select([
                "input.telegram_id",
                "input.chat_id",
                ...Object.entries(NEW_USER).map(([column, value]) =>
                  sql<unknown>`${value === null ? sql`null` : sql.lit(value)}`.as(column),
                ),
                sql<number>`cast(${param("now")} as bigint)`.as("created_at"),
                sql<number>`cast(${param("now")} as bigint)`.as("updated_at"),
              ]),
          )
          .onConflict((oc) => oc.column("telegram_id").doNothing())
          .returningAll(),
      )
      .with("w", (qc) =>
        qc
          .selectFrom("counted")
          .innerJoin("input", "input.telegram_id", "counted.telegram_id")
          .select(["counted.telegram_id", "counted.updates", "input.chat_id"]),
      );
    // Built on plain creators, as in userWithStateCountedQuery.
    const plain = db as unknown as Kysely<Database & { created: UsersTable; input: BatchInput }>;
    const user = plain
      .selectFrom("users")
      .selectAll("users")
      .where("users.telegram_id", "in", plain.selectFrom("input").select("input.telegram_id"))
      .unionAll(plain.selectFrom("created").selectAll());
    const joined = withCtes
      .selectFrom("w")
      .leftJoin(user.as("users"), (join) => join.onRef("users.telegram_id", "=", "w.telegram_id"));
    return selectUserWithState(joined, sql.ref("w.chat_id")).select([
      "w.updates as window_updates",
      "w.telegram_id as source_telegram_id",
    ]);
  },
);

const insertNewUserQuery = prepared(
  (db: Kysely<Database>, param: ParamFn<{ telegramId: number; chatId: number; now: number }>) =>
    insertNewUser(db, param),
);

/**
 * The user's row, their stored key, their chat's guided flow and their open step in `flows` (the
 * /connect key step, or a guided flow's first question), in one indexed read: every update needs
 * the user, and most of them the other three, which would otherwise be three more statements per
 * update. Compiled once (it runs on every update).
 *
 * With `window` (an update's read), the same statement also counts the update in the user's
 * flood-limit window (countUpdateInWindow's upsert as its source row) and returns its place, and
 * stores a user met for the first time as upsertUser would (active, this chat, alerts on) and
 * returns that row: on PostgreSQL, where the window is shared by replicas, that is one round trip
 * per update instead of two, or three for a first contact (SQLite, which has no upsert in a WITH
 * clause, runs the three one after the other).
 */
export async function findUserWithState(
  db: Kysely<Database>,
  telegramId: number,
  chatId: number,
  window?: { now: number; windowMs: number },
): Promise<UserWithState> {
  let row: StateRow | undefined;
  if (!window) [row] = (await userWithStateQuery(db, { telegramId, chatId })).rows;
  // Committed asynchronously on PostgreSQL (see coordinating): the window and a first contact's
  // row of defaults. Concurrent updates' reads share a statement while the replica is busy.
  else if (isPostgres(db))
    row = await countedReads(coordinating(db)).run({ telegramId, chatId, now: window.now, windowMs: window.windowMs });
  else {
    // SQLite has no upsert in a WITH clause: the count, the first contact's row, then the read (the bot counts in memory there).
    const place = await countUpdateInWindow(db, telegramId, window.now, window.windowMs);
    await insertNewUserQuery(db, { telegramId, chatId, now: window.now });
    const [read] = (await userWithStateQuery(db, { telegramId, chatId })).rows;
    row = read && { ...read, window_updates: place };
  }
  if (!row) throw new Error("the read of the user's state returned no row");
  return stateFromRow(row);
}

/** A row of the update's read, counted or not (the columns selectUserWithState names). */
type StateRow = Awaited<ReturnType<typeof userWithStateQuery>>["rows"][number] & {
  window_updates: number | string | null;
};

interface CountedRead {
  telegramId: number;
  chatId: number;
  now: number;
  /** The flood window's length: the bot's one constant, so a batch takes its first call's. */
  windowMs: number;
}

/**
 * The counted reads of a replica's concurrent updates, per database (its coordinating pool): while
 * fewer than two statements run, a read runs on its own; reads asked for while both run go
 * together in the next statement (userWithStateBatchQuery), each user once, counted at the
 * batch's latest time.
 */
const countedReads = perDatabase(
  (db: Kysely<Database>): StatementBatcherOptions<CountedRead, StateRow | undefined> => ({
    key: (read) => read.telegramId,
    one: async (read) =>
      (
        await userWithStateCountedQuery(db, {
          telegramId: read.telegramId,
          chatId: read.chatId,
          now: read.now,
          openedBefore: read.now - read.windowMs,
        })
      ).rows[0],
    many: async (reads) => {
      const now = Math.max(...reads.map((read) => read.now));
      const { rows } = await userWithStateBatchQuery(db, {
        telegramIds: reads.map((read) => read.telegramId),
        chatIds: reads.map((read) => read.chatId),
        now,
        openedBefore: now - reads[0]!.windowMs,
      });
      const bySource = new Map(rows.map((row) => [Number(row.source_telegram_id), row]));
      return reads.map((read) => bySource.get(read.telegramId));
    },
  }),
);

/** How many statements the counted reads of `db` took, for how many reads (PostgreSQL; null before any, and on SQLite). */
export function countedReadStatements(db: Kysely<Database>): BatcherCounts | null {
  return isPostgres(db) ? countedReads(coordinating(db)).counts : null;
}

/** The update's read as findUserWithState returns it. */
function stateFromRow(row: StateRow): UserWithState {
  // A joined user row whose key is present has all its columns (they are NOT NULL in the table).
  // They are picked one by one (the type names them all): an object rest over the joined row's 26
  // columns was the largest piece of JS in an update's read of its user.
  const stored = row.telegram_id === null ? undefined : (row as typeof row & User);
  const user: User | undefined = stored && {
    telegram_id: stored.telegram_id,
    chat_id: stored.chat_id,
    language: stored.language,
    alert_orders: stored.alert_orders,
    alert_rules: stored.alert_rules,
    alert_deposits: stored.alert_deposits,
    alert_other: stored.alert_other,
    active: stored.active,
    created_at: stored.created_at,
    updated_at: stored.updated_at,
    digest_enabled: stored.digest_enabled,
    digest_time_zone: stored.digest_time_zone,
    digest_week: stored.digest_week,
    alert_prices: stored.alert_prices,
    menu_language: stored.menu_language,
    telegram_language: stored.telegram_language,
  };
  const {
    credential_key_id: keyId,
    credential_ciphertext: ciphertext,
    credential_last4: last4,
    credential_broken_at: brokenAt,
    credential_broken_notified: brokenNotified,
    credential_linked_at: linkedAt,
  } = row;
  const {
    conversation_flow: flow,
    conversation_step: step,
    conversation_state: state,
    conversation_updated_at: updatedAt,
  } = row;
  return {
    user,
    credential:
      user === undefined ||
      keyId === null ||
      ciphertext === null ||
      last4 === null ||
      brokenNotified === null ||
      linkedAt === null
        ? null
        : {
            telegram_id: user.telegram_id,
            key_id: keyId,
            ciphertext,
            last4,
            broken_at: brokenAt,
            broken_notified: brokenNotified,
            linked_at: linkedAt,
          },
    conversation:
      flow === null || step === null || state === null || updatedAt === null
        ? null
        : storedConversation({ flow, step, state, updated_at: updatedAt }),
    step:
      row.step_flow === null || row.step_step === null || row.step_data === null || row.step_version === null
        ? null
        : { flow: row.step_flow, step: row.step_step, data: row.step_data, version: Number(row.step_version) },
    windowPlace: row.window_updates === null || row.window_updates === undefined ? null : Number(row.window_updates),
  };
}
