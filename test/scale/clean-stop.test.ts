import { execFileSync, spawn, type ChildProcess } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdtempSync } from "node:fs";
import type { Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { serve } from "@hono/node-server";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { migrateToLatest, openDatabase } from "#src/db/connection";
import { saveApiKey } from "#src/db/repos/credentials";
import { enqueueAlerts } from "#src/db/repos/outbox";
import { markInMotion } from "#src/db/repos/poll-schedule";
import { upsertUser } from "#src/db/repos/users";
import { createSandbox } from "#src/sandbox/index";
import { SecretBox } from "#src/security/secret-box";
import { freePort } from "../kit/net";
import { startFakeTelegram, type StartedFakeTelegram } from "../kit/telegram-driver";
import { removeDatabaseDir } from "../kit/temp-dir";
import { createPostgresTestDatabase, TEST_DATABASE_URL, type TestDatabase } from "../kit/test-database";
import { POSTGRES_SKIP_REASON } from "../kit/test-database-dialects";
import { BOT_TOKEN } from "../kit/world";
import { closeServer, startTaggedProxy, waitUntil } from "./replica-kit";

/**
 * SIGTERM stops a replica cleanly and quickly, again and again: while a poll cycle waits on slow
 * marketplace answers and a flood of alerts is being sent, every replica exits 0 within 2 s and
 * holds nothing afterwards (no poll, order or alert lease, no named lease). SQLite with one
 * process; PostgreSQL (TEST_DATABASE_URL) with one and with three replicas.
 */
// Ten rounds (five busy, five idle) on each set-up, as the issue asks; CLEAN_STOP_ROUNDS sets more
// when hunting a rare hang.
const ROUNDS = Math.max(2, Number(process.env.CLEAN_STOP_ROUNDS) || 10);
const USERS = 24;
const FLOOD = 400;
const STOP_BUDGET_MS = 2_000;

// PostgreSQL's setups without TEST_DATABASE_URL are listed as skipped, with the reason in their name.
const setups = [
  { name: "SQLite, one process", dialect: "sqlite", replicas: 1 },
  { name: "PostgreSQL, one replica", dialect: "postgres", replicas: 1 },
  { name: "PostgreSQL, three replicas", dialect: "postgres", replicas: 3 },
].map((setup) => ({ ...setup, runs: setup.dialect === "sqlite" || Boolean(TEST_DATABASE_URL) }));

beforeAll(() => {
  execFileSync("npm", ["run", "build", "--silent"], { stdio: ["ignore", "ignore", "inherit"] });
}, 60_000);

interface Running {
  id: string;
  url: string;
  child: ChildProcess;
  out: () => string;
  exited: Promise<number | null>;
}

for (const { name, dialect, replicas: count, runs } of setups)
  (runs ? describe : describe.skip)(`a clean, short stop: ${name}${runs ? "" : ` (${POSTGRES_SKIP_REASON})`}`, () => {
    let database: TestDatabase | null = null;
    let sqliteDir: string | null = null;
    let databaseUrl: string;
    let db: Awaited<ReturnType<typeof openDatabase>>["db"];
    let telegram: StartedFakeTelegram;
    let sandboxServer: Server;
    let slowMarket: { url: string; server: Server };
    const secretKey = randomBytes(32).toString("base64");
    const sandbox = createSandbox({ now: () => new Date(), settleDelayMs: null });
    const running: Running[] = [];

    beforeAll(async () => {
      if (dialect === "postgres") {
        database = await createPostgresTestDatabase("bot_stop");
        databaseUrl = database.url;
      } else {
        sqliteDir = mkdtempSync(join(tmpdir(), "bot-stop-"));
        databaseUrl = `file:${join(sqliteDir, "bot.db")}`;
      }
      ({ db } = await openDatabase(databaseUrl, { poolMax: 2 }));
      await migrateToLatest(db);
      sandboxServer = await new Promise((resolve) => {
        const started = serve({ fetch: sandbox.app.fetch, port: 0, hostname: "127.0.0.1" }, () =>
          resolve(started as Server),
        );
      });
      // Reads of notifications answer 20 s late: every poll of the cycle is in flight at the stop.
      slowMarket = await startTaggedProxy(
        `http://127.0.0.1:${(sandboxServer.address() as AddressInfo).port}`,
        "all",
        [],
        {
          answerDelayMs: (call) =>
            call.method === "GET" && call.path.startsWith("/api/v1/notifications") ? 20_000 : 0,
        },
      );
      telegram = await startFakeTelegram({ token: BOT_TOKEN });
      const box = new SecretBox(secretKey);
      const now = Date.now();
      for (let i = 0; i < USERS; i++) {
        const id = 7_000_001 + i;
        const { accountId } = sandbox.control.createAccount({ trx: "1000", usdt: "0" });
        const { apiKey } = sandbox.control.createKey({ accountId, scope: "purchase" });
        await upsertUser(db, id, id, now);
        await saveApiKey(db, box, id, apiKey, now);
        await db
          .insertInto("poll_state")
          .values({ telegram_id: id, primed: 1, failures: 0, next_poll_at: 0, rules_checked_at: now })
          .execute();
        await markInMotion(db, id, "deposit", now);
        telegram.fake.sendText({ id, firstName: `U${id}`, languageCode: "en" }, "hi");
      }
      // Those "hi" messages only make the chats known to Telegram: drain them before any bot runs.
      for (let offset = 0; ;) {
        const answer = (await (
          await fetch(`${telegram.apiRoot}/bot${BOT_TOKEN}/getUpdates`, {
            method: "POST",
            headers: { "content-type": "application/json" },
            body: JSON.stringify({ offset, limit: 100, timeout: 0 }),
          })
        ).json()) as { result: Array<{ update_id: number }> };
        if (answer.result.length === 0) break;
        offset = answer.result.at(-1)!.update_id + 1;
      }
    }, 120_000);

    afterAll(async () => {
      for (const replica of running) if (replica.child.exitCode === null) replica.child.kill("SIGKILL");
      await db?.destroy();
      await telegram?.close();
      for (const server of [slowMarket?.server, sandboxServer]) await closeServer(server);
      await database?.drop();
      if (sqliteDir) await removeDatabaseDir(sqliteDir);
    }, 60_000);

    async function start(id: string): Promise<Running> {
      const port = await freePort();
      const child = spawn(process.execPath, ["--enable-source-maps", "dist/main.mjs"], {
        env: {
          PATH: process.env.PATH ?? "",
          NODE_ENV: "production",
          BOT_TOKEN,
          TELEGRAM_API_ROOT: telegram.apiRoot,
          MARKETPLACE_URL: slowMarket.url,
          DATABASE_URL: databaseUrl,
          DATABASE_POOL_MAX: "4",
          SECRET_KEY: secretKey,
          HOST: "127.0.0.1",
          PORT: String(port),
          NOTIFICATIONS_POLL: "* * * * * *",
          LOG_LEVEL: "debug",
          REPLICA_ID: id,
        },
        stdio: ["ignore", "pipe", "pipe"],
      });
      let output = "";
      child.stdout!.on("data", (chunk) => (output += chunk));
      child.stderr!.on("data", (chunk) => (output += chunk));
      const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
      const replica = { id, url: `http://127.0.0.1:${port}`, child, out: () => output, exited };
      running.push(replica);
      return replica;
    }

    /** What a stopped replica still holds: it must be nothing. */
    async function heldBy(owner: string): Promise<Record<string, number>> {
      const count = async (table: "poll_state" | "followed_orders" | "outbox") =>
        (await db.selectFrom(table).select("lease_owner").where("lease_owner", "=", owner).execute()).length;
      const named = (await db.selectFrom("leases").select("owner").where("owner", "=", owner).execute()).length;
      return {
        polls: await count("poll_state"),
        orders: await count("followed_orders"),
        alerts: await count("outbox"),
        named,
      };
    }

    it(`stops ${ROUNDS} times in a row within ${STOP_BUDGET_MS} ms, exit code 0, holding nothing`, async () => {
      for (let round = 0; round < ROUNDS; round++) {
        // Odd rounds: nothing to do (no user due, no alert queued), as a fresh replica set starts.
        // Even rounds: every user due again and a fresh flood of alerts queued.
        const busy = round % 2 === 0;
        await db
          .updateTable("poll_state")
          .set(busy ? { last_cycle: 0, next_poll_at: 0 } : { next_poll_at: Date.now() + 3_600_000 })
          .execute();
        if (busy) {
          const at = Date.now();
          const alert = (i: number) => ({
            telegramId: 7_000_001 + (i % USERS),
            chatId: 7_000_001 + (i % USERS),
            dedupeKey: `flood:${round}:${i}`,
            payload: JSON.stringify({
              method: "sendMessage",
              params: { chat_id: 7_000_001 + (i % USERS), text: `flood ${round} ${i}` },
            }),
            at,
          });
          await enqueueAlerts(
            db,
            Array.from({ length: FLOOD }, (_, i) => alert(i)),
          );
        }
        const replicas = await Promise.all(Array.from({ length: count }, (_, i) => start(`r${round}-${i}`)));
        await Promise.all(
          replicas.map((replica) =>
            waitUntil(
              async () => (await fetch(`${replica.url}/readyz`).catch(() => null))?.ok === true,
              30_000,
              () => `${replica.id} ready\n${replica.out()}`,
            ),
          ),
        );
        if (busy) {
          // In the middle of things: polls claimed and waiting on the marketplace, alerts being sent.
          await waitUntil(
            async () =>
              (await db.selectFrom("poll_state").select("telegram_id").where("lease_owner", "is not", null).execute())
                .length > 0,
            15_000,
            "polls in flight",
          );
          const sent = await db
            .selectFrom("outbox")
            .select("id")
            .where("dedupe_key", "like", `flood:${round}:%`)
            .where("sent_at", "is not", null)
            .execute();
          expect(sent.length, "the flood is being sent").toBeLessThan(FLOOD);
        } else {
          // A tick or two (every second): a poll cycle opened by one replica, found empty by all.
          await new Promise((resolve) => setTimeout(resolve, 1_500));
        }
        const asked = Date.now();
        for (const replica of replicas) replica.child.kill("SIGTERM");
        const codes = await Promise.all(
          replicas.map((replica) => replica.exited.then((code) => ({ code, ms: Date.now() - asked }))),
        );
        for (const [i, { code, ms }] of codes.entries()) {
          const log = replicas[i]!.out();
          expect(code, `round ${round}: ${replicas[i]!.id} exit code\n${log}`).toBe(0);
          expect(ms, `round ${round}: ${replicas[i]!.id} took ${ms} ms to stop\n${log}`).toBeLessThan(STOP_BUDGET_MS);
          if (!busy) expect(log).not.toContain("the open poll cycle still has users left");
          expect(
            await heldBy(replicas[i]!.id),
            `round ${round}: ${replicas[i]!.id} still holds (${JSON.stringify(await heldBy(replicas[i]!.id))}; leases: ${JSON.stringify(await db.selectFrom("leases").selectAll().execute())})\n${log}`,
          ).toEqual({ polls: 0, orders: 0, alerts: 0, named: 0 });
        }
      }
    }, 240_000);
  });
