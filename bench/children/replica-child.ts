/**
 * Bench child: one replica of the bot as an operator runs it on PostgreSQL (startApp with
 * DATABASE_URL=postgres://…, POLL_RATE, REPLICA_ID, a SECRET_KEY shared by every replica), with
 * its own fake Bot API in this process. Its background jobs join poll cycles the benchmark opens,
 * exactly as they join another replica's cron tick. Commands: seed (users, keys, webhook tokens), join
 * (start on the open poll cycle, as a cron tick does), cpu (CPU time used so far).
 */
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import pino from "pino";
import { startApp } from "../../src/app";
import { startFakeTelegram } from "../../test/kit/telegram-driver";
import { seedCredentials, seedPollStates, seedUsers, seedWebhookTokens } from "../seed";
import { serveCommands } from "../lib";
import { benchAppEnv, BENCH_TOKEN } from "./bot-env";

async function main() {
  const telegram = await startFakeTelegram({ token: BENCH_TOKEN, longPollMaxMs: 5_000 });
  const dir = mkdtempSync(join(tmpdir(), "bench-replica-"));
  const app = await startApp({
    env: benchAppEnv(telegram.apiRoot, {
      MARKETPLACE_URL: process.env.BENCH_MARKETPLACE_URL,
      DATABASE_URL: process.env.BENCH_REPLICA_DATABASE_URL,
      DATABASE_POOL_MAX: "20",
      SECRET_KEY: process.env.BENCH_SECRET_KEY,
      REPLICA_ID: process.env.BENCH_REPLICA_ID,
      POLL_RATE: process.env.BENCH_POLL_RATE,
    }),
    logDestination: pino.destination({ dest: join(dir, "app.log"), sync: false }),
  });
  const started = process.cpuUsage();
  serveCommands({
    seed: async ({ firstId, keys, tokens }) => {
      const apiKeys = keys as string[];
      const now = Date.now();
      await seedUsers(app.db, Number(firstId), apiKeys.length, now);
      await seedCredentials(app.db, app.deps.box, Number(firstId), apiKeys, now);
      // Every user in motion: the cycle covers all of them, as the cycle measured here always did.
      await seedPollStates(app.db, Number(firstId), apiKeys.length, now);
      return { tokens: await seedWebhookTokens(app.db, Number(firstId), Number(tokens), now) };
    },
    /** What a cron tick does after the cycle is open: this replica starts on it now (not awaited). */
    join: () => {
      void app.push.joinPoll().catch(() => undefined);
      return { joined: true };
    },
    cpu: () => {
      const used = process.cpuUsage(started);
      return { cpuMs: (used.user + used.system) / 1000 };
    },
  });
  process.send!({ ready: true, url: app.url, log: join(dir, "app.log") });
}

main().catch((error: unknown) => {
  console.error("replica-child failed", error);
  process.exit(1);
});
