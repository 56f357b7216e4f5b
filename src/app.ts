import { createHmac, randomUUID } from "node:crypto";
import { hostname } from "node:os";
import type { AddressInfo } from "node:net";
import { serve, type ServerType } from "@hono/node-server";
import { run, type RunnerHandle } from "@grammyjs/runner";
import type { Bot } from "grammy";
import type { Kysely } from "kysely";
import { join } from "node:path";
import { parseConfig, dataDirectory, type Config } from "./config";
import { createLogger, SecretScrubber, wantsPrettyLogs, type Logger } from "./logger";
import { migrateToLatest, openDatabase } from "./db/connection";
import { DatabaseHealth, databaseHealth } from "./db/health";
import type { Database } from "./db/schema";
import { WriteBatcher } from "./db/write-batcher";
import { reencryptCredentials } from "./db/repos/credentials";
import { SecretBox } from "./security/secret-box";
import { loadOrCreateSecretKey } from "./security/secret-key-file";
import { Metrics } from "./metrics";
import { createMarketplaceClient } from "./marketplace";
import { projectRoot } from "./paths";
import { withBoundedPublicQuotes } from "./marketplace/public-quotes";
import { createBot, pollingRunnerOptions, registerCommands, registerProfile, telegramTimeouts, updatesHandled, updatesInFlight, type TelegramTimeouts } from "./bot/create-bot";
import type { TypingOptions } from "./bot/middleware/typing";
import type { BotContext, BotDeps } from "./bot/context";
import { createI18n } from "./chat/i18n";
import { OptionsCache } from "./bot/options-cache";
import { createServer, type ServerEnv } from "./server/create-server";
import { registerTelegramWebhook } from "./server/routes/telegram-webhook";
import { startPush, type PushHandle } from "./push";
import { startEmbeddedSandbox, type EmbeddedSandbox } from "./embedded-sandbox";
import { startPlayground, type PlaygroundHandle } from "./playground";
import { urlHost } from "./listen-address";
import type { Hono } from "hono";
import type { DestinationStream } from "pino";
import { startLeaderElection, type LeaderHandle } from "./scale/leader";
import { leasesHeldBy } from "./scale/leases";
import { databaseUpdateTurns, processUpdateTurns } from "./scale/update-turns";
import { databaseSendBudget, memorySendBudget, type ChatPace, type GlobalBudget } from "./scale/send-budget";
import { isPostgres } from "./db/dialect";
import { ArrivalWindow, DEFAULT_ARRIVAL_WINDOW } from "./scale/arrival-window";

export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`invalid configuration:\n${problems.join("\n")}`);
    this.name = "ConfigError";
  }
}

export interface AppOptions {
  env: Record<string, string | undefined>;
  /** Where log lines go (tests capture them to prove no secret leaks). */
  logDestination?: DestinationStream;
  now?: () => number;
  /** Spacing of outgoing calls per chat (tests use 0, which also lifts the per-chat pace of replies unless telegramChatPace is given). */
  perChatMinTimeMs?: number;
  /** Telegram's overall budget as the bot's replies take from it (default 28/s); the benchmark lifts it. */
  telegramBudget?: GlobalBudget;
  /** A private chat's pace shared by replies and alerts (default DEFAULT_CHAT_PACE); null: replies are not paced. */
  telegramChatPace?: ChatPace | null;
  /** "typing…" while an update is slow (default after 300 ms); null: never (tests that count a chat's calls). */
  telegramTyping?: TypingOptions | null;
  /** See createBot's doubleTapMs; null: every press runs (tests press again at machine speed). */
  telegramDoubleTapMs?: number | null;
  /** Marketplace client retry back-off base (tests use small values). */
  marketplaceBackoffMs?: number;
  /** Bot API request and long-poll timeouts (tests shorten them). */
  telegramTimeouts?: Partial<TelegramTimeouts>;
  /** Retries of a Bot API call answered with 5xx or 429 (default 3; tests of failure paths use 0). */
  telegramServerErrorRetries?: number;
}

export interface App {
  config: Config;
  logger: Logger;
  db: Kysely<Database>;
  dbPath: string;
  bot: Bot<BotContext>;
  deps: BotDeps;
  http: Hono<ServerEnv>;
  url: string;
  marketplaceUrl: string;
  sandbox: EmbeddedSandbox | null;
  playground: PlaygroundHandle | null;
  push: PushHandle;
  stop(): Promise<void>;
}

const LOCALES_DIR = join(projectRoot(), "locales");

/** The password inside a database URL (postgres://user:password@host/db), as written and decoded. */
function databasePasswords(databaseUrl: string): string[] {
  if (!/^postgres(ql)?:/i.test(databaseUrl)) return [];
  try {
    const password = new URL(databaseUrl).password;
    return password ? [password, decodeURIComponent(password)] : [];
  } catch {
    return [];
  }
}

/** The Telegram webhook secret, derived from SECRET_KEY so every replica agrees without another variable. */
export function telegramWebhookSecret(secretKey: string): string {
  return createHmac("sha256", Buffer.from(secretKey, "base64")).update("telegram-webhook-secret").digest("base64url");
}

/**
 * The composition root, used by `npm start` and by the tests alike:
 * config → logger → database → marketplace → bot → HTTP server → background jobs.
 * `stop()` shuts down in reverse order.
 */
export async function startApp(options: AppOptions): Promise<App> {
  const parsed = parseConfig(options.env);
  if (!parsed.ok) throw new ConfigError(parsed.problems);
  const config = parsed.config;
  const now = options.now ?? Date.now;

  const scrubber = new SecretScrubber();
  scrubber.add(config.BOT_TOKEN);
  scrubber.add(config.SECRET_KEY);
  scrubber.add(config.SECRET_KEY_PREVIOUS);
  scrubber.add(config.MARKETPLACE_WEBHOOK_SECRET);
  for (const password of databasePasswords(config.DATABASE_URL)) scrubber.add(password);
  scrubber.add(config.METRICS_TOKEN);
  const logger = createLogger({ level: config.LOG_LEVEL, pretty: !options.logDestination && wantsPrettyLogs(config.LOG_FORMAT, process.stdout.isTTY === true), scrubber, destination: options.logDestination });

  let secretKey = config.SECRET_KEY;
  if (!secretKey) {
    const generated = loadOrCreateSecretKey(dataDirectory(config));
    secretKey = generated.key;
    scrubber.add(secretKey);
    if (generated.created) {
      logger.warn({ path: generated.path }, "SECRET_KEY is not set: generated one into the data folder (mode 0600). Back it up or set SECRET_KEY: without it, linked API keys cannot be decrypted.");
    } else {
      logger.warn({ path: generated.path }, "SECRET_KEY is not set: using the generated key from the data folder");
    }
  }
  scrubber.add(telegramWebhookSecret(secretKey));
  const box = new SecretBox(secretKey, config.SECRET_KEY_PREVIOUS, (apiKey) => scrubber.addUserSecret(apiKey));

  const { db, path: dbPath, dialect } = await openDatabase(config.DATABASE_URL, { poolMax: config.DATABASE_POOL_MAX, health: new DatabaseHealth(logger) });
  await migrateToLatest(db);
  const rotation = await reencryptCredentials(db, box);
  if (rotation.rotated > 0 || rotation.unreadable > 0) logger.info(rotation, "re-encrypted stored API keys under the current SECRET_KEY");

  const metrics = new Metrics();
  const stops: Array<() => Promise<void> | void> = [];

  let sandbox: EmbeddedSandbox | null = null;
  let marketplaceUrl = config.MARKETPLACE_URL;
  if (!marketplaceUrl) {
    // Kept beside a file database so a restart keeps the demo key a playground user linked.
    sandbox = await startEmbeddedSandbox({ stateFile: config.DATABASE_URL.startsWith("file:") ? join(dataDirectory(config), "sandbox-state.json") : null });
    stops.push(() => sandbox!.stop());
    marketplaceUrl = sandbox.url;
    logger.info({ marketplace: marketplaceUrl, demoApiKeyEnding: sandbox.demoApiKey.slice(-4), stateFile: sandbox.stateFile, restored: sandbox.restored }, "using the embedded sandbox marketplace (no real TRX)");
    if (sandbox.restoreProblem) logger.warn({ stateFile: sandbox.stateFile, problem: sandbox.restoreProblem }, "the saved sandbox state could not be read: moved it aside and started a fresh sandbox (new demo key)");
  } else {
    logger.info({ marketplace: marketplaceUrl }, "using the marketplace at MARKETPLACE_URL");
  }

  // Every key a call is made with (a stored one, or one offered to /connect) is scrubbed from logs.
  // One bounded path for every public quote of the process (see public-quotes.ts).
  const marketplace = withBoundedPublicQuotes((apiKey?: () => string) =>
    createMarketplaceClient({
      baseUrl: marketplaceUrl,
      apiKey: apiKey && (() => {
        const key = apiKey();
        scrubber.addUserSecret(key);
        return key;
      }),
      timeoutMs: config.MARKETPLACE_TIMEOUT_MS,
      backoffBaseMs: options.marketplaceBackoffMs,
      onCall: (info) => metrics.apiCalls.inc({ method: info.method, route: info.route, outcome: info.outcome }),
    }), { onLimit: (limit) => metrics.publicWorkLimited.inc({ limit }) });

  // The playground stays on this machine unless HOST says otherwise (and parseConfig allowed it).
  const host = config.HOST ?? (config.playground ? "127.0.0.1" : "0.0.0.0");
  let playground: PlaygroundHandle | null = null;
  let token = config.BOT_TOKEN;
  let apiRoot = config.TELEGRAM_API_ROOT!;
  if (config.playground) {
    playground = await startPlayground({ logger, sandbox, address: { host, publicUrl: config.PUBLIC_URL ?? null } });
    stops.push(() => playground!.stop());
    token = playground.token;
    apiRoot = playground.apiRoot;
  }

  const i18n = createI18n<BotContext>(LOCALES_DIR);
  const replicaId = config.REPLICA_ID ?? `${hostname()}:${process.pid}:${randomUUID().slice(0, 8)}`;
  // One for the process: replies and alerts together stay within Telegram's overall limit on arrival.
  const lifted = options.telegramBudget ? Math.floor(options.telegramBudget.perSecond + options.telegramBudget.burst) : 0;
  const sendWindow = new ArrivalWindow({ windowMs: DEFAULT_ARRIVAL_WINDOW.windowMs, limit: Math.max(DEFAULT_ARRIVAL_WINDOW.limit, lifted), now });
  // Telegram's budgets: in the database every replica shares (PostgreSQL), or in this process's
  // memory on SQLite, which is one process by design. Replies and alerts take from the same one.
  const sendBudget = isPostgres(db) ? databaseSendBudget(db) : memorySendBudget();
  const push = startPush({ db, logger, metrics, now, marketplace, box, config, i18n, token: token!, apiRoot, replicaId, sendWindow, sendBudget, ...(config.LEASE_MS === undefined ? {} : { leaseMs: config.LEASE_MS }) });
  const deps: BotDeps = {
    config,
    db,
    writes: new WriteBatcher(db),
    logger,
    box,
    metrics,
    now,
    sandbox: sandbox !== null,
    marketplace,
    options: new OptionsCache(now),
    i18n,
    followOrder: (telegramId, orderId) => push.followOrder(telegramId, orderId),
    onLinked: (telegramId) => push.primeNotifications(telegramId),
    rememberSecret: (value) => scrubber.addUserSecret(value),
  };
  const bot = createBot(deps, { token: token!, apiRoot, perChatMinTimeMs: options.perChatMinTimeMs, timeouts: options.telegramTimeouts, overallBudget: options.telegramBudget, serverErrorRetries: options.telegramServerErrorRetries, sendWindow, sendBudget, ...(options.telegramTyping !== undefined ? { typing: options.telegramTyping } : {}), ...(options.telegramDoubleTapMs !== undefined ? { doubleTapMs: options.telegramDoubleTapMs } : {}), chatPace: options.telegramChatPace !== undefined ? options.telegramChatPace : options.perChatMinTimeMs === 0 ? null : undefined });

  const webhookSecret = telegramWebhookSecret(secretKey);
  const routes: Array<(app: Hono<ServerEnv>) => void> = [push.routes];
  const telegramWebhook = config.BOT_MODE === "webhook" ? registerTelegramWebhook(bot, webhookSecret, logger, { turns: isPostgres(db) ? databaseUpdateTurns(db, replicaId, { writes: deps.writes }) : processUpdateTurns(db, replicaId, { writes: deps.writes }), health: databaseHealth(db) }) : null;
  if (telegramWebhook) routes.push(telegramWebhook.register);
  if (playground) routes.push(playground.routes);
  const http = createServer({ db, logger, metrics, replicaId, dialect, metricsToken: config.METRICS_TOKEN }, routes);

  // Before the server accepts /telegram: an update handled by an uninitialised bot fails.
  await bot.init();
  if (!bot.botInfo.supports_inline_queries) {
    logger.warn({ bot: bot.botInfo.username }, "inline mode is off for this bot, so \"@bot 65k 1h\" quotes do not work in chats: in @BotFather send /setinline, choose the bot and set a placeholder");
  }
  const server: ServerType = await new Promise((resolve) => {
    const started = serve({ fetch: http.fetch, port: config.PORT, hostname: host }, () => resolve(started));
  });
  // Far below Node's 300 s default: a slow client cannot hold a connection open.
  const nodeServer = server as unknown as { requestTimeout: number; headersTimeout: number; keepAliveTimeout: number };
  nodeServer.requestTimeout = 30_000;
  nodeServer.headersTimeout = 10_000;
  nodeServer.keepAliveTimeout = 5_000;
  const address = server.address() as AddressInfo;
  const url = `http://${urlHost(host)}:${address.port}`;
  playground?.attach({ push, db, now, selfUrl: url, publicUrl: config.PUBLIC_URL ?? null });
  stops.push(
    () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        (server as unknown as { closeAllConnections?: () => void }).closeAllConnections?.();
      }),
  );

  let runner: RunnerHandle | null = null;
  let leadership: LeaderHandle | null = null;
  if (config.BOT_MODE === "webhook") {
    await bot.api.setWebhook(`${config.PUBLIC_URL}/telegram`, { secret_token: webhookSecret, allowed_updates: ["message", "edited_message", "callback_query", "my_chat_member", "inline_query"] });
    logger.info({ url: `${config.PUBLIC_URL}/telegram` }, "webhook mode: Telegram posts updates to /telegram");
  } else {
    // Exactly one replica calls getUpdates: the holder of the polling lease; another takes over
    // within seconds when it dies.
    leadership = await startLeaderElection({
      db,
      logger,
      name: "telegram-polling",
      owner: replicaId,
      ttlMs: 10_000,
      renewMs: 2_500,
      onLead: async () => {
        await bot.api.deleteWebhook().catch((error: unknown) => logger.warn({ err: error }, "deleteWebhook failed"));
        runner = run(bot, { runner: pollingRunnerOptions(telegramTimeouts(options.telegramTimeouts), ["message", "edited_message", "callback_query", "my_chat_member", "inline_query"]) });
        logger.info("long polling started");
      },
      onLose: async () => {
        const stopping: RunnerHandle | null = runner;
        runner = null;
        if (stopping) await stopping.stop();
        logger.info("long polling stopped");
      },
    });
  }
  metrics.gauge("replica_polling_leader", "1 when this replica holds the polling lease (runs getUpdates)", () => (leadership?.isLeader() ? 1 : 0));
  metrics.gauge("replica_named_leases", "Named leases (polling leader, cron jobs) this replica holds", async () => (await leasesHeldBy(db, replicaId, Date.now())).length);
  void registerCommands(bot, deps);
  void registerProfile(bot, deps);
  // The sender keeps to Telegram's limits through the budget shared by all replicas, so it uses a
  // plain Api (no per-process throttler in front of it).
  push.start();

  let stopped = false;
  return {
    config,
    logger,
    db,
    dbPath,
    bot,
    deps,
    http,
    url,
    marketplaceUrl,
    sandbox,
    playground,
    push,
    async stop() {
      if (stopped) return;
      stopped = true;
      logger.debug("stopping: long polling");
      await leadership?.stop();
      if (telegramWebhook) {
        logger.debug("stopping: Telegram updates being handled (at most 5 s)");
        if (!(await telegramWebhook.drain(5_000))) logger.warn("stopping with Telegram updates still being handled; Telegram will redeliver them");
      } else if (!(await updatesHandled(bot, 5_000))) {
        // The runner stops fetching at once but leaves the updates it took running: let them end
        // before the database closes under them (their offset is already confirmed to Telegram).
        logger.warn({ inFlight: updatesInFlight(bot) }, "stopping with Telegram updates still being handled after 5 s");
      }
      logger.debug("stopping: pushed alerts (draining the outbox for a few seconds)");
      await push.stop();
      logger.debug("stopping: HTTP server and embedded services");
      for (const stop of stops.reverse()) await stop();
      await db.destroy();
      logger.info("stopped");
    },
  };
}
