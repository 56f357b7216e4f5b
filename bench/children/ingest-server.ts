/**
 * Bench child: one webhook receiver on 127.0.0.1 over a SQLite file (synchronous=FULL).
 * BENCH_MODE = real (createServer + registerMarketplaceWebhook, group commit) | naive (one
 * transaction per request) | bare (a bare Hono route answering 200). Reports {ready, port, tokens}.
 */
import { join } from "node:path";
import type { AddressInfo } from "node:net";
import { serve } from "@hono/node-server";
import { Hono } from "hono";
import pino from "pino";
import { migrateToLatest, openDatabase } from "../../src/db/connection";
import { createServer } from "../../src/server/create-server";
import { createLogger } from "../../src/logger";
import { Metrics } from "../../src/metrics";
import { createI18n } from "../../src/chat/i18n";
import { registerMarketplaceWebhook } from "../../src/push/webhook-receiver";
import type { WebhookReceiverDeps } from "../../src/push/webhook-ingest";
import { registerNaiveWebhook } from "../naive-receiver";
import { seedUsers, seedWebhookTokens } from "../seed";
import { ROOT_DIR, serveCommands } from "../lib";

const mode = process.env.BENCH_MODE ?? "real";
const dbPath = process.env.BENCH_DB ?? "";
const users = Number(process.env.BENCH_USERS ?? "100");

async function main() {
  let fetcher: (request: Request) => Response | Promise<Response>;
  let tokens: string[] = [];
  if (mode === "bare") {
    const bare = new Hono();
    bare.post("/webhooks/marketplace/:token", (c) => c.json({ ok: true }));
    fetcher = bare.fetch;
    tokens = Array.from({ length: users }, (_, i) => `bare-token-${String(i).padStart(16, "0")}`);
  } else {
    const { db } = await openDatabase(`file:${dbPath}`);
    await migrateToLatest(db);
    const now = Date.now();
    await seedUsers(db, 1_000_000, users, now);
    tokens = await seedWebhookTokens(db, 1_000_000, users, now);
    // Production logging (info, JSON) into /dev/null: the cost of the lines stays in the figure.
    const logger = createLogger({ level: "info", destination: pino.destination({ dest: "/dev/null", sync: false }) });
    const metrics = new Metrics();
    const i18n = createI18n(join(ROOT_DIR, "locales"));
    const deps: WebhookReceiverDeps = {
      db,
      logger,
      translations: i18n,
      now: Date.now,
      signatureHeader: "x-signature",
      onQueued: () => undefined,
    };
    fetcher = createServer({ db, logger, metrics }, [
      mode === "naive" ? registerNaiveWebhook(deps) : registerMarketplaceWebhook(deps),
    ]).fetch;
  }
  const server = await new Promise<ReturnType<typeof serve>>((resolve) => {
    const started = serve({ fetch: fetcher, port: 0, hostname: "127.0.0.1" }, () => resolve(started));
  });
  const port = (server.address() as AddressInfo).port;
  serveCommands({
    cpu: () => process.cpuUsage(),
  });
  process.send!({ ready: true, port, tokens });
}

main().catch((error: unknown) => {
  console.error("ingest-server failed", error);
  process.exit(1);
});
