/**
 * `npx tsx bench/raw-sqlite-grants.ts [calls] [rounds]`: what a reply's two SQLite writes cost (the
 * overall budget's grant, src/db/repos/send-budget.ts, and the chat's turn, chat-send.ts), in µs
 * per call on a migrated database file with the app's pragmas (WAL, synchronous = FULL): the raw
 * better-sqlite3 statements the repositories run against the same queries through Kysely, each
 * with synchronous = NORMAL set around the write (as the repositories do), with FULL left as the
 * connection has it (an fsync per commit), and with NORMAL for the whole connection (the cost of
 * the toggle itself). Rounds alternate the variants; each figure is the median of the rounds.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type SQLite from "better-sqlite3";
import type { Kysely } from "kysely";
import { migrateToLatest, openDatabase, sqliteHandle } from "../src/db/connection";
import type { Database } from "../src/db/schema";
import { DEFAULT_CHAT_PACE, takeChatSlot, takeChatTurn } from "../src/db/repos/chat-send";
import { drawFromBucket, takeGlobal, takeGlobalIn, type GlobalBudget } from "../src/db/repos/send-budget";
import { grantFromBudgetRow, withoutFsync } from "../src/db/raw-sqlite";
import { median } from "./lib";

const CALLS = Number(process.argv[2] ?? 500);
const ROUNDS = Number(process.argv[3] ?? 5);
/** Wide enough that every grant is granted: the cost measured is the write's, not a refusal's. */
const BUDGET: GlobalBudget = { perSecond: 1_000_000, burst: 1_000 };

type Sync = "toggled" | "full" | "normal";
type Variant = { name: string; sync: Sync; call: (db: Kysely<Database>, index: number) => Promise<unknown> };

let clock = 1_800_000_000_000;
const tick = () => (clock += 2_000);

/** The raw global grant as the repository runs it, here without its pragma toggle. */
function rawGrant(sqlite: SQLite.Database, now: number): number {
  return grantFromBudgetRow(sqlite, { tokens_milli: Math.round(BUDGET.burst * 1000), updated_at: now }, (row) => {
    const drawn = drawFromBucket(row.tokens_milli, row.updated_at, now, 1, BUDGET);
    return { row: drawn.row, result: drawn.granted };
  });
}

/** The chat's turn as one raw statement (what takeChatSlot's Kysely query does), compiled once per connection. */
const rawTurns = new WeakMap<SQLite.Database, SQLite.Statement>();
function rawTurn(sqlite: SQLite.Database, chat: number, now: number): number {
  let take = rawTurns.get(sqlite);
  if (!take) {
    take = sqlite.prepare(
      "insert into chat_send (chat_id, next_send_at) values (@chat, @fullFrom + @interval) on conflict (chat_id) do update set next_send_at = case when chat_send.next_send_at > @fullFrom then chat_send.next_send_at + @interval else @fullFrom + @interval end where chat_send.next_send_at <= @now",
    );
    rawTurns.set(sqlite, take);
  }
  return take.run({
    chat,
    fullFrom: now - 2 * DEFAULT_CHAT_PACE.intervalMs,
    interval: DEFAULT_CHAT_PACE.intervalMs,
    now,
  }).changes;
}

/** Runs `work` with synchronous = NORMAL, as the repositories' toggle does, around a Kysely call. */
async function toggled<T>(sqlite: SQLite.Database, work: () => Promise<T>): Promise<T> {
  const level = Number(sqlite.pragma("synchronous", { simple: true }));
  sqlite.pragma("synchronous = NORMAL");
  try {
    return await work();
  } finally {
    sqlite.pragma(`synchronous = ${level}`);
  }
}

function variants(sqlite: SQLite.Database): Variant[] {
  const kyselyGrant = (db: Kysely<Database>) => db.transaction().execute((trx) => takeGlobalIn(trx, tick(), 1, BUDGET));
  const kyselyTurn = (db: Kysely<Database>, index: number) =>
    takeChatSlot(db, 1 + (index % 50), tick(), DEFAULT_CHAT_PACE.intervalMs, DEFAULT_CHAT_PACE.burst);
  return [
    { name: "grant, raw, toggled (as shipped)", sync: "toggled", call: (db) => takeGlobal(db, tick(), 1, BUDGET) },
    {
      name: "grant, raw, FULL",
      sync: "full",
      call: (db) => db.connection().execute(async () => rawGrant(sqlite, tick())),
    },
    {
      name: "grant, raw, NORMAL throughout",
      sync: "normal",
      call: (db) => db.connection().execute(async () => rawGrant(sqlite, tick())),
    },
    { name: "grant, Kysely, toggled", sync: "toggled", call: (db) => toggled(sqlite, () => kyselyGrant(db)) },
    { name: "grant, Kysely, FULL", sync: "full", call: (db) => kyselyGrant(db) },
    { name: "grant, Kysely, NORMAL throughout", sync: "normal", call: (db) => kyselyGrant(db) },
    {
      name: "turn, raw, toggled",
      sync: "toggled",
      call: (db, index) => withoutFsync(db, (handle) => rawTurn(handle, 1 + (index % 50), tick()))!,
    },
    {
      name: "turn, raw, FULL",
      sync: "full",
      call: (db, index) => db.connection().execute(async () => rawTurn(sqlite, 1 + (index % 50), tick())),
    },
    {
      name: "turn, raw, NORMAL throughout",
      sync: "normal",
      call: (db, index) => db.connection().execute(async () => rawTurn(sqlite, 1 + (index % 50), tick())),
    },
    {
      name: "turn, Kysely, toggled (as shipped)",
      sync: "toggled",
      call: (db, index) => takeChatTurn(db, 1 + (index % 50), tick(), DEFAULT_CHAT_PACE),
    },
    { name: "turn, Kysely, FULL", sync: "full", call: kyselyTurn },
    { name: "turn, Kysely, NORMAL throughout", sync: "normal", call: kyselyTurn },
  ];
}

async function main(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), "raw-sqlite-grants-"));
  const { db } = await openDatabase(`file:${join(dir, "bench.db")}`);
  try {
    await migrateToLatest(db);
    const sqlite = sqliteHandle(db)!;
    const all = variants(sqlite);
    const times = new Map<string, number[]>(all.map((variant) => [variant.name, []]));
    const cpu = new Map<string, number[]>(all.map((variant) => [variant.name, []]));
    for (let round = 0; round < ROUNDS; round++) {
      for (const variant of round % 2 === 0 ? all : [...all].reverse()) {
        sqlite.pragma(`synchronous = ${variant.sync === "normal" ? "NORMAL" : "FULL"}`);
        for (let index = 0; index < 20; index++) await variant.call(db, index);
        const started = process.hrtime.bigint();
        const cpuBefore = process.cpuUsage();
        for (let index = 0; index < CALLS; index++) await variant.call(db, index);
        const used = process.cpuUsage(cpuBefore);
        times.get(variant.name)!.push(Number(process.hrtime.bigint() - started) / 1000 / CALLS);
        cpu.get(variant.name)!.push((used.user + used.system) / CALLS);
      }
    }
    sqlite.pragma("synchronous = FULL");
    console.log(
      `${CALLS} calls × ${ROUNDS} rounds on a database file (WAL), µs per call (wall, then CPU), median of the rounds (each round's wall time in brackets):`,
    );
    for (const [name, values] of times)
      console.log(
        `${name.padEnd(36)} ${median(values).toFixed(1).padStart(8)} ${median(cpu.get(name)!).toFixed(1).padStart(8)}  [${values.map((value) => value.toFixed(1)).join(", ")}]`,
      );
  } finally {
    await db.destroy();
    rmSync(dir, { recursive: true, force: true });
  }
}

void main();
